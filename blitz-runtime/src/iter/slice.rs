//! Parallel operations on slices: `par_chunks`, `par_chunks_mut`, and the parallel sorts.

use super::{IndexedParallelIterator, ParallelIterator, ProducerCallback};
use crate::loops::{ChunksMutSource, ChunksSource, ParallelSource, chunks, chunks_mut};

/// Parallel operations on shared slices (`par_chunks`), as rayon's `ParallelSlice`.
/// (`par_iter` comes from [`IntoParallelRefIterator`](super::IntoParallelRefIterator).)
pub trait ParallelSlice<T: Sync> {
    /// The slice.
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
}

impl<T: Sync> ParallelSlice<T> for [T] {
    fn as_parallel_slice(&self) -> &[T] {
        self
    }
}

/// Parallel operations on mutable slices (`par_chunks_mut` and the sorts), as rayon's
/// `ParallelSliceMut`.
pub trait ParallelSliceMut<T: Send> {
    /// The slice.
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
