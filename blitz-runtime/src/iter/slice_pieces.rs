//! More ways to cut a slice into pieces: `par_windows`, `par_chunks_exact(_mut)`,
//! `par_rchunks(_mut)`, `par_rchunks_exact(_mut)`. Each type but the last two is both the
//! parallel iterator and its producer: a piece is a sub-slice, split by index arithmetic, and
//! runs as the matching `std` slice iterator; `par_rchunks_exact` is `par_rchunks` over the
//! slice without its remainder.

use std::slice;

use super::{IndexedParallelIterator, ParallelIterator, ProducerCallback};
use crate::loops::ParallelSource;

/// The `ParallelIterator` and `IndexedParallelIterator` impls of a type that is its own
/// producer.
macro_rules! own_producer {
    ($name:ident<T: $bound:ident> => $item:ty) => {
        impl<'data, T: $bound> ParallelIterator for $name<'data, T> {
            type Item = $item;

            fn with_producer<CB: ProducerCallback<$item>>(self, callback: CB) -> CB::Output {
                callback.call(self)
            }

            fn opt_len(&self) -> Option<usize> {
                Some(self.par_len())
            }
        }

        impl<'data, T: $bound> IndexedParallelIterator for $name<'data, T> {
            fn len(&self) -> usize {
                self.par_len()
            }
        }
    };
}

/// The iterator of [`ParallelSlice::par_windows`](super::ParallelSlice::par_windows).
#[derive(Debug, Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct ParWindows<'data, T> {
    slice: &'data [T],
    /// At least 1.
    size: usize,
}

impl<'data, T> ParWindows<'data, T> {
    pub(super) fn new(slice: &'data [T], size: usize) -> Self {
        assert!(size != 0, "par_windows: the window size must not be 0");
        ParWindows { slice, size }
    }
}

impl<T: Sync> ParallelSource for ParWindows<'_, T> {
    fn par_len(&self) -> usize {
        self.slice.len().saturating_sub(self.size - 1)
    }

    fn par_split_at(self, index: usize) -> (Self, Self) {
        // The first `index` windows end before `index + size - 1`; the rest start at `index`.
        let left_end = (index + self.size - 1).min(self.slice.len());
        let size = self.size;
        (
            ParWindows {
                slice: &self.slice[..left_end],
                size,
            },
            ParWindows {
                slice: &self.slice[index..],
                size,
            },
        )
    }
}

impl<'data, T> IntoIterator for ParWindows<'data, T> {
    type Item = &'data [T];
    type IntoIter = slice::Windows<'data, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.slice.windows(self.size)
    }
}

own_producer!(ParWindows<T: Sync> => &'data [T]);

/// The iterator of
/// [`ParallelSlice::par_array_windows`](super::ParallelSlice::par_array_windows): the windows
/// of [`ParWindows`], as arrays.
#[derive(Debug, Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct ParArrayWindows<'data, T, const N: usize> {
    windows: ParWindows<'data, T>,
}

impl<'data, T, const N: usize> ParArrayWindows<'data, T, N> {
    pub(super) fn new(slice: &'data [T]) -> Self {
        assert!(N != 0, "par_array_windows: the window size must not be 0");
        ParArrayWindows {
            windows: ParWindows { slice, size: N },
        }
    }
}

impl<T: Sync, const N: usize> ParallelSource for ParArrayWindows<'_, T, N> {
    fn par_len(&self) -> usize {
        self.windows.par_len()
    }

    fn par_split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.windows.par_split_at(index);
        (
            ParArrayWindows { windows: left },
            ParArrayWindows { windows: right },
        )
    }
}

/// A window of `N` items as an array.
fn as_array<T, const N: usize>(window: &[T]) -> &[T; N] {
    window.try_into().expect("a window of N items")
}

impl<'data, T, const N: usize> IntoIterator for ParArrayWindows<'data, T, N> {
    type Item = &'data [T; N];
    type IntoIter = std::iter::Map<slice::Windows<'data, T>, fn(&'data [T]) -> &'data [T; N]>;

    fn into_iter(self) -> Self::IntoIter {
        self.windows.into_iter().map(as_array::<T, N>)
    }
}

impl<'data, T: Sync, const N: usize> ParallelIterator for ParArrayWindows<'data, T, N> {
    type Item = &'data [T; N];

    fn with_producer<CB: ProducerCallback<&'data [T; N]>>(self, callback: CB) -> CB::Output {
        callback.call(self)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.par_len())
    }
}

impl<T: Sync, const N: usize> IndexedParallelIterator for ParArrayWindows<'_, T, N> {
    fn len(&self) -> usize {
        self.par_len()
    }
}

/// The iterator of [`ParallelSlice::par_chunks_exact`](super::ParallelSlice::par_chunks_exact).
#[derive(Debug, Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct ParChunksExact<'data, T> {
    /// A whole number of chunks.
    slice: &'data [T],
    size: usize,
    remainder: &'data [T],
}

impl<'data, T> ParChunksExact<'data, T> {
    pub(super) fn new(slice: &'data [T], size: usize) -> Self {
        assert!(size != 0, "par_chunks_exact: chunk_size must not be zero");
        let (slice, remainder) = slice.split_at(slice.len() / size * size);
        ParChunksExact {
            slice,
            size,
            remainder,
        }
    }

    /// The items at the end that do not fill a chunk (fewer than the chunk size).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v = [1, 2, 3, 4, 5];
    /// let chunks = v.par_chunks_exact(2);
    /// assert_eq!(chunks.remainder(), [5]);
    /// assert_eq!(chunks.map(|c| c[0] + c[1]).collect::<Vec<_>>(), [3, 7]);
    /// ```
    pub fn remainder(&self) -> &'data [T] {
        self.remainder
    }
}

impl<T: Sync> ParallelSource for ParChunksExact<'_, T> {
    fn par_len(&self) -> usize {
        self.slice.len() / self.size
    }

    fn par_split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.slice.split_at(index * self.size);
        let (size, remainder) = (self.size, self.remainder);
        (
            ParChunksExact {
                slice: left,
                size,
                remainder,
            },
            ParChunksExact {
                slice: right,
                size,
                remainder,
            },
        )
    }
}

impl<'data, T> IntoIterator for ParChunksExact<'data, T> {
    type Item = &'data [T];
    type IntoIter = slice::ChunksExact<'data, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.slice.chunks_exact(self.size)
    }
}

own_producer!(ParChunksExact<T: Sync> => &'data [T]);

/// The iterator of
/// [`ParallelSliceMut::par_chunks_exact_mut`](super::ParallelSliceMut::par_chunks_exact_mut).
#[derive(Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct ParChunksExactMut<'data, T> {
    /// A whole number of chunks.
    slice: &'data mut [T],
    size: usize,
    /// Kept by the right half of a split (the left one gets an empty slice).
    remainder: &'data mut [T],
}

impl<'data, T> ParChunksExactMut<'data, T> {
    pub(super) fn new(slice: &'data mut [T], size: usize) -> Self {
        assert!(
            size != 0,
            "par_chunks_exact_mut: chunk_size must not be zero"
        );
        let whole = slice.len() / size * size;
        let (slice, remainder) = slice.split_at_mut(whole);
        ParChunksExactMut {
            slice,
            size,
            remainder,
        }
    }

    /// The items at the end that do not fill a chunk (fewer than the chunk size).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let mut v = [1, 2, 3, 4, 5];
    /// let rest = v.par_chunks_exact_mut(2).into_remainder();
    /// rest[0] = 50;
    /// assert_eq!(v, [1, 2, 3, 4, 50]);
    /// ```
    pub fn into_remainder(self) -> &'data mut [T] {
        self.remainder
    }

    /// The items at the end that do not fill a chunk, borrowed from the iterator.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let mut v = [1, 2, 3, 4, 5];
    /// let mut chunks = v.par_chunks_exact_mut(2);
    /// chunks.remainder()[0] = 50;
    /// chunks.for_each(|c| c.swap(0, 1));
    /// assert_eq!(v, [2, 1, 4, 3, 50]);
    /// ```
    pub fn remainder(&mut self) -> &mut [T] {
        self.remainder
    }

    /// The items at the end that do not fill a chunk, taken out of the iterator (which
    /// keeps none).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let mut v = [1, 2, 3, 4, 5];
    /// let mut chunks = v.par_chunks_exact_mut(2);
    /// let rest = chunks.take_remainder();
    /// assert!(chunks.remainder().is_empty());
    /// chunks.for_each(|c| c[0] = 0);
    /// rest[0] = 50;
    /// assert_eq!(v, [0, 2, 0, 4, 50]);
    /// ```
    pub fn take_remainder(&mut self) -> &'data mut [T] {
        std::mem::take(&mut self.remainder)
    }
}

impl<T: Send> ParallelSource for ParChunksExactMut<'_, T> {
    fn par_len(&self) -> usize {
        self.slice.len() / self.size
    }

    fn par_split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.slice.split_at_mut(index * self.size);
        (
            ParChunksExactMut {
                slice: left,
                size: self.size,
                remainder: &mut [],
            },
            ParChunksExactMut {
                slice: right,
                size: self.size,
                remainder: self.remainder,
            },
        )
    }
}

impl<'data, T> IntoIterator for ParChunksExactMut<'data, T> {
    type Item = &'data mut [T];
    type IntoIter = slice::ChunksExactMut<'data, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.slice.chunks_exact_mut(self.size)
    }
}

own_producer!(ParChunksExactMut<T: Send> => &'data mut [T]);

/// The iterator of [`ParallelSlice::par_rchunks`](super::ParallelSlice::par_rchunks).
#[derive(Debug, Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct ParRChunks<'data, T> {
    slice: &'data [T],
    size: usize,
}

impl<'data, T> ParRChunks<'data, T> {
    pub(super) fn new(slice: &'data [T], size: usize) -> Self {
        assert!(size != 0, "par_rchunks: chunk_size must not be zero");
        ParRChunks { slice, size }
    }
}

impl<T: Sync> ParallelSource for ParRChunks<'_, T> {
    fn par_len(&self) -> usize {
        self.slice.len().div_ceil(self.size)
    }

    fn par_split_at(self, index: usize) -> (Self, Self) {
        // The first `index` chunks are the slice's last `index * size` items.
        let at = self
            .slice
            .len()
            .saturating_sub(index.saturating_mul(self.size));
        let (rest, first) = self.slice.split_at(at);
        let size = self.size;
        (
            ParRChunks { slice: first, size },
            ParRChunks { slice: rest, size },
        )
    }
}

impl<'data, T> IntoIterator for ParRChunks<'data, T> {
    type Item = &'data [T];
    type IntoIter = slice::RChunks<'data, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.slice.rchunks(self.size)
    }
}

own_producer!(ParRChunks<T: Sync> => &'data [T]);

/// The iterator of [`ParallelSliceMut::par_rchunks_mut`](super::ParallelSliceMut::par_rchunks_mut).
#[derive(Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct ParRChunksMut<'data, T> {
    slice: &'data mut [T],
    size: usize,
}

impl<'data, T> ParRChunksMut<'data, T> {
    pub(super) fn new(slice: &'data mut [T], size: usize) -> Self {
        assert!(size != 0, "par_rchunks_mut: chunk_size must not be zero");
        ParRChunksMut { slice, size }
    }
}

impl<T: Send> ParallelSource for ParRChunksMut<'_, T> {
    fn par_len(&self) -> usize {
        self.slice.len().div_ceil(self.size)
    }

    fn par_split_at(self, index: usize) -> (Self, Self) {
        let at = self
            .slice
            .len()
            .saturating_sub(index.saturating_mul(self.size));
        let (rest, first) = self.slice.split_at_mut(at);
        let size = self.size;
        (
            ParRChunksMut { slice: first, size },
            ParRChunksMut { slice: rest, size },
        )
    }
}

impl<'data, T> IntoIterator for ParRChunksMut<'data, T> {
    type Item = &'data mut [T];
    type IntoIter = slice::RChunksMut<'data, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.slice.rchunks_mut(self.size)
    }
}

own_producer!(ParRChunksMut<T: Send> => &'data mut [T]);

/// The iterator of
/// [`ParallelSlice::par_rchunks_exact`](super::ParallelSlice::par_rchunks_exact): the chunks
/// of `par_rchunks` over the slice without its first `len % size` items.
#[derive(Debug, Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct ParRChunksExact<'data, T> {
    chunks: ParRChunks<'data, T>,
    remainder: &'data [T],
}

impl<'data, T> ParRChunksExact<'data, T> {
    pub(super) fn new(slice: &'data [T], size: usize) -> Self {
        assert!(size != 0, "par_rchunks_exact: chunk_size must not be zero");
        let (remainder, whole) = slice.split_at(slice.len() % size);
        ParRChunksExact {
            chunks: ParRChunks::new(whole, size),
            remainder,
        }
    }

    /// The items at the start that do not fill a chunk (fewer than the chunk size).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v = [1, 2, 3, 4, 5];
    /// let chunks = v.par_rchunks_exact(2);
    /// assert_eq!(chunks.remainder(), [1]);
    /// assert_eq!(chunks.map(|c| c[0]).collect::<Vec<_>>(), [4, 2]);
    /// ```
    pub fn remainder(&self) -> &'data [T] {
        self.remainder
    }
}

impl<'data, T: Sync> ParallelIterator for ParRChunksExact<'data, T> {
    type Item = &'data [T];

    fn with_producer<CB: ProducerCallback<&'data [T]>>(self, callback: CB) -> CB::Output {
        callback.call(self.chunks)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.chunks.par_len())
    }
}

impl<T: Sync> IndexedParallelIterator for ParRChunksExact<'_, T> {
    fn len(&self) -> usize {
        self.chunks.par_len()
    }
}

/// The iterator of
/// [`ParallelSliceMut::par_rchunks_exact_mut`](super::ParallelSliceMut::par_rchunks_exact_mut).
#[derive(Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct ParRChunksExactMut<'data, T> {
    chunks: ParRChunksMut<'data, T>,
    remainder: &'data mut [T],
}

impl<'data, T> ParRChunksExactMut<'data, T> {
    pub(super) fn new(slice: &'data mut [T], size: usize) -> Self {
        assert!(
            size != 0,
            "par_rchunks_exact_mut: chunk_size must not be zero"
        );
        let (remainder, whole) = slice.split_at_mut(slice.len() % size);
        ParRChunksExactMut {
            chunks: ParRChunksMut::new(whole, size),
            remainder,
        }
    }

    /// The items at the start that do not fill a chunk (fewer than the chunk size).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let mut v = [1, 2, 3, 4, 5];
    /// v.par_rchunks_exact_mut(2).into_remainder()[0] = 10;
    /// assert_eq!(v, [10, 2, 3, 4, 5]);
    /// ```
    pub fn into_remainder(self) -> &'data mut [T] {
        self.remainder
    }

    /// The items at the start that do not fill a chunk, borrowed from the iterator.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let mut v = [1, 2, 3, 4, 5];
    /// let mut chunks = v.par_rchunks_exact_mut(2);
    /// chunks.remainder()[0] = 10;
    /// chunks.for_each(|c| c.swap(0, 1));
    /// assert_eq!(v, [10, 3, 2, 5, 4]);
    /// ```
    pub fn remainder(&mut self) -> &mut [T] {
        self.remainder
    }

    /// The items at the start that do not fill a chunk, taken out of the iterator (which
    /// keeps none).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let mut v = [1, 2, 3, 4, 5];
    /// let mut chunks = v.par_rchunks_exact_mut(2);
    /// let rest = chunks.take_remainder();
    /// assert!(chunks.remainder().is_empty());
    /// chunks.for_each(|c| c[1] = 0);
    /// rest[0] = 10;
    /// assert_eq!(v, [10, 2, 0, 4, 0]);
    /// ```
    pub fn take_remainder(&mut self) -> &'data mut [T] {
        std::mem::take(&mut self.remainder)
    }
}

impl<'data, T: Send> ParallelIterator for ParRChunksExactMut<'data, T> {
    type Item = &'data mut [T];

    fn with_producer<CB: ProducerCallback<&'data mut [T]>>(self, callback: CB) -> CB::Output {
        callback.call(self.chunks)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.chunks.par_len())
    }
}

impl<T: Send> IndexedParallelIterator for ParRChunksExactMut<'_, T> {
    fn len(&self) -> usize {
        self.chunks.par_len()
    }
}
