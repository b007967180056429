//! The [`IndexedParallelIterator`] trait: the operations that need one item per index.

use super::{
    Chunks, Enumerate, Interleave, InterleaveShortest, IntoParallelIterator, ParallelIterator,
    Positions, Rev, Skip, StepBy, Take, Zip, collect, consumers,
};

/// A parallel iterator that yields exactly one item per index of its source, so that it knows
/// its length, can be zipped and enumerated, searched by position, and collected in place.
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
    /// ```
    /// use blitz::prelude::*;
    /// let v: Vec<u32> = (0..10u32).into_par_iter().skip(7).collect();
    /// assert_eq!(v, [7, 8, 9]);
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
}
