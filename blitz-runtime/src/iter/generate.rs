//! Parallel iterators made from values rather than collections: [`empty`], [`once`],
//! [`repeat`], [`repeat_n`] and [`split`] (rayon's `rayon::iter` functions of those names).

use std::marker::PhantomData;

use super::adaptors::debug_without_closures;
use super::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator, ProducerCallback};
use crate::join::with_worker;
use crate::loops::ParallelSource;
use crate::registry::Worker;

/// A parallel iterator with no items.
///
/// ```
/// use blitz::prelude::*;
/// let v: Vec<u32> = blitz::iter::empty().collect();
/// assert!(v.is_empty());
/// assert_eq!(blitz::iter::empty::<u64>().sum::<u64>(), 0);
/// ```
pub fn empty<T: Send>() -> Empty<T> {
    Empty {
        _items: PhantomData,
    }
}

/// The iterator of [`empty`].
#[derive(Debug, Clone, Copy)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Empty<T> {
    _items: PhantomData<fn() -> T>,
}

impl<T: Send> ParallelIterator for Empty<T> {
    type Item = T;

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        callback.call(OnceSource::<T>(None))
    }

    fn opt_len(&self) -> Option<usize> {
        Some(0)
    }
}

impl<T: Send> IndexedParallelIterator for Empty<T> {
    fn len(&self) -> usize {
        0
    }
}

/// A parallel iterator with exactly one item.
///
/// ```
/// use blitz::prelude::*;
/// let v: Vec<u32> = (0..3u32).into_par_iter().chain(blitz::iter::once(10)).collect();
/// assert_eq!(v, [0, 1, 2, 10]);
/// ```
pub fn once<T: Send>(item: T) -> Once<T> {
    Once { item }
}

/// The iterator of [`once`].
#[derive(Debug, Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Once<T> {
    item: T,
}

impl<T: Send> ParallelIterator for Once<T> {
    type Item = T;

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        callback.call(OnceSource(Some(self.item)))
    }

    fn opt_len(&self) -> Option<usize> {
        Some(1)
    }
}

impl<T: Send> IndexedParallelIterator for Once<T> {
    fn len(&self) -> usize {
        1
    }
}

/// The source of [`once`] and [`empty`]: at most one item.
struct OnceSource<T>(Option<T>);

impl<T: Send> ParallelSource for OnceSource<T> {
    fn par_len(&self) -> usize {
        usize::from(self.0.is_some())
    }

    fn par_split_at(self, index: usize) -> (Self, Self) {
        if index == 0 {
            (OnceSource(None), self)
        } else {
            (self, OnceSource(None))
        }
    }
}

impl<T> IntoIterator for OnceSource<T> {
    type Item = T;
    type IntoIter = std::option::IntoIter<T>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

/// A parallel iterator that yields clones of `element` without end. Bound it with
/// [`take`](Repeat::take) or [`zip`](Repeat::zip) (which make it indexed), or stop it with an
/// early-ending consumer such as `find_any` or `while_some`.
///
/// ```
/// use blitz::prelude::*;
/// let pairs: Vec<(char, u32)> = blitz::iter::repeat('x').zip(vec![1, 2, 3]).collect();
/// assert_eq!(pairs, [('x', 1), ('x', 2), ('x', 3)]);
/// let fives: Vec<u8> = blitz::iter::repeat(5u8).take(3).collect();
/// assert_eq!(fives, [5, 5, 5]);
/// ```
pub fn repeat<T: Clone + Send>(element: T) -> Repeat<T> {
    Repeat { element }
}

/// The iterator of [`repeat`].
#[derive(Debug, Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Repeat<T> {
    element: T,
}

impl<T: Clone + Send> Repeat<T> {
    /// The first `n` clones: an indexed iterator of length `n`, as [`repeat_n`] makes.
    pub fn take(self, n: usize) -> RepeatN<T> {
        repeat_n(self.element, n)
    }

    /// Pairs a clone with every item of `other`: as many items as `other` has.
    pub fn zip<Z>(self, other: Z) -> super::Zip<RepeatN<T>, Z::Iter>
    where
        Z: IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        let other = other.into_par_iter();
        let len = other.len();
        self.take(len).zip(other)
    }
}

impl<T: Clone + Send> ParallelIterator for Repeat<T> {
    type Item = T;

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        // Endless in practice: an early-ending consumer stops it long before the count runs out.
        callback.call(RepeatSource {
            element: Some(self.element),
            count: usize::MAX,
        })
    }
}

/// A parallel iterator that yields `n` clones of `element` (rayon's `repeat_n`); the last is
/// `element` itself.
///
/// ```
/// use blitz::prelude::*;
/// let v: Vec<String> = blitz::iter::repeat_n(String::from("ab"), 3).collect();
/// assert_eq!(v, ["ab", "ab", "ab"]);
/// ```
pub fn repeat_n<T: Clone + Send>(element: T, n: usize) -> RepeatN<T> {
    RepeatN {
        element: (n > 0).then_some(element),
        count: n,
    }
}

/// The older name of [`repeat_n`], kept for code written against rayon before 1.11.
pub fn repeatn<T: Clone + Send>(element: T, n: usize) -> RepeatN<T> {
    repeat_n(element, n)
}

/// The iterator of [`repeat_n`].
#[derive(Debug, Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct RepeatN<T> {
    /// `None` when `count` is 0, so no clone is ever made of an element that is not yielded.
    element: Option<T>,
    count: usize,
}

impl<T: Clone + Send> ParallelIterator for RepeatN<T> {
    type Item = T;

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        callback.call(RepeatSource {
            element: self.element,
            count: self.count,
        })
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.count)
    }
}

impl<T: Clone + Send> IndexedParallelIterator for RepeatN<T> {
    fn len(&self) -> usize {
        self.count
    }
}

/// The source of [`repeat`] and [`repeat_n`]: `count` clones of `element`.
///
/// Invariant: `element` is `Some` whenever `count > 0`.
pub(super) struct RepeatSource<T> {
    pub(super) element: Option<T>,
    pub(super) count: usize,
}

impl<T: Clone + Send> ParallelSource for RepeatSource<T> {
    fn par_len(&self) -> usize {
        self.count
    }

    fn par_split_at(self, index: usize) -> (Self, Self) {
        let rest = self.count - index;
        // Each side with items gets the element, and only such a side: a cut at either end
        // moves it whole (a split into `n` non-empty pieces makes `n - 1` clones, and the
        // items `count - 1` more, as rayon's). Otherwise the right keeps the original.
        let (left, right) = match (index > 0, rest > 0) {
            (true, true) => (self.element.clone(), self.element),
            (true, false) => (self.element, None),
            (false, _) => (None, self.element),
        };
        (
            RepeatSource {
                element: left,
                count: index,
            },
            RepeatSource {
                element: right,
                count: rest,
            },
        )
    }
}

/// The sequential side: clones the element for every item but the last, which takes it.
impl<T: Clone> Iterator for RepeatSource<T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        self.count = self.count.checked_sub(1)?;
        if self.count == 0 {
            self.element.take()
        } else {
            self.element.clone()
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.count, Some(self.count))
    }

    /// Skips `n` items without making them (`step_by` skips through here).
    fn nth(&mut self, n: usize) -> Option<T> {
        if n >= self.count {
            self.count = 0;
            self.element = None;
            return None;
        }
        self.count -= n;
        self.next()
    }
}

impl<T: Clone> ExactSizeIterator for RepeatSource<T> {}

/// A parallel iterator over the pieces that `splitter` cuts `data` into (rayon's `split`):
/// `splitter` returns the data cut in two, or the data whole and `None` when it should not be
/// cut further. The items are the pieces, in the order of the data.
///
/// The cutting runs in parallel, a few pieces per worker to start with and more wherever a
/// piece moves to another worker; how many pieces there are depends on the schedule, as in
/// rayon, but never exceeds what `splitter` allows. The pieces are gathered before the
/// iterator's adaptors run on them.
///
/// ```
/// use blitz::prelude::*;
/// // Sum a range by cutting it into pieces of at most 1000 numbers.
/// let total: u64 = blitz::iter::split(0..100_000u64, |r| {
///     if r.end - r.start <= 1000 {
///         return (r, None);
///     }
///     let mid = r.start + (r.end - r.start) / 2;
///     (r.start..mid, Some(mid..r.end))
/// })
/// .map(|piece| piece.sum::<u64>())
/// .sum();
/// assert_eq!(total, 4_999_950_000);
/// ```
pub fn split<D, S>(data: D, splitter: S) -> Split<D, S>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync,
{
    Split { data, splitter }
}

/// The iterator of [`split`].
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Split<D, S> {
    data: D,
    splitter: S,
}

debug_without_closures!(Split<D, S> { data } where D: std::fmt::Debug);

/// How many pieces per worker [`split`] aims for when no piece moves: enough for the loop
/// engine to balance pieces of somewhat uneven cost.
const SPLIT_PIECES_PER_WORKER: usize = 4;

impl<D, S> ParallelIterator for Split<D, S>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync + Send,
{
    type Item = D;

    fn with_producer<CB: ProducerCallback<D>>(self, callback: CB) -> CB::Output {
        let Split { data, splitter } = self;
        let pieces = with_worker(|worker| {
            let budget = SPLIT_PIECES_PER_WORKER * worker.num_threads();
            cut(worker, data, &splitter, budget)
        });
        pieces.into_par_iter().with_producer(callback)
    }
}

/// Cuts `data` with `splitter` until it says stop or `budget` pieces are reached, in parallel;
/// a half that another worker took gets at least one piece per worker of budget again (the
/// adaptive rule of the loops' splitter: a steal means workers are hungry).
fn cut<D, S>(worker: &Worker, data: D, splitter: &S, budget: usize) -> Vec<D>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync,
{
    if budget <= 1 {
        return vec![data];
    }
    match splitter(data) {
        (whole, None) => vec![whole],
        (left, Some(right)) => {
            let half = budget / 2;
            let forker = worker.index();
            let (mut pieces, right_pieces) = worker.join(
                |w| cut(w, left, splitter, half),
                |w| {
                    let budget = if w.index() == forker {
                        half
                    } else {
                        half.max(w.num_threads())
                    };
                    cut(w, right, splitter, budget)
                },
            );
            pieces.extend(right_pieces);
            pieces
        }
    }
}
