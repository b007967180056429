//! Cutting a slice into parts by a predicate: `par_split`, `par_split_inclusive` and
//! `par_chunk_by`, and their `_mut` forms.
//!
//! As for strings (see `string`), a piece of the split is a range of *positions*, cut anywhere
//! by index arithmetic; its items are the parts that start there. Each part has one start, so
//! it belongs to exactly one piece, in order, whatever the split. Whether a part starts at a
//! position takes one call of the predicate, and each position's call is made once: a split
//! at `mid` looks for the first part start at or after it (if a part starts before it), and
//! both halves keep what it found, the right half as its first part's start, the left as the
//! end of its last part. A piece scans only its own positions, from its first part's start.
//!
//! The `_mut` forms cannot hand out parts that way: finding a part's end reads the items
//! around it, while the consumer of the part before may be writing them. So they first find
//! every part's bounds in parallel over the shared slice, then cut the slice there and hand
//! the parts out.

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

    /// The first position in `from..to` (`0 < from`, `to <= positions`) that a part starts
    /// at, testing each position once, in order.
    #[doc(hidden)]
    fn next_start(&self, slice: &[T], from: usize, to: usize) -> Option<usize>;

    /// The end (exclusive) of a part whose next part starts at `next` (`positions` if none
    /// does).
    #[doc(hidden)]
    fn part_end(&self, next: usize) -> usize;
}

/// The first item in `items` that `separator` holds for, as a position after it: `from` for
/// the first item.
fn after_separator<T>(items: &[T], from: usize, separator: impl Fn(&T) -> bool) -> Option<usize> {
    items.iter().position(separator).map(|i| from + i)
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

    fn next_start(&self, slice: &[T], from: usize, to: usize) -> Option<usize> {
        // A part starts after each separator.
        after_separator(&slice[from - 1..to - 1], from, &self.separator)
    }

    fn part_end(&self, next: usize) -> usize {
        // The separator before the next part is left out.
        next - 1
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

    fn next_start(&self, slice: &[T], from: usize, to: usize) -> Option<usize> {
        after_separator(&slice[from - 1..to - 1], from, &self.separator)
    }

    fn part_end(&self, next: usize) -> usize {
        next
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

    fn next_start(&self, slice: &[T], from: usize, to: usize) -> Option<usize> {
        // A run starts at each item that is not the same as the one before it.
        slice[from - 1..to]
            .windows(2)
            .position(|pair| !(self.same)(&pair[0], &pair[1]))
            .map(|i| from + i)
    }

    fn part_end(&self, next: usize) -> usize {
        next
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
        callback.call(PartsPiece::whole(self.slice, &self.cut))
    }
}

/// The positions `start..end` of a slice, yielding the parts that start there.
struct PartsPiece<'data, 'c, T, C> {
    slice: &'data [T],
    cut: &'c C,
    start: usize,
    end: usize,
    /// Where the first part starting in the piece starts, if one does.
    first: Option<usize>,
    /// Where the first part starting at or after `end` starts (`positions` if none does):
    /// the piece's last part ends before it.
    next: usize,
}

impl<'data, 'c, T, C: SliceCut<T>> PartsPiece<'data, 'c, T, C> {
    /// All the positions of `slice`: a part starts at the first, if there is one.
    fn whole(slice: &'data [T], cut: &'c C) -> Self {
        let end = cut.positions(slice.len());
        PartsPiece {
            slice,
            cut,
            start: 0,
            end,
            first: (end > 0).then_some(0),
            next: end,
        }
    }
}

impl<T: Sync, C: SliceCut<T>> ParallelSource for PartsPiece<'_, '_, T, C> {
    fn par_len(&self) -> usize {
        self.end - self.start
    }

    fn par_split_at(self, index: usize) -> (Self, Self) {
        let mid = self.start + index;
        // The right half's first part: the piece's, if that starts there, else found by
        // testing the positions from `mid` (only if a part starts before `mid`, whose end
        // it is). Those positions are not tested again: the halves' scans start past them.
        let right_first = match self.first {
            Some(first) if first >= mid => Some(first),
            Some(_) if mid < self.end => self.cut.next_start(self.slice, mid, self.end),
            _ => None,
        };
        (
            PartsPiece {
                end: mid,
                first: self.first.filter(|&first| first < mid),
                next: right_first.unwrap_or(self.next),
                ..self
            },
            PartsPiece {
                start: mid,
                first: right_first,
                ..self
            },
        )
    }
}

impl<'data, 'c, T, C: SliceCut<T>> PartsPiece<'data, 'c, T, C> {
    /// The bounds of the parts that start in the piece.
    fn bounds(self) -> PartBounds<'data, 'c, T, C> {
        PartBounds {
            slice: self.slice,
            cut: self.cut,
            start: self.first,
            limit: self.end,
            after: self.next,
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
    start: Option<usize>,
    limit: usize,
    /// Where the first part at or after `limit` starts.
    after: usize,
}

impl<T, C: SliceCut<T>> Iterator for PartBounds<'_, '_, T, C> {
    type Item = Range<usize>;

    fn next(&mut self) -> Option<Range<usize>> {
        let start = self.start?;
        self.start = if start + 1 < self.limit {
            self.cut.next_start(self.slice, start + 1, self.limit)
        } else {
            None
        };
        let next = self.start.unwrap_or(self.after);
        Some(start..self.cut.part_end(next))
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
        callback.call(BoundsPiece(PartsPiece::whole(self.slice, self.cut)))
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
