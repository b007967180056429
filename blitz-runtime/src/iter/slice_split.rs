//! Cutting a slice into parts by a predicate: `par_split`, `par_split_inclusive` and
//! `par_chunk_by`, and their `_mut` forms.
//!
//! As for strings (see `string`), a piece of the split is a range of *positions*, cut anywhere
//! by index arithmetic; its items are the parts that start there. Each part has one start, so
//! it belongs to exactly one piece, in order, whatever the split. A piece scans no further than
//! its own end for its first part.
//!
//! The `_mut` forms cannot hand out parts that way: a piece reads the items before its first
//! part to find where it starts, and those may lie in the last part of the piece before it,
//! which that piece's consumer may be writing. So they first find every part's bounds in
//! parallel over the shared slice, then cut the slice there and hand the parts out.

use std::ops::Range;

use super::adaptors::debug_without_closures;
use super::{IntoParallelIterator, ParallelIterator, ProducerCallback};
use crate::loops::ParallelSource;

/// Where the parts of one way of cutting a slice start and end. Implemented by the marker types
/// of [`ParallelSlice`](super::ParallelSlice)'s cutting methods.
pub trait SliceCut<T>: Sync + Send {
    /// How many positions a part can start at, in a slice of `len` items.
    #[doc(hidden)]
    fn positions(&self, len: usize) -> usize;

    /// Whether a part starts at position `index` (`0 < index < positions`).
    #[doc(hidden)]
    fn starts_at(&self, slice: &[T], index: usize) -> bool;

    /// The end (exclusive) of the part starting at `start`, and where the next part starts
    /// (`positions` if none does).
    #[doc(hidden)]
    fn part(&self, slice: &[T], start: usize) -> (usize, usize);
}

/// Marker of `par_split`: parts between the items `separator` holds for, which are left out; a
/// separator at either end has an empty part beyond it.
#[derive(Clone, Copy)]
pub struct SplitCut<P> {
    separator: P,
}

debug_without_closures!(SplitCut<P> {  } where );

impl<T, P: Fn(&T) -> bool + Sync + Send> SliceCut<T> for SplitCut<P> {
    fn positions(&self, len: usize) -> usize {
        len + 1
    }

    fn starts_at(&self, slice: &[T], index: usize) -> bool {
        (self.separator)(&slice[index - 1])
    }

    fn part(&self, slice: &[T], start: usize) -> (usize, usize) {
        match slice[start..].iter().position(&self.separator) {
            Some(offset) => (start + offset, start + offset + 1),
            None => (slice.len(), slice.len() + 1),
        }
    }
}

/// Marker of `par_split_inclusive`: parts that end with an item `separator` holds for, and a
/// last part without one unless the slice ends with a separator.
#[derive(Clone, Copy)]
pub struct SplitInclusiveCut<P> {
    separator: P,
}

debug_without_closures!(SplitInclusiveCut<P> {  } where );

impl<T, P: Fn(&T) -> bool + Sync + Send> SliceCut<T> for SplitInclusiveCut<P> {
    fn positions(&self, len: usize) -> usize {
        len
    }

    fn starts_at(&self, slice: &[T], index: usize) -> bool {
        (self.separator)(&slice[index - 1])
    }

    fn part(&self, slice: &[T], start: usize) -> (usize, usize) {
        let end = match slice[start..].iter().position(&self.separator) {
            Some(offset) => start + offset + 1,
            None => slice.len(),
        };
        (end, end)
    }
}

/// Marker of `par_chunk_by`: runs of items where `same(a, b)` holds for each item `a` and the
/// one after it, `b`.
#[derive(Clone, Copy)]
pub struct ChunkByCut<P> {
    same: P,
}

debug_without_closures!(ChunkByCut<P> {  } where );

impl<T, P: Fn(&T, &T) -> bool + Sync + Send> SliceCut<T> for ChunkByCut<P> {
    fn positions(&self, len: usize) -> usize {
        len
    }

    fn starts_at(&self, slice: &[T], index: usize) -> bool {
        !(self.same)(&slice[index - 1], &slice[index])
    }

    fn part(&self, slice: &[T], start: usize) -> (usize, usize) {
        let end = match slice[start..]
            .windows(2)
            .position(|pair| !(self.same)(&pair[0], &pair[1]))
        {
            Some(offset) => start + offset + 1,
            None => slice.len(),
        };
        (end, end)
    }
}

impl<P> SplitCut<P> {
    pub(super) fn new(separator: P) -> Self {
        SplitCut { separator }
    }
}

impl<P> SplitInclusiveCut<P> {
    pub(super) fn new(separator: P) -> Self {
        SplitInclusiveCut { separator }
    }
}

impl<P> ChunkByCut<P> {
    pub(super) fn new(same: P) -> Self {
        ChunkByCut { same }
    }
}

/// The iterator of `par_split`, `par_split_inclusive` and `par_chunk_by`: the parts of a slice.
#[derive(Debug, Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct SliceParts<'data, T, C> {
    slice: &'data [T],
    cut: C,
}

impl<'data, T, C> SliceParts<'data, T, C> {
    pub(super) fn new(slice: &'data [T], cut: C) -> Self {
        SliceParts { slice, cut }
    }
}

impl<'data, T: Sync, C: SliceCut<T>> ParallelIterator for SliceParts<'data, T, C> {
    type Item = &'data [T];

    fn with_producer<CB: ProducerCallback<&'data [T]>>(self, callback: CB) -> CB::Output {
        let end = self.cut.positions(self.slice.len());
        callback.call(PartsPiece {
            slice: self.slice,
            cut: &self.cut,
            start: 0,
            end,
        })
    }
}

/// The positions `start..end` of a slice, yielding the parts that start there.
struct PartsPiece<'data, 'c, T, C> {
    slice: &'data [T],
    cut: &'c C,
    start: usize,
    end: usize,
}

impl<T: Sync, C: SliceCut<T>> ParallelSource for PartsPiece<'_, '_, T, C> {
    fn par_len(&self) -> usize {
        self.end - self.start
    }

    fn par_split_at(self, index: usize) -> (Self, Self) {
        let mid = self.start + index;
        (
            PartsPiece { end: mid, ..self },
            PartsPiece { start: mid, ..self },
        )
    }
}

impl<'data, 'c, T, C: SliceCut<T>> PartsPiece<'data, 'c, T, C> {
    /// The bounds of the parts that start in the piece.
    fn bounds(self) -> PartBounds<'data, 'c, T, C> {
        let first = if self.start == 0 {
            Some(0)
        } else {
            (self.start..self.end).find(|&index| self.cut.starts_at(self.slice, index))
        };
        PartBounds {
            slice: self.slice,
            cut: self.cut,
            next: first.filter(|&start| start < self.end),
            limit: self.end,
        }
    }
}

impl<'data, 'c, T, C: SliceCut<T>> IntoIterator for PartsPiece<'data, 'c, T, C> {
    type Item = &'data [T];
    type IntoIter = PartSlices<'data, 'c, T, C>;

    fn into_iter(self) -> Self::IntoIter {
        PartSlices(self.bounds())
    }
}

/// The bounds of the parts starting before `limit`, in order.
struct PartBounds<'data, 'c, T, C> {
    slice: &'data [T],
    cut: &'c C,
    /// The start of the next part, if it is to be yielded (below `limit`).
    next: Option<usize>,
    limit: usize,
}

impl<T, C: SliceCut<T>> Iterator for PartBounds<'_, '_, T, C> {
    type Item = Range<usize>;

    fn next(&mut self) -> Option<Range<usize>> {
        let start = self.next?;
        let (end, next) = self.cut.part(self.slice, start);
        self.next = Some(next).filter(|&next| next < self.limit);
        Some(start..end)
    }
}

/// The sequential side of [`SliceParts`]: the parts starting in a piece.
struct PartSlices<'data, 'c, T, C>(PartBounds<'data, 'c, T, C>);

impl<'data, T, C: SliceCut<T>> Iterator for PartSlices<'data, '_, T, C> {
    type Item = &'data [T];

    fn next(&mut self) -> Option<&'data [T]> {
        let bounds = self.0.next()?;
        Some(&self.0.slice[bounds])
    }
}

/// A piece yielding the parts' bounds instead of the parts (for the `_mut` forms).
struct BoundsPiece<'data, 'c, T, C>(PartsPiece<'data, 'c, T, C>);

impl<T: Sync, C: SliceCut<T>> ParallelSource for BoundsPiece<'_, '_, T, C> {
    fn par_len(&self) -> usize {
        self.0.par_len()
    }

    fn par_split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.0.par_split_at(index);
        (BoundsPiece(left), BoundsPiece(right))
    }
}

impl<'data, 'c, T, C: SliceCut<T>> IntoIterator for BoundsPiece<'data, 'c, T, C> {
    type Item = Range<usize>;
    type IntoIter = PartBounds<'data, 'c, T, C>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.bounds()
    }
}

/// The bounds of a slice's parts, as a parallel iterator.
struct AllBounds<'data, 'c, T, C> {
    slice: &'data [T],
    cut: &'c C,
}

impl<T: Sync, C: SliceCut<T>> ParallelIterator for AllBounds<'_, '_, T, C> {
    type Item = Range<usize>;

    fn with_producer<CB: ProducerCallback<Range<usize>>>(self, callback: CB) -> CB::Output {
        let end = self.cut.positions(self.slice.len());
        callback.call(BoundsPiece(PartsPiece {
            slice: self.slice,
            cut: self.cut,
            start: 0,
            end,
        }))
    }
}

/// The iterator of `par_split_mut`, `par_split_inclusive_mut` and `par_chunk_by_mut`: the parts
/// of a mutable slice (see the module docs for how they are found).
#[derive(Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct SlicePartsMut<'data, T, C> {
    slice: &'data mut [T],
    cut: C,
}

impl<'data, T, C> SlicePartsMut<'data, T, C> {
    pub(super) fn new(slice: &'data mut [T], cut: C) -> Self {
        SlicePartsMut { slice, cut }
    }
}

impl<'data, T: Send + Sync, C: SliceCut<T>> ParallelIterator for SlicePartsMut<'data, T, C> {
    type Item = &'data mut [T];

    fn with_producer<CB: ProducerCallback<&'data mut [T]>>(self, callback: CB) -> CB::Output {
        let SlicePartsMut { slice, cut } = self;
        // The parts' bounds, found in parallel over the slice shared.
        let bounds: Vec<Range<usize>> = AllBounds {
            slice: &*slice,
            cut: &cut,
        }
        .collect();
        // Cut there, in order: the parts are disjoint and increasing.
        let mut parts = Vec::with_capacity(bounds.len());
        let mut rest = slice;
        let mut offset = 0;
        for Range { start, end } in bounds {
            let (_, tail) = rest.split_at_mut(start - offset);
            let (part, tail) = tail.split_at_mut(end - start);
            parts.push(part);
            rest = tail;
            offset = end;
        }
        parts.into_par_iter().with_producer(callback)
    }
}
