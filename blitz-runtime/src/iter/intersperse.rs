//! `intersperse`: a clone of a separator between every two items.
//!
//! Over an indexed base, the result is indexed: item `i` of the base is at position `2i` and
//! separators fill the odd positions, so a piece is a range of positions, split anywhere, whose
//! base items are those at its even positions. Over a base of unknown length (`filter`, ...),
//! which item comes first is only known once the items exist, so the items are collected in
//! order first and interspersed from there.

use super::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator, ProducerCallback};
use crate::loops::ParallelSource;

/// The iterator of [`ParallelIterator::intersperse`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Intersperse<I: ParallelIterator> {
    base: I,
    separator: I::Item,
}

impl<I: ParallelIterator> Intersperse<I> {
    pub(super) fn new(base: I, separator: I::Item) -> Self {
        Intersperse { base, separator }
    }
}

/// The number of positions for `items` base items: `2 * items - 1`, or 0.
fn positions(items: usize) -> usize {
    items.saturating_mul(2).saturating_sub(1)
}

impl<I> ParallelIterator for Intersperse<I>
where
    I: ParallelIterator,
    I::Item: Clone + Send,
{
    type Item = I::Item;

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let Intersperse { base, separator } = self;
        match base.opt_len() {
            Some(len) => with_positions(base, len, separator, callback),
            None => {
                let items: Vec<I::Item> = base.collect();
                let len = items.len();
                with_positions(items.into_par_iter(), len, separator, callback)
            }
        }
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len().map(positions)
    }
}

impl<I> IndexedParallelIterator for Intersperse<I>
where
    I: IndexedParallelIterator,
    I::Item: Clone + Send,
{
    fn len(&self) -> usize {
        positions(self.base.len())
    }
}

/// Hands `callback` the producer of `base` (of `len` items, one per position of its source)
/// interspersed with `separator`.
fn with_positions<I, CB>(base: I, len: usize, separator: I::Item, callback: CB) -> CB::Output
where
    I: ParallelIterator,
    I::Item: Clone + Send,
    CB: ProducerCallback<I::Item>,
{
    return base.with_producer(Callback {
        callback,
        separator,
        end: positions(len),
    });

    struct Callback<CB, T> {
        callback: CB,
        separator: T,
        end: usize,
    }

    impl<T: Clone + Send, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<CB, T> {
        type Output = CB::Output;

        fn call<P>(self, base: P) -> CB::Output
        where
            P: ParallelSource + IntoIterator<Item = T>,
        {
            self.callback.call(IntersperseProducer {
                base,
                separator: self.separator,
                start: 0,
                end: self.end,
            })
        }
    }
}

/// The positions `start..end`; `base` holds the base items at its even positions. Each piece
/// has a separator of its own to clone.
struct IntersperseProducer<P, T> {
    base: P,
    separator: T,
    start: usize,
    end: usize,
}

impl<P, T> ParallelSource for IntersperseProducer<P, T>
where
    P: ParallelSource + IntoIterator<Item = T>,
    T: Clone + Send,
{
    fn par_len(&self) -> usize {
        self.end - self.start
    }

    fn par_split_at(self, index: usize) -> (Self, Self) {
        let mid = self.start + index;
        // The base items at even positions below `mid`: positions `2i < mid`.
        let left_items = mid.div_ceil(2) - self.start.div_ceil(2);
        let (left, right) = self.base.par_split_at(left_items);
        (
            IntersperseProducer {
                base: left,
                separator: self.separator.clone(),
                start: self.start,
                end: mid,
            },
            IntersperseProducer {
                base: right,
                separator: self.separator,
                start: mid,
                end: self.end,
            },
        )
    }

    fn par_min_len(&self) -> usize {
        self.base.par_min_len().saturating_mul(2)
    }

    fn par_max_len(&self) -> usize {
        self.base.par_max_len().saturating_mul(2)
    }
}

impl<P: IntoIterator<Item = T>, T: Clone> IntoIterator for IntersperseProducer<P, T> {
    type Item = T;
    type IntoIter = IntersperseIter<P::IntoIter, T>;

    fn into_iter(self) -> Self::IntoIter {
        IntersperseIter {
            base: self.base.into_iter(),
            separator: self.separator,
            position: self.start,
            end: self.end,
        }
    }
}

/// The sequential side: base items at even positions, separators at odd ones.
struct IntersperseIter<I, T> {
    base: I,
    separator: T,
    position: usize,
    end: usize,
}

impl<I: Iterator<Item = T>, T: Clone> Iterator for IntersperseIter<I, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        if self.position == self.end {
            return None;
        }
        let item = if self.position.is_multiple_of(2) {
            self.base.next()?
        } else {
            self.separator.clone()
        };
        self.position += 1;
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let rest = self.end - self.position;
        (rest, Some(rest))
    }
}
