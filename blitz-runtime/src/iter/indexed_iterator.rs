//! The [`IndexedParallelIterator`] trait: the operations that need one item per index.

use std::cmp::Ordering;

use super::{
    Chunks, Enumerate, ExponentialBlocks, FoldChunks, FoldChunksWith, Interleave,
    InterleaveShortest, IntoParallelIterator, ParallelIterator, Positions, Rev, Skip, StepBy, Take,
    UniformBlocks, Zip, collect, consumers,
};

/// A parallel iterator that yields exactly one item per index of its source, so that it knows
/// its length, can be zipped and enumerated, searched by position, and collected in place.
///
/// ```
/// use blitz::prelude::*;
/// let a = vec![1u32, 2, 3, 4];
/// let b = vec![10u32, 20, 30, 40];
/// let it = a.par_iter().zip(&b).map(|(x, y)| x * y);
/// assert_eq!(it.len(), 4);
/// let products: Vec<u32> = a.par_iter().zip(&b).map(|(x, y)| x * y).collect();
/// assert_eq!(products, [10, 40, 90, 160]);
/// assert_eq!(products.par_iter().position_first(|&p| p > 50), Some(2));
/// ```
// No `is_empty`: rayon's trait has none, and code moving from rayon must not meet a new name.
#[allow(clippy::len_without_is_empty)]
pub trait IndexedParallelIterator: ParallelIterator {
    /// The number of items.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// assert_eq!((0..10u8).into_par_iter().len(), 10);
    /// ```
    fn len(&self) -> usize;

    /// Pairs every item with its index.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v: Vec<(usize, char)> = ['a', 'b'].par_iter().copied().enumerate().collect();
    /// assert_eq!(v, [(0, 'a'), (1, 'b')]);
    /// ```
    fn enumerate(self) -> Enumerate<Self> {
        Enumerate::new(self)
    }

    /// Pairs items with those of `other`, up to the shorter of the two.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let a = [1.0, 2.0, 3.0];
    /// let b = [4.0, 5.0, 6.0];
    /// let dot: f64 = a.par_iter().zip(&b).map(|(x, y)| x * y).sum();
    /// assert_eq!(dot, 32.0);
    /// ```
    fn zip<Z>(self, other: Z) -> Zip<Self, Z::Iter>
    where
        Z: IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        Zip::new(self, other.into_par_iter())
    }

    /// Pairs items with those of `other`, which must have as many (rayon's `zip_eq`).
    ///
    /// # Panics
    ///
    /// If the two lengths differ.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let (a, b) = ([1, 2, 3], [10, 20, 30]);
    /// let sums: Vec<i32> = a.par_iter().zip_eq(&b).map(|(x, y)| x + y).collect();
    /// assert_eq!(sums, [11, 22, 33]);
    /// ```
    fn zip_eq<Z>(self, other: Z) -> Zip<Self, Z::Iter>
    where
        Z: IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        let other = other.into_par_iter();
        let (len, other_len) = (self.len(), other.len());
        assert_eq!(
            len, other_len,
            "zip_eq: the iterators have different lengths"
        );
        Zip::new(self, other)
    }

    /// The indices of the items for which `predicate` holds, in order (rayon's `positions`).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v = [3, 8, 5, 10];
    /// let even: Vec<usize> = v.par_iter().positions(|&x| x % 2 == 0).collect();
    /// assert_eq!(even, [1, 3]);
    /// ```
    fn positions<P>(self, predicate: P) -> Positions<Self, P>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        Positions::new(self, predicate)
    }

    /// The items after the first `n` (none if there are fewer).
    ///
    /// The first `n` are still produced, in parallel, before the rest, and then dropped (as
    /// `Iterator::skip` pulls them): a `map` or `inspect` before `skip` runs on every item.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let v: Vec<u32> = (0..10u32).into_par_iter().skip(7).collect();
    /// assert_eq!(v, [7, 8, 9]);
    ///
    /// let seen = AtomicUsize::new(0);
    /// let kept = (0..10u32)
    ///     .into_par_iter()
    ///     .inspect(|_| _ = seen.fetch_add(1, Ordering::Relaxed))
    ///     .skip(7)
    ///     .count();
    /// assert_eq!((kept, seen.into_inner()), (3, 10));
    /// ```
    fn skip(self, n: usize) -> Skip<Self> {
        Skip::new(self, n)
    }

    /// The first `n` items (all of them if there are fewer).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v: Vec<u32> = (0..10u32).into_par_iter().skip(2).take(3).collect();
    /// assert_eq!(v, [2, 3, 4]);
    /// ```
    fn take(self, n: usize) -> Take<Self> {
        Take::new(self, n)
    }

    /// The items of `self` and `other` in turns, starting with `self`'s, then the rest of the
    /// longer one (rayon's `interleave`).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v: Vec<u32> = (0..3u32).into_par_iter().interleave(10..15u32).collect();
    /// assert_eq!(v, [0, 10, 1, 11, 2, 12, 13, 14]);
    /// ```
    fn interleave<I>(self, other: I) -> Interleave<Self, I::Iter>
    where
        I: IntoParallelIterator<Item = Self::Item>,
        I::Iter: IndexedParallelIterator<Item = Self::Item>,
    {
        Interleave::new(self, other.into_par_iter())
    }

    /// The items of `self` and `other` in turns, starting with `self`'s, up to the first
    /// turn whose side has nothing left (rayon's `interleave_shortest`).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v: Vec<u32> = (0..3u32).into_par_iter().interleave_shortest(10..15u32).collect();
    /// assert_eq!(v, [0, 10, 1, 11, 2, 12]);
    /// let w: Vec<u32> = (0..5u32).into_par_iter().interleave_shortest(10..12u32).collect();
    /// assert_eq!(w, [0, 10, 1, 11, 2]);
    /// ```
    fn interleave_shortest<I>(self, other: I) -> InterleaveShortest<Self, I::Iter>
    where
        I: IntoParallelIterator<Item = Self::Item>,
        I::Iter: IndexedParallelIterator<Item = Self::Item>,
    {
        InterleaveShortest::new(self, other.into_par_iter())
    }

    /// The items in reverse order (rayon's `rev`).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v: Vec<u32> = (0..5u32).into_par_iter().rev().collect();
    /// assert_eq!(v, [4, 3, 2, 1, 0]);
    /// ```
    fn rev(self) -> Rev<Self> {
        Rev::new(self)
    }

    /// Every `step`-th item, starting with the first (rayon's `step_by`).
    ///
    /// # Panics
    ///
    /// If `step` is 0.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v: Vec<u32> = (0..10u32).into_par_iter().step_by(4).collect();
    /// assert_eq!(v, [0, 4, 8]);
    /// ```
    fn step_by(self, step: usize) -> StepBy<Self> {
        StepBy::new(self, step)
    }

    /// Groups the items into `Vec`s of `chunk_size` (the last may be shorter).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let groups: Vec<Vec<u32>> = (0..5u32).into_par_iter().chunks(2).collect();
    /// assert_eq!(groups, [vec![0, 1], vec![2, 3], vec![4]]);
    /// ```
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    fn chunks(self, chunk_size: usize) -> Chunks<Self> {
        Chunks::new(self, chunk_size)
    }

    /// Folds every `chunk_size` items (the last chunk may be shorter) into one, starting each
    /// chunk from `identity()`: `chunks(n).map(|c| c.into_iter().fold(..))` without the
    /// `Vec`s. Unlike [`fold`](ParallelIterator::fold), the chunks do not depend on the
    /// split, so the result is indexed.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let sums: Vec<u32> = (1..=7u32).into_par_iter().fold_chunks(3, || 0, |a, x| a + x).collect();
    /// assert_eq!(sums, [6, 15, 7]);
    /// ```
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    fn fold_chunks<T, ID, F>(
        self,
        chunk_size: usize,
        identity: ID,
        fold_op: F,
    ) -> FoldChunks<Self, ID, F>
    where
        ID: Fn() -> T + Sync + Send,
        F: Fn(T, Self::Item) -> T + Sync + Send,
        T: Send,
    {
        FoldChunks::new(self, chunk_size, identity, fold_op)
    }

    /// Like [`fold_chunks`](Self::fold_chunks), starting each chunk from a clone of `init`.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let longest: Vec<usize> =
    ///     ["a", "bbb", "cc", "d"].par_iter().fold_chunks_with(2, 0, |m, w| m.max(w.len())).collect();
    /// assert_eq!(longest, [3, 2]);
    /// ```
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    fn fold_chunks_with<T, F>(
        self,
        chunk_size: usize,
        init: T,
        fold_op: F,
    ) -> FoldChunksWith<Self, T, F>
    where
        T: Clone + Send,
        F: Fn(T, Self::Item) -> T + Sync + Send,
    {
        FoldChunksWith::new(self, chunk_size, init, fold_op)
    }

    /// Compares the items with those of `other` lexicographically, as `Iterator::cmp` does:
    /// the first unequal pair decides, and if there is none, the shorter side is less.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// use std::cmp::Ordering;
    /// assert_eq!([1, 2, 3].par_iter().cmp(&[1, 2, 4]), Ordering::Less);
    /// assert_eq!([1, 2].par_iter().cmp(&[1, 2, 0]), Ordering::Less);
    /// ```
    fn cmp<I>(self, other: I) -> Ordering
    where
        I: IntoParallelIterator<Item = Self::Item>,
        I::Iter: IndexedParallelIterator,
        Self::Item: Ord,
    {
        let other = other.into_par_iter();
        let by_len = self.len().cmp(&other.len());
        self.zip(other)
            .map(|(a, b)| Ord::cmp(&a, &b))
            .find_first(|&order| order != Ordering::Equal)
            .unwrap_or(by_len)
    }

    /// Compares the items with those of `other` lexicographically, as `Iterator::partial_cmp`
    /// does: the first pair that is not equal decides (`None` if it is incomparable).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// use std::cmp::Ordering;
    /// assert_eq!([1.0, 2.0].par_iter().partial_cmp(&[1.0, 3.0]), Some(Ordering::Less));
    /// assert_eq!([f64::NAN].par_iter().partial_cmp(&[1.0]), None);
    /// ```
    fn partial_cmp<I>(self, other: I) -> Option<Ordering>
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        let other = other.into_par_iter();
        let by_len = self.len().cmp(&other.len());
        self.zip(other)
            .map(|(a, b)| PartialOrd::partial_cmp(&a, &b))
            .find_first(|&order| order != Some(Ordering::Equal))
            .unwrap_or(Some(by_len))
    }

    /// True if both sides have the same length and equal items, pair by pair.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v: Vec<u32> = (0..100).collect();
    /// assert!(v.par_iter().eq(&v));
    /// assert!((0..100u32).into_par_iter().eq(v.clone()));
    /// ```
    fn eq<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialEq<I::Item>,
    {
        let other = other.into_par_iter();
        self.len() == other.len() && self.zip(other).all(|(a, b)| a == b)
    }

    /// The negation of [`eq`](Self::eq).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// assert!([1, 2].par_iter().ne(&[1, 3]));
    /// ```
    fn ne<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialEq<I::Item>,
    {
        !self.eq(other)
    }

    /// True if the items are lexicographically less than `other`'s (see
    /// [`partial_cmp`](Self::partial_cmp)).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// assert!([1, 2].par_iter().lt(&[1, 3]));
    /// ```
    fn lt<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        self.partial_cmp(other) == Some(Ordering::Less)
    }

    /// True if the items are lexicographically less than or equal to `other`'s.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// assert!([1, 2].par_iter().le(&[1, 2]));
    /// ```
    fn le<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        matches!(
            self.partial_cmp(other),
            Some(Ordering::Less | Ordering::Equal)
        )
    }

    /// True if the items are lexicographically greater than `other`'s.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// assert!([2].par_iter().gt(&[1, 9]));
    /// ```
    fn gt<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        self.partial_cmp(other) == Some(Ordering::Greater)
    }

    /// True if the items are lexicographically greater than or equal to `other`'s.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// assert!([1, 2, 3].par_iter().ge(&[1, 2]));
    /// ```
    fn ge<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        matches!(
            self.partial_cmp(other),
            Some(Ordering::Greater | Ordering::Equal)
        )
    }

    /// Runs the iterator in blocks, one after another, as rayon does: first one item per
    /// worker, then each block twice as long as the one before. Each block is shared among the
    /// workers, and the next starts when it is done; a search whose answer is settled skips
    /// the blocks after it. (The engine already runs a loop's front first and grows its
    /// pieces, so a `find_first` does not need this to stop early.)
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let first = (0..1_000_000u32).into_par_iter().by_exponential_blocks().find_first(|&x| x > 10);
    /// assert_eq!(first, Some(11));
    /// ```
    fn by_exponential_blocks(self) -> ExponentialBlocks<Self> {
        ExponentialBlocks::new(self)
    }

    /// Runs the iterator in blocks of `block_size` items, one after another, as rayon does
    /// (see [`by_exponential_blocks`](Self::by_exponential_blocks)): the items of a block run
    /// before those of the next.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let started = AtomicUsize::new(0);
    /// let order: Vec<usize> = (0..1000)
    ///     .into_par_iter()
    ///     .map(|_| started.fetch_add(1, Ordering::Relaxed))
    ///     .by_uniform_blocks(100)
    ///     .collect();
    /// // Every item of a block started before every item of the next.
    /// for (a, b) in order.chunks(100).zip(order.chunks(100).skip(1)) {
    ///     assert!(a.iter().max() < b.iter().min());
    /// }
    /// ```
    ///
    /// # Panics
    ///
    /// If `block_size` is 0, as in rayon.
    fn by_uniform_blocks(self, block_size: usize) -> UniformBlocks<Self> {
        assert!(block_size != 0, "blitz: block_size must not be zero");
        UniformBlocks::new(self, block_size)
    }

    /// The index of some item for which `predicate` holds (not necessarily the first).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// assert_eq!([1, 2, 3].par_iter().position_any(|&x| x == 2), Some(1));
    /// ```
    fn position_any<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        consumers::position_any(self, predicate)
    }

    /// rayon's deprecated `position`, kept so that ported code compiles: [`position_any`].
    ///
    /// [`position_any`]: IndexedParallelIterator::position_any
    #[doc(hidden)]
    #[deprecated(
        note = "parallel `position` does not search in order: use `position_any`, \
                         `position_first` or `position_last`"
    )]
    fn position<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.position_any(predicate)
    }

    /// The index of the first item for which `predicate` holds; pieces after a hit are
    /// skipped, so a hit near the front costs little more than a sequential search.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v: Vec<u32> = (0..1_000_000).map(|i| i % 1000).collect();
    /// assert_eq!(v.par_iter().position_first(|&x| x == 999), Some(999));
    /// ```
    fn position_first<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        consumers::position_first(self, predicate)
    }

    /// The index of the last item for which `predicate` holds.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v: Vec<u32> = (0..1_000_000).map(|i| i % 1000).collect();
    /// assert_eq!(v.par_iter().position_last(|&x| x == 0), Some(999_000));
    /// ```
    fn position_last<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        consumers::position_last(self, predicate)
    }

    /// Collects the items into `target`, replacing its contents, written in place.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let mut v = vec![7; 3];
    /// (0..5u8).into_par_iter().collect_into_vec(&mut v);
    /// assert_eq!(v, [0, 1, 2, 3, 4]);
    /// ```
    fn collect_into_vec(self, target: &mut Vec<Self::Item>) {
        target.clear();
        collect::append_indexed(self, target);
    }

    /// Unzips the pairs into `left` and `right`, replacing what they held and reusing their
    /// buffers; both are written in place.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let (mut keys, mut squares) = (vec![9u32], Vec::new());
    /// (0..4u32).into_par_iter().map(|x| (x, x * x)).unzip_into_vecs(&mut keys, &mut squares);
    /// assert_eq!((keys, squares), (vec![0, 1, 2, 3], vec![0, 1, 4, 9]));
    /// ```
    fn unzip_into_vecs<A, B>(self, left: &mut Vec<A>, right: &mut Vec<B>)
    where
        Self: IndexedParallelIterator<Item = (A, B)>,
        A: Send,
        B: Send,
    {
        left.clear();
        right.clear();
        collect::append_unzipped(self.len(), self, left, right);
    }
}
