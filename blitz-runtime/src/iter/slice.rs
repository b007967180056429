//! Parallel operations on slices: the traits with `par_chunks` and its kin (their iterators
//! are here and in `slice_pieces`), and the parallel sorts.

use std::cmp::Ordering;

use super::slice_pieces::{
    ParArrayWindows, ParChunksExact, ParChunksExactMut, ParRChunks, ParRChunksExact,
    ParRChunksExactMut, ParRChunksMut, ParWindows,
};
use super::slice_split::{ChunkByCut, SliceParts, SlicePartsMut, SplitCut, SplitInclusiveCut};
use super::{IndexedParallelIterator, ParallelIterator, ProducerCallback};
use crate::loops::{ChunksMutSource, ChunksSource, ParallelSource, chunks, chunks_mut};

/// Parallel operations on shared slices (`par_chunks`), as rayon's `ParallelSlice`.
/// (`par_iter` comes from [`IntoParallelRefIterator`](super::IntoParallelRefIterator).)
///
/// ```
/// use blitz::prelude::*;
/// let v: Vec<u32> = (1..=6).collect();
/// let pair_sums: Vec<u32> = v.par_chunks(2).map(|c| c.iter().sum()).collect();
/// assert_eq!(pair_sums, [3, 7, 11]);
/// assert_eq!(v.par_windows(3).count(), 4);
/// ```
pub trait ParallelSlice<T: Sync> {
    /// The slice, for the provided methods (implementors return themselves).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v = vec![1, 2, 3];
    /// assert_eq!(v.as_parallel_slice(), &[1, 2, 3]);
    /// ```
    fn as_parallel_slice(&self) -> &[T];

    /// A parallel iterator over chunks of `chunk_size` items (the last may be shorter).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v: Vec<u32> = (0..10).collect();
    /// let sums: Vec<u32> = v.par_chunks(4).map(|c| c.iter().sum()).collect();
    /// assert_eq!(sums, [6, 22, 17]);
    /// ```
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    fn par_chunks(&self, chunk_size: usize) -> ParChunks<'_, T> {
        ParChunks {
            source: chunks(self.as_parallel_slice(), chunk_size),
        }
    }

    /// A parallel iterator over every window of `size` consecutive items, as
    /// [`slice::windows`].
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v = [1, 4, 9, 16];
    /// let steps: Vec<i32> = v.par_windows(2).map(|w| w[1] - w[0]).collect();
    /// assert_eq!(steps, [3, 5, 7]);
    /// ```
    ///
    /// # Panics
    ///
    /// If `size` is 0.
    fn par_windows(&self, size: usize) -> ParWindows<'_, T> {
        ParWindows::new(self.as_parallel_slice(), size)
    }

    /// A parallel iterator over every window of `N` consecutive items, as arrays (the
    /// windows of [`par_windows`](ParallelSlice::par_windows)).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v = [1, 4, 9, 16];
    /// let steps: Vec<i32> = v.par_array_windows().map(|[a, b]| b - a).collect();
    /// assert_eq!(steps, [3, 5, 7]);
    /// ```
    ///
    /// # Panics
    ///
    /// If `N` is 0.
    fn par_array_windows<const N: usize>(&self) -> ParArrayWindows<'_, T, N> {
        ParArrayWindows::new(self.as_parallel_slice())
    }

    /// A parallel iterator over chunks of exactly `chunk_size` items; the items left over at
    /// the end are not in any chunk (see [`ParChunksExact::remainder`]).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v = [1, 2, 3, 4, 5];
    /// let chunks = v.par_chunks_exact(2);
    /// assert_eq!(chunks.remainder(), [5]);
    /// assert_eq!(chunks.map(|c| c[0] * c[1]).sum::<i32>(), 2 + 12);
    /// ```
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    fn par_chunks_exact(&self, chunk_size: usize) -> ParChunksExact<'_, T> {
        ParChunksExact::new(self.as_parallel_slice(), chunk_size)
    }

    /// A parallel iterator over chunks of `chunk_size` items counted from the end (the last
    /// chunk, at the slice's start, may be shorter), as [`slice::rchunks`].
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v = [1, 2, 3, 4, 5];
    /// let chunks: Vec<&[i32]> = v.par_rchunks(2).collect();
    /// assert_eq!(chunks, [&[4, 5][..], &[2, 3], &[1]]);
    /// ```
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    fn par_rchunks(&self, chunk_size: usize) -> ParRChunks<'_, T> {
        ParRChunks::new(self.as_parallel_slice(), chunk_size)
    }

    /// A parallel iterator over chunks of exactly `chunk_size` items counted from the end; the
    /// items left over at the start are in no chunk (see [`ParRChunksExact::remainder`]), as
    /// [`slice::rchunks_exact`].
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v = [1, 2, 3, 4, 5];
    /// let chunks = v.par_rchunks_exact(2);
    /// assert_eq!(chunks.remainder(), [1]);
    /// assert_eq!(chunks.collect::<Vec<_>>(), [&[4, 5][..], &[2, 3]]);
    /// ```
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    fn par_rchunks_exact(&self, chunk_size: usize) -> ParRChunksExact<'_, T> {
        ParRChunksExact::new(self.as_parallel_slice(), chunk_size)
    }

    /// A parallel iterator over the parts between the items `separator` holds for (which are
    /// left out), as [`slice::split`]: a separator at either end or two in a row give an empty
    /// part.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v = [1, 0, 2, 3, 0, 0, 4];
    /// let parts: Vec<&[i32]> = v.par_split(|&x| x == 0).collect();
    /// assert_eq!(parts, [&[1][..], &[2, 3], &[], &[4]]);
    /// ```
    fn par_split<P>(&self, separator: P) -> SliceParts<'_, T, SplitCut<P>>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        SliceParts::new(self.as_parallel_slice(), SplitCut::new(separator))
    }

    /// A parallel iterator over the parts that each end with an item `separator` holds for,
    /// and a last part without one, as [`slice::split_inclusive`].
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v = [1, 0, 2, 3, 0, 4];
    /// let parts: Vec<&[i32]> = v.par_split_inclusive(|&x| x == 0).collect();
    /// assert_eq!(parts, [&[1, 0][..], &[2, 3, 0], &[4]]);
    /// ```
    fn par_split_inclusive<P>(&self, separator: P) -> SliceParts<'_, T, SplitInclusiveCut<P>>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        SliceParts::new(self.as_parallel_slice(), SplitInclusiveCut::new(separator))
    }

    /// A parallel iterator over the runs of items in which `same` holds for every item and the
    /// one after it, as [`slice::chunk_by`].
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v = [1, 1, 2, 3, 3, 3];
    /// let runs: Vec<&[i32]> = v.par_chunk_by(|a, b| a == b).collect();
    /// assert_eq!(runs, [&[1, 1][..], &[2], &[3, 3, 3]]);
    /// ```
    fn par_chunk_by<P>(&self, same: P) -> SliceParts<'_, T, ChunkByCut<P>>
    where
        P: Fn(&T, &T) -> bool + Sync + Send,
    {
        SliceParts::new(self.as_parallel_slice(), ChunkByCut::new(same))
    }
}

impl<T: Sync> ParallelSlice<T> for [T] {
    fn as_parallel_slice(&self) -> &[T] {
        self
    }
}

/// Parallel operations on mutable slices (`par_chunks_mut` and the sorts), as rayon's
/// `ParallelSliceMut`.
///
/// ```
/// use blitz::prelude::*;
/// let mut v = vec![5u32, 3, 9, 1, 7, 2];
/// v.par_chunks_mut(2).for_each(|c| c.reverse());
/// assert_eq!(v, [3, 5, 1, 9, 2, 7]);
/// v.par_sort_unstable();
/// assert_eq!(v, [1, 2, 3, 5, 7, 9]);
/// ```
pub trait ParallelSliceMut<T: Send> {
    /// The slice, for the provided methods (implementors return themselves).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let mut v = vec![1, 2, 3];
    /// v.as_parallel_slice_mut()[0] = 10;
    /// assert_eq!(v, [10, 2, 3]);
    /// ```
    fn as_parallel_slice_mut(&mut self) -> &mut [T];

    /// A parallel iterator over mutable chunks of `chunk_size` items (the last may be
    /// shorter).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let mut v = vec![0u32; 10];
    /// v.par_chunks_mut(4).enumerate().for_each(|(i, c)| c.fill(i as u32));
    /// assert_eq!(v, [0, 0, 0, 0, 1, 1, 1, 1, 2, 2]);
    /// ```
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    fn par_chunks_mut(&mut self, chunk_size: usize) -> ParChunksMut<'_, T> {
        ParChunksMut {
            source: chunks_mut(self.as_parallel_slice_mut(), chunk_size),
        }
    }

    /// A parallel iterator over mutable chunks of exactly `chunk_size` items; the items left
    /// over at the end are not in any chunk (see [`ParChunksExactMut::into_remainder`]).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let mut v = [1, 2, 3, 4, 5];
    /// v.par_chunks_exact_mut(2).for_each(|c| c.swap(0, 1));
    /// assert_eq!(v, [2, 1, 4, 3, 5]);
    /// ```
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    fn par_chunks_exact_mut(&mut self, chunk_size: usize) -> ParChunksExactMut<'_, T> {
        ParChunksExactMut::new(self.as_parallel_slice_mut(), chunk_size)
    }

    /// A parallel iterator over mutable chunks of exactly `chunk_size` items counted from the
    /// end; the items left over at the start are in no chunk (see
    /// [`ParRChunksExactMut::into_remainder`]), as [`slice::rchunks_exact_mut`].
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let mut v = [0; 5];
    /// v.par_rchunks_exact_mut(2).enumerate().for_each(|(i, c)| c.fill(i + 1));
    /// assert_eq!(v, [0, 2, 2, 1, 1]);
    /// ```
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    fn par_rchunks_exact_mut(&mut self, chunk_size: usize) -> ParRChunksExactMut<'_, T> {
        ParRChunksExactMut::new(self.as_parallel_slice_mut(), chunk_size)
    }

    /// Like [`par_split`](ParallelSlice::par_split), with the parts mutable. The parts'
    /// bounds are found first, in parallel over the slice shared, so the items must be `Sync`
    /// too.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let mut v = [3, 1, 0, 5, 4, 0, 2];
    /// v.par_split_mut(|&x| x == 0).for_each(|part| part.sort());
    /// assert_eq!(v, [1, 3, 0, 4, 5, 0, 2]);
    /// ```
    fn par_split_mut<P>(&mut self, separator: P) -> SlicePartsMut<'_, T, SplitCut<P>>
    where
        P: Fn(&T) -> bool + Sync + Send,
        T: Sync,
    {
        SlicePartsMut::new(self.as_parallel_slice_mut(), SplitCut::new(separator))
    }

    /// Like [`par_split_inclusive`](ParallelSlice::par_split_inclusive), with the parts
    /// mutable (the items must be `Sync` too, see [`par_split_mut`](Self::par_split_mut)).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let mut v = [3, 1, 0, 5, 4, 0];
    /// v.par_split_inclusive_mut(|&x| x == 0).for_each(|part| part.reverse());
    /// assert_eq!(v, [0, 1, 3, 0, 4, 5]);
    /// ```
    fn par_split_inclusive_mut<P>(
        &mut self,
        separator: P,
    ) -> SlicePartsMut<'_, T, SplitInclusiveCut<P>>
    where
        P: Fn(&T) -> bool + Sync + Send,
        T: Sync,
    {
        SlicePartsMut::new(
            self.as_parallel_slice_mut(),
            SplitInclusiveCut::new(separator),
        )
    }

    /// Like [`par_chunk_by`](ParallelSlice::par_chunk_by), with the runs mutable (the items
    /// must be `Sync` too, see [`par_split_mut`](Self::par_split_mut)).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let mut v = [1, 2, 3, 1, 2, 0];
    /// v.par_chunk_by_mut(|a, b| a < b).for_each(|run| run.reverse());
    /// assert_eq!(v, [3, 2, 1, 2, 1, 0]);
    /// ```
    fn par_chunk_by_mut<P>(&mut self, same: P) -> SlicePartsMut<'_, T, ChunkByCut<P>>
    where
        P: Fn(&T, &T) -> bool + Sync + Send,
        T: Sync,
    {
        SlicePartsMut::new(self.as_parallel_slice_mut(), ChunkByCut::new(same))
    }

    /// A parallel iterator over mutable chunks of `chunk_size` items counted from the end,
    /// as [`slice::rchunks_mut`].
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let mut v = [0; 5];
    /// v.par_rchunks_mut(2).enumerate().for_each(|(i, c)| c.fill(i));
    /// assert_eq!(v, [2, 1, 1, 0, 0]);
    /// ```
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    fn par_rchunks_mut(&mut self, chunk_size: usize) -> ParRChunksMut<'_, T> {
        ParRChunksMut::new(self.as_parallel_slice_mut(), chunk_size)
    }

    /// Sorts the slice in parallel, stably (equal items keep their order).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let mut v = vec![5, 1, 4, 2, 3];
    /// v.par_sort();
    /// assert_eq!(v, [1, 2, 3, 4, 5]);
    /// ```
    fn par_sort(&mut self)
    where
        T: Ord,
    {
        crate::sort::par_sort_by(self.as_parallel_slice_mut(), T::cmp);
    }

    /// Sorts the slice in parallel with `compare`, stably. If `compare` panics the slice
    /// holds a permutation of its items; if it is not a total order, the order is unspecified
    /// (still a permutation).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let mut v = vec![(1, 'b'), (0, 'z'), (1, 'a')];
    /// v.par_sort_by(|x, y| x.0.cmp(&y.0));
    /// assert_eq!(v, [(0, 'z'), (1, 'b'), (1, 'a')]);
    /// ```
    fn par_sort_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        crate::sort::par_sort_by(self.as_parallel_slice_mut(), compare);
    }

    /// Sorts the slice in parallel by `key`, stably (the key is computed at every comparison;
    /// see [`par_sort_by_cached_key`](Self::par_sort_by_cached_key) for expensive keys).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let mut v = vec![-3i32, 1, -2];
    /// v.par_sort_by_key(|x| x.abs());
    /// assert_eq!(v, [1, -2, -3]);
    /// ```
    fn par_sort_by_key<K, F>(&mut self, key: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        crate::sort::par_sort_by(self.as_parallel_slice_mut(), |a, b| key(a).cmp(&key(b)));
    }

    /// Sorts the slice in parallel by `key`, stably, computing each item's key once.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let mut v = vec![100u32, 5, 20];
    /// v.par_sort_by_cached_key(|x| x.to_string());
    /// assert_eq!(v, [100, 20, 5]);
    /// ```
    fn par_sort_by_cached_key<K, F>(&mut self, key: F)
    where
        K: Ord + Send,
        F: Fn(&T) -> K + Sync,
    {
        crate::sort::par_sort_by_cached_key(self.as_parallel_slice_mut(), key);
    }

    /// Sorts the slice in parallel, not necessarily keeping equal items in order (faster, and
    /// no scratch memory).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let mut v = vec![5u64, 1, 4, 2, 3];
    /// v.par_sort_unstable();
    /// assert_eq!(v, [1, 2, 3, 4, 5]);
    /// ```
    fn par_sort_unstable(&mut self)
    where
        T: Ord,
    {
        crate::sort::par_sort_unstable_by(self.as_parallel_slice_mut(), T::cmp);
    }

    /// Sorts the slice in parallel with `compare`, not necessarily keeping equal items in
    /// order. Panicking or inconsistent comparators leave a permutation, as for
    /// [`par_sort_by`](Self::par_sort_by).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let mut v = vec![1.5f64, -0.5, 3.0];
    /// v.par_sort_unstable_by(|a, b| b.total_cmp(a));
    /// assert_eq!(v, [3.0, 1.5, -0.5]);
    /// ```
    fn par_sort_unstable_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        crate::sort::par_sort_unstable_by(self.as_parallel_slice_mut(), compare);
    }

    /// Sorts the slice in parallel by `key`, not necessarily keeping equal items in order.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let mut v = vec!["ccc", "a", "bb"];
    /// v.par_sort_unstable_by_key(|s| s.len());
    /// assert_eq!(v, ["a", "bb", "ccc"]);
    /// ```
    fn par_sort_unstable_by_key<K, F>(&mut self, key: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        crate::sort::par_sort_unstable_by(self.as_parallel_slice_mut(), |a, b| key(a).cmp(&key(b)));
    }
}

impl<T: Send> ParallelSliceMut<T> for [T] {
    fn as_parallel_slice_mut(&mut self) -> &mut [T] {
        self
    }
}

/// The iterator of [`ParallelSlice::par_chunks`].
#[derive(Debug, Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct ParChunks<'data, T> {
    source: ChunksSource<'data, T>,
}

impl<'data, T: Sync> ParallelIterator for ParChunks<'data, T> {
    type Item = &'data [T];

    fn with_producer<CB: ProducerCallback<&'data [T]>>(self, callback: CB) -> CB::Output {
        callback.call(self.source)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.source.par_len())
    }
}

impl<T: Sync> IndexedParallelIterator for ParChunks<'_, T> {
    fn len(&self) -> usize {
        self.source.par_len()
    }
}

/// The iterator of [`ParallelSliceMut::par_chunks_mut`].
#[derive(Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct ParChunksMut<'data, T> {
    source: ChunksMutSource<'data, T>,
}

impl<'data, T: Send> ParallelIterator for ParChunksMut<'data, T> {
    type Item = &'data mut [T];

    fn with_producer<CB: ProducerCallback<&'data mut [T]>>(self, callback: CB) -> CB::Output {
        callback.call(self.source)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.source.par_len())
    }
}

impl<T: Send> IndexedParallelIterator for ParChunksMut<'_, T> {
    fn len(&self) -> usize {
        self.source.par_len()
    }
}
