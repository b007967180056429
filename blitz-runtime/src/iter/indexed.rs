//! The adaptors that need an indexed base: `enumerate`, `zip`, `skip`, `take`, `rev`,
//! `step_by` (`chunks` and its folds are in `chunks`).

use super::pair::{PairCallback, with_producers};
use super::{IndexedParallelIterator, ParallelIterator, ProducerCallback};
use crate::loops::{ParallelSource, for_each_piece};

/// Panics, saying so, if `base` holds more items than a `usize` counts (a range such as
/// `0..=u64::MAX`, see `RangeIter::len`). Its pieces then report a saturated length, which
/// front-based splits tolerate but adaptors that compute positions from the length do not:
/// `rev` counts from the back, `step_by` and `chunks` divide the length, `enumerate` numbers
/// every item. Those call this before they build their producer: without it they split
/// wrongly (a disagreement the engine reports as an internal error) or run on for 2^64 items.
pub(super) fn require_countable<I: IndexedParallelIterator>(base: &I) {
    base.len();
}

/// The iterator of [`IndexedParallelIterator::enumerate`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Enumerate<I> {
    base: I,
}

impl<I> Enumerate<I> {
    pub(super) fn new(base: I) -> Self {
        Enumerate { base }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Enumerate<I> {
    type Item = (usize, I::Item);

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        require_countable(&self.base);
        return self.base.with_producer(Callback { callback });

        struct Callback<CB> {
            callback: CB,
        }

        impl<T, CB: ProducerCallback<(usize, T)>> ProducerCallback<T> for Callback<CB> {
            type Output = CB::Output;

            fn call<P>(self, base: P) -> CB::Output
            where
                P: ParallelSource + IntoIterator<Item = T>,
            {
                self.callback.call(EnumerateProducer { base, offset: 0 })
            }
        }
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.base.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Enumerate<I> {
    fn len(&self) -> usize {
        self.base.len()
    }
}

struct EnumerateProducer<P> {
    base: P,
    /// The index of the base's first item.
    offset: usize,
}

impl<P: ParallelSource> ParallelSource for EnumerateProducer<P> {
    fn par_len(&self) -> usize {
        self.base.par_len()
    }

    fn par_split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.par_split_at(index);
        (
            EnumerateProducer {
                base: left,
                offset: self.offset,
            },
            EnumerateProducer {
                base: right,
                offset: self.offset + index,
            },
        )
    }

    fn par_min_len(&self) -> usize {
        self.base.par_min_len()
    }

    fn par_max_len(&self) -> usize {
        self.base.par_max_len()
    }
}

impl<P: IntoIterator> IntoIterator for EnumerateProducer<P> {
    type Item = (usize, P::Item);
    type IntoIter = Enumerated<P::IntoIter>;

    fn into_iter(self) -> Self::IntoIter {
        Enumerated {
            next_index: self.offset,
            base: self.base.into_iter(),
        }
    }
}

/// The sequential side of an `enumerate` piece: `std`'s `Enumerate` from an offset. Not
/// `(offset..).zip(base)`: a `RangeFrom` steps past its value when it yields it, which
/// overflows (a panic in a debug build) after an item at index `usize::MAX - 1`, and the zip
/// asked it for one more index before finding the base exhausted. `nth` skips in the base,
/// so `step_by` over an enumerated range does not produce the items it skips.
pub(super) struct Enumerated<I> {
    next_index: usize,
    base: I,
}

impl<I: Iterator> Iterator for Enumerated<I> {
    type Item = (usize, I::Item);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let item = self.base.next()?;
        let index = self.next_index;
        // Wrapping: past the last index there is no item to number.
        self.next_index = index.wrapping_add(1);
        Some((index, item))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.base.size_hint()
    }

    #[inline]
    fn nth(&mut self, n: usize) -> Option<Self::Item> {
        let item = self.base.nth(n)?;
        let index = self.next_index.wrapping_add(n);
        self.next_index = index.wrapping_add(1);
        Some((index, item))
    }

    #[inline]
    fn fold<B, F>(self, init: B, mut f: F) -> B
    where
        F: FnMut(B, Self::Item) -> B,
    {
        let mut index = self.next_index;
        self.base.fold(init, move |acc, item| {
            let numbered = (index, item);
            index = index.wrapping_add(1);
            f(acc, numbered)
        })
    }
}

/// The iterator of [`IndexedParallelIterator::zip`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Zip<A, B> {
    a: A,
    b: B,
}

impl<A, B> Zip<A, B> {
    pub(super) fn new(a: A, b: B) -> Self {
        Zip { a, b }
    }
}

impl<A, B> ParallelIterator for Zip<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator,
{
    type Item = (A::Item, B::Item);

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        let len = self.len();
        return with_producers(self.a, self.b, Callback { callback, len });

        struct Callback<CB> {
            callback: CB,
            len: usize,
        }

        impl<TA, TB, CB: ProducerCallback<(TA, TB)>> PairCallback<TA, TB> for Callback<CB> {
            type Output = CB::Output;

            fn call<PA, PB>(self, a: PA, b: PB) -> CB::Output
            where
                PA: ParallelSource + IntoIterator<Item = TA>,
                PB: ParallelSource + IntoIterator<Item = TB>,
            {
                self.callback.call(ZipProducer {
                    a,
                    b,
                    len: self.len,
                })
            }
        }
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<A, B> IndexedParallelIterator for Zip<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator,
{
    fn len(&self) -> usize {
        self.a.len().min(self.b.len())
    }
}

/// Two producers side by side. `len` is the shorter one's length: the longer one's excess
/// stays in the last piece, where the sequential `zip` never reaches it (and drops it).
struct ZipProducer<PA, PB> {
    a: PA,
    b: PB,
    len: usize,
}

impl<PA: ParallelSource, PB: ParallelSource> ParallelSource for ZipProducer<PA, PB> {
    fn par_len(&self) -> usize {
        self.len
    }

    fn par_split_at(self, index: usize) -> (Self, Self) {
        let (a_left, a_right) = self.a.par_split_at(index);
        let (b_left, b_right) = self.b.par_split_at(index);
        (
            ZipProducer {
                a: a_left,
                b: b_left,
                len: index,
            },
            ZipProducer {
                a: a_right,
                b: b_right,
                len: self.len - index,
            },
        )
    }

    fn par_min_len(&self) -> usize {
        self.a.par_min_len().max(self.b.par_min_len())
    }

    fn par_max_len(&self) -> usize {
        self.a.par_max_len().min(self.b.par_max_len())
    }
}

impl<PA: IntoIterator, PB: IntoIterator> IntoIterator for ZipProducer<PA, PB> {
    type Item = (PA::Item, PB::Item);
    type IntoIter = std::iter::Zip<PA::IntoIter, PB::IntoIter>;

    fn into_iter(self) -> Self::IntoIter {
        self.a.into_iter().zip(self.b)
    }
}

/// `skip` and `take`: the items after (or up to) an index, cut off the base's producer with
/// one split before anything runs.
///
/// `skip` runs the items it skips first (in parallel, doing nothing with them), as
/// `Iterator::skip` pulls them: the adaptors before it see every item, so a `map` or `inspect`
/// with side effects runs for each, and a source that owns its items drops them there.
/// `take` drops the rest unrun, as `Iterator::take` never pulls it.
macro_rules! cut_adaptor {
    ($(#[$doc:meta])* $adaptor:ident, keep_back: $keep_back:expr) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        #[must_use = "parallel iterators do nothing until consumed"]
        pub struct $adaptor<I> {
            base: I,
            n: usize,
        }

        impl<I> $adaptor<I> {
            pub(super) fn new(base: I, n: usize) -> Self {
                $adaptor { base, n }
            }
        }

        impl<I: IndexedParallelIterator> ParallelIterator for $adaptor<I> {
            type Item = I::Item;

            fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
                let n = self.n;
                return self.base.with_producer(Callback { callback, n });

                struct Callback<CB> {
                    callback: CB,
                    n: usize,
                }

                impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<CB> {
                    type Output = CB::Output;

                    fn call<P>(self, base: P) -> CB::Output
                    where
                        P: ParallelSource + IntoIterator<Item = T>,
                    {
                        let at = self.n.min(base.par_len());
                        let (front, back) = base.par_split_at(at);
                        if $keep_back {
                            for_each_piece(front, 0, |piece| piece.into_iter().for_each(drop));
                            self.callback.call(back)
                        } else {
                            drop(back);
                            self.callback.call(front)
                        }
                    }
                }
            }

            fn opt_len(&self) -> Option<usize> {
                Some(self.len())
            }
        }

        impl<I: IndexedParallelIterator> IndexedParallelIterator for $adaptor<I> {
            fn len(&self) -> usize {
                let (len, front) = (self.base.len(), self.n.min(self.base.len()));
                if $keep_back { len - front } else { front }
            }
        }
    };
}

cut_adaptor!(
    /// The iterator of [`IndexedParallelIterator::skip`].
    Skip, keep_back: true
);
cut_adaptor!(
    /// The iterator of [`IndexedParallelIterator::take`].
    Take, keep_back: false
);

/// The iterator of [`IndexedParallelIterator::rev`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Rev<I> {
    base: I,
}

impl<I> Rev<I> {
    pub(super) fn new(base: I) -> Self {
        Rev { base }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Rev<I> {
    type Item = I::Item;

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        require_countable(&self.base);
        return self.base.with_producer(Callback { callback });

        struct Callback<CB> {
            callback: CB,
        }

        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<CB> {
            type Output = CB::Output;

            fn call<P>(self, base: P) -> CB::Output
            where
                P: ParallelSource + IntoIterator<Item = T>,
            {
                self.callback.call(RevProducer { base })
            }
        }
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.base.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Rev<I> {
    fn len(&self) -> usize {
        self.base.len()
    }
}

/// A piece of a `rev`: its index `i` is the base's index `len - 1 - i`, so its front is the
/// base's back.
struct RevProducer<P> {
    base: P,
}

impl<P: ParallelSource> ParallelSource for RevProducer<P> {
    fn par_len(&self) -> usize {
        self.base.par_len()
    }

    fn par_split_at(self, index: usize) -> (Self, Self) {
        let len = self.base.par_len();
        let (front, back) = self.base.par_split_at(len - index);
        (RevProducer { base: back }, RevProducer { base: front })
    }

    fn par_min_len(&self) -> usize {
        self.base.par_min_len()
    }

    fn par_max_len(&self) -> usize {
        self.base.par_max_len()
    }
}

impl<P: ParallelSource> IntoIterator for RevProducer<P> {
    type Item = P::Item;
    type IntoIter = RevIter<P>;

    fn into_iter(self) -> RevIter<P> {
        RevIter {
            rest: Some(self.base),
            block: Vec::new(),
        }
    }
}

/// The sequential side of a `rev` piece. A producer's items come out front first only, so
/// the piece is cut into blocks from the back (one split each); a block's items are pushed
/// on a stack in order and popped in reverse. The stack is allocated once per piece.
pub(super) struct RevIter<P: IntoIterator> {
    /// The items not yet in a block.
    rest: Option<P>,
    /// The current block, its last item on top.
    block: Vec<P::Item>,
}

impl<P: IntoIterator> RevIter<P> {
    /// Items per block: a few kilobytes of them, at most 256, at least one.
    const BLOCK: usize = match 4096usize.checked_div(std::mem::size_of::<P::Item>()) {
        Some(0) => 1,
        Some(n) if n < 256 => n,
        _ => 256,
    };
}

impl<P: ParallelSource> Iterator for RevIter<P> {
    type Item = P::Item;

    fn next(&mut self) -> Option<P::Item> {
        loop {
            if let Some(item) = self.block.pop() {
                return Some(item);
            }
            let rest = self.rest.take()?;
            let len = rest.par_len();
            if len == 0 {
                return None;
            }
            let (front, back) = rest.par_split_at(len - Self::BLOCK.min(len));
            self.block.extend(back);
            self.rest = Some(front);
        }
    }

    /// Skips `n` items without visiting them: the block's by dropping them, the rest's by
    /// splitting them off its back. `std`'s `step_by` steps through `nth`, so that
    /// `rev().step_by(k)` costs its output, not its input.
    fn nth(&mut self, n: usize) -> Option<P::Item> {
        let in_block = n.min(self.block.len());
        self.block.truncate(self.block.len() - in_block);
        let n = n - in_block;
        if n > 0 {
            let rest = self.rest.take()?;
            let len = rest.par_len();
            if n >= len {
                return None;
            }
            let (front, _skipped) = rest.par_split_at(len - n);
            self.rest = Some(front);
        }
        self.next()
    }

    fn fold<B, F: FnMut(B, P::Item) -> B>(mut self, init: B, mut fold: F) -> B {
        // Whole blocks at once: a block drained backwards is a plain loop over a slice.
        let mut acc = self.block.drain(..).rev().fold(init, &mut fold);
        while let Some(rest) = self.rest.take() {
            let len = rest.par_len();
            if len == 0 {
                break;
            }
            let (front, back) = rest.par_split_at(len - Self::BLOCK.min(len));
            self.rest = Some(front);
            self.block.extend(back);
            acc = self.block.drain(..).rev().fold(acc, &mut fold);
        }
        acc
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = self.block.len() + self.rest.as_ref().map_or(0, ParallelSource::par_len);
        (len, Some(len))
    }
}

/// The iterator of [`IndexedParallelIterator::step_by`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct StepBy<I> {
    base: I,
    step: usize,
}

impl<I> StepBy<I> {
    pub(super) fn new(base: I, step: usize) -> Self {
        assert!(step != 0, "step_by: the step must not be 0");
        StepBy { base, step }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for StepBy<I> {
    type Item = I::Item;

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        require_countable(&self.base);
        let step = self.step;
        return self.base.with_producer(Callback { callback, step });

        struct Callback<CB> {
            callback: CB,
            step: usize,
        }

        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<CB> {
            type Output = CB::Output;

            fn call<P>(self, base: P) -> CB::Output
            where
                P: ParallelSource + IntoIterator<Item = T>,
            {
                self.callback.call(StepByProducer {
                    base,
                    step: self.step,
                })
            }
        }
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for StepBy<I> {
    fn len(&self) -> usize {
        self.base.len().div_ceil(self.step)
    }
}

/// A piece of a `step_by`: its index `i` is the base's index `i * step`. Every piece starts on
/// a multiple of the step, so each runs as `std`'s `step_by` on its piece of the base.
struct StepByProducer<P> {
    base: P,
    step: usize,
}

impl<P: ParallelSource> ParallelSource for StepByProducer<P> {
    fn par_len(&self) -> usize {
        self.base.par_len().div_ceil(self.step)
    }

    fn par_split_at(self, index: usize) -> (Self, Self) {
        let at = index.saturating_mul(self.step).min(self.base.par_len());
        let (front, back) = self.base.par_split_at(at);
        let step = self.step;
        (
            StepByProducer { base: front, step },
            StepByProducer { base: back, step },
        )
    }

    fn par_min_len(&self) -> usize {
        self.base.par_min_len().div_ceil(self.step)
    }

    fn par_max_len(&self) -> usize {
        (self.base.par_max_len() / self.step).max(1)
    }
}

impl<P: IntoIterator> IntoIterator for StepByProducer<P> {
    type Item = P::Item;
    type IntoIter = std::iter::StepBy<P::IntoIter>;

    fn into_iter(self) -> Self::IntoIter {
        self.base.into_iter().step_by(self.step)
    }
}
