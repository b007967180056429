//! The built-in parallel loop sources: integer ranges (`a..b`, `a..=b`), slices and vectors
//! (shared and mutable), chunked slices and enumerated slices.
//!
//! Every source iterates with the standard library's own iterator (`Range`, `slice::Iter`,
//! `slice::Chunks`, a `Range<usize>` zipped with a slice iterator, ...), so a leaf's `for` loop
//! is exactly the loop one would write sequentially.

use std::iter::Zip;
use std::ops::{Range, RangeInclusive};
use std::slice;

use super::{IntoParallelSource, ParallelSource};

macro_rules! range_sources {
    ($($t:ty),*) => {$(
        impl ParallelSource for Range<$t> {
            fn par_len(&self) -> usize {
                if self.end <= self.start {
                    return 0;
                }
                // The distance fits in the type's unsigned twin; saturate where that exceeds
                // usize (only 128-bit ranges): such a range cannot be iterated to the end anyway.
                let distance = self.end.abs_diff(self.start);
                usize::try_from(distance).unwrap_or(usize::MAX)
            }

            fn par_split_at(self, index: usize) -> (Self, Self) {
                debug_assert!(index <= self.par_len());
                // `index <= len`, so `start + index` is within `start..=end`. The addition is
                // done modulo 2^bits (`as` truncates the same way), which gives the exact
                // result because the true sum is in range.
                let mid = self.start.wrapping_add(index as $t);
                (self.start..mid, mid..self.end)
            }

            #[allow(clippy::cast_possible_truncation)]
            fn par_split_half(self) -> (Self, Self) {
                if self.is_empty() {
                    return (self.clone(), self);
                }
                // The true middle, in the unsigned twin of the type (the distance always fits
                // there); added modulo 2^bits as in `par_split_at`.
                let half = self.end.abs_diff(self.start) / 2;
                let mid = self.start.wrapping_add(half as $t);
                (self.start..mid, mid..self.end)
            }
        }

        impl ParallelSource for RangeInclusive<$t> {
            fn par_len(&self) -> usize {
                if self.is_empty() {
                    return 0;
                }
                // `end - start + 1`; saturating where that exceeds usize (`0..=u64::MAX`, and
                // wide 128-bit ranges): splitting stays exact (see `par_split_at`), only the
                // reported length is one short of the truth, for a range nobody can finish.
                let distance = self.end().abs_diff(*self.start());
                usize::try_from(distance)
                    .ok()
                    .and_then(|d| d.checked_add(1))
                    .unwrap_or(usize::MAX)
            }

            fn par_split_at(self, index: usize) -> (Self, Self) {
                debug_assert!(index <= self.par_len());
                if self.is_empty() {
                    return (self.clone(), self);
                }
                let (start, end) = (*self.start(), *self.end());
                // The range has `distance + 1` items, so `index > distance` means all of them.
                let distance = end.abs_diff(start);
                if index as u128 > distance as u128 {
                    return (self, exhausted(end));
                }
                if index == 0 {
                    return (exhausted(start), self);
                }
                // `1 <= index <= distance`: both bounds are inside the range (modular addition
                // as in `Range::par_split_at`).
                let last_left = start.wrapping_add((index - 1) as $t);
                let first_right = start.wrapping_add(index as $t);
                (start..=last_left, first_right..=end)
            }

            #[allow(clippy::cast_possible_truncation)]
            fn par_split_half(self) -> (Self, Self) {
                if self.is_empty() {
                    return (self.clone(), self);
                }
                let (start, end) = (*self.start(), *self.end());
                let distance = end.abs_diff(start);
                if distance == 0 {
                    return (exhausted(start), self);
                }
                // `distance + 1` items; the left half takes `ceil(distance / 2)` of them, at
                // least one and at most `distance`, so both halves are non-empty (modular
                // addition as in `par_split_at`).
                let half = distance / 2 + distance % 2;
                let last_left = start.wrapping_add((half - 1) as $t);
                let first_right = start.wrapping_add(half as $t);
                (start..=last_left, first_right..=end)
            }
        }
    )*};
}

range_sources!(
    u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize
);

/// A `char` range's items are the scalar values in it, which skip the surrogates: an item's
/// index in the range is its value, less the surrogates' 0x800 from `\u{E000}` on.
const SURROGATES: std::ops::Range<u32> = 0xD800..0xE000;

/// The index of `c` among the scalar values.
pub(crate) fn char_index(c: char) -> u32 {
    let value = u32::from(c);
    if value < SURROGATES.start {
        value
    } else {
        value - SURROGATES.len() as u32
    }
}

/// The scalar value at `index` (the inverse of [`char_index`]).
pub(crate) fn char_at(index: u32) -> char {
    let value = if index < SURROGATES.start {
        index
    } else {
        index + SURROGATES.len() as u32
    };
    char::from_u32(value).expect("an index below the last scalar value's")
}

impl ParallelSource for Range<char> {
    fn par_len(&self) -> usize {
        // `char_index` keeps the order, so an empty range (`end <= start`) has none.
        char_index(self.end).saturating_sub(char_index(self.start)) as usize
    }

    fn par_split_at(self, index: usize) -> (Self, Self) {
        debug_assert!(index <= self.par_len());
        // `index <= len`, so the index is at most `char_index(end)`, a scalar value's.
        let mid = char_at(char_index(self.start) + index as u32);
        (self.start..mid, mid..self.end)
    }
}

impl ParallelSource for RangeInclusive<char> {
    fn par_len(&self) -> usize {
        if self.is_empty() {
            return 0;
        }
        (char_index(*self.end()) - char_index(*self.start())) as usize + 1
    }

    fn par_split_at(self, index: usize) -> (Self, Self) {
        debug_assert!(index <= self.par_len());
        if self.is_empty() {
            return (self.clone(), self);
        }
        let (start, end) = (*self.start(), *self.end());
        let first = char_index(start);
        if index == 0 {
            return (exhausted(start), self);
        }
        if index as u32 > char_index(end) - first {
            return (self, exhausted(end));
        }
        // `1 <= index <= len - 1`: both halves are inside the range.
        let last_left = char_at(first + index as u32 - 1);
        let first_right = char_at(first + index as u32);
        (start..=last_left, first_right..=end)
    }
}

/// An empty inclusive range positioned at `at` (an inclusive range cannot be empty with
/// `start <= end` unless it was iterated to its end, which is what this does).
fn exhausted<T>(at: T) -> RangeInclusive<T>
where
    T: Copy,
    RangeInclusive<T>: Iterator,
{
    let mut range = at..=at;
    range.next();
    range
}

impl<T: Sync> ParallelSource for &[T] {
    fn par_len(&self) -> usize {
        <[T]>::len(self)
    }

    fn par_split_at(self, index: usize) -> (Self, Self) {
        <[T]>::split_at(self, index)
    }
}

impl<T: Send> ParallelSource for &mut [T] {
    fn par_len(&self) -> usize {
        <[T]>::len(self)
    }

    fn par_split_at(self, index: usize) -> (Self, Self) {
        <[T]>::split_at_mut(self, index)
    }
}

impl<'a, T: Sync> IntoParallelSource for &'a Vec<T> {
    type Source = &'a [T];

    fn into_par_source(self) -> &'a [T] {
        self
    }
}

impl<'a, T: Send> IntoParallelSource for &'a mut Vec<T> {
    type Source = &'a mut [T];

    fn into_par_source(self) -> &'a mut [T] {
        self
    }
}

impl<'a, T: Sync, const N: usize> IntoParallelSource for &'a [T; N] {
    type Source = &'a [T];

    fn into_par_source(self) -> &'a [T] {
        self
    }
}

impl<'a, T: Send, const N: usize> IntoParallelSource for &'a mut [T; N] {
    type Source = &'a mut [T];

    fn into_par_source(self) -> &'a mut [T] {
        self
    }
}

/// A slice as a source of consecutive chunks of `chunk_size` items (the last may be shorter),
/// iterated as `&[T]`: the parallel counterpart of [`slice::chunks`]. Made by [`chunks`].
#[derive(Debug, Clone, Copy)]
pub struct ChunksSource<'a, T> {
    slice: &'a [T],
    chunk_size: usize,
}

/// Cuts `slice` into chunks of `chunk_size` items (the last may be shorter) for a parallel
/// loop; each item of the source is one chunk, as with [`slice::chunks`].
///
/// ```
/// let v: Vec<u32> = (0..10).collect();
/// let sums = blitz::reduce_pieces(
///     blitz::chunks(&v, 4),
///     0,
///     |piece| piece.into_iter().map(|c| vec![c.iter().sum::<u32>()]).collect::<Vec<_>>(),
///     |mut a, b| { a.extend(b); a },
/// );
/// assert_eq!(sums, vec![vec![6], vec![22], vec![17]]);
/// ```
///
/// # Panics
///
/// If `chunk_size` is 0.
pub fn chunks<T: Sync>(slice: &[T], chunk_size: usize) -> ChunksSource<'_, T> {
    assert!(chunk_size != 0, "blitz: chunk_size must not be zero");
    ChunksSource { slice, chunk_size }
}

impl<T: Sync> ParallelSource for ChunksSource<'_, T> {
    fn par_len(&self) -> usize {
        self.slice.len().div_ceil(self.chunk_size)
    }

    fn par_split_at(self, index: usize) -> (Self, Self) {
        let mid = index.saturating_mul(self.chunk_size).min(self.slice.len());
        let (left, right) = self.slice.split_at(mid);
        (
            ChunksSource {
                slice: left,
                chunk_size: self.chunk_size,
            },
            ChunksSource {
                slice: right,
                chunk_size: self.chunk_size,
            },
        )
    }
}

impl<'a, T> IntoIterator for ChunksSource<'a, T> {
    type Item = &'a [T];
    type IntoIter = slice::Chunks<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.slice.chunks(self.chunk_size)
    }
}

/// A mutable slice as a source of consecutive chunks of `chunk_size` items, iterated as
/// `&mut [T]`: the parallel counterpart of [`slice::chunks_mut`]. Made by [`chunks_mut`].
#[derive(Debug)]
pub struct ChunksMutSource<'a, T> {
    slice: &'a mut [T],
    chunk_size: usize,
}

/// Cuts `slice` into mutable chunks of `chunk_size` items (the last may be shorter) for a
/// parallel loop, as with [`slice::chunks_mut`].
///
/// ```
/// let mut v = vec![0u32; 10];
/// blitz::for_each_piece(blitz::chunks_mut(&mut v, 3), 0, |piece| {
///     for chunk in piece {
///         let len = chunk.len() as u32;
///         chunk.fill(len);
///     }
/// });
/// assert_eq!(v, [3, 3, 3, 3, 3, 3, 3, 3, 3, 1]);
/// ```
///
/// # Panics
///
/// If `chunk_size` is 0.
pub fn chunks_mut<T: Send>(slice: &mut [T], chunk_size: usize) -> ChunksMutSource<'_, T> {
    assert!(chunk_size != 0, "blitz: chunk_size must not be zero");
    ChunksMutSource { slice, chunk_size }
}

impl<T: Send> ParallelSource for ChunksMutSource<'_, T> {
    fn par_len(&self) -> usize {
        self.slice.len().div_ceil(self.chunk_size)
    }

    fn par_split_at(self, index: usize) -> (Self, Self) {
        let mid = index.saturating_mul(self.chunk_size).min(self.slice.len());
        let (left, right) = self.slice.split_at_mut(mid);
        (
            ChunksMutSource {
                slice: left,
                chunk_size: self.chunk_size,
            },
            ChunksMutSource {
                slice: right,
                chunk_size: self.chunk_size,
            },
        )
    }
}

impl<'a, T> IntoIterator for ChunksMutSource<'a, T> {
    type Item = &'a mut [T];
    type IntoIter = slice::ChunksMut<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.slice.chunks_mut(self.chunk_size)
    }
}

/// A slice whose items come with their index in the *whole* slice, as `(usize, &T)`: the
/// parallel counterpart of `slice.iter().enumerate()`. Made by [`enumerate`].
#[derive(Debug, Clone, Copy)]
pub struct EnumerateSource<'a, T> {
    slice: &'a [T],
    /// The index of `slice[0]` in the original slice.
    offset: usize,
}

/// Pairs each item of `slice` with its index, for a parallel loop (the index is global:
/// pieces know where they start).
///
/// ```
/// let v = vec![10, 20, 30, 40];
/// let weighted = blitz::reduce_pieces(
///     blitz::enumerate(&v),
///     1,
///     |piece| piece.into_iter().map(|(i, x)| i * x).sum::<usize>(),
///     |a, b| a + b,
/// );
/// assert_eq!(weighted, 20 + 60 + 120);
/// ```
pub fn enumerate<T: Sync>(slice: &[T]) -> EnumerateSource<'_, T> {
    EnumerateSource { slice, offset: 0 }
}

impl<T: Sync> ParallelSource for EnumerateSource<'_, T> {
    fn par_len(&self) -> usize {
        self.slice.len()
    }

    fn par_split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.slice.split_at(index);
        (
            EnumerateSource {
                slice: left,
                offset: self.offset,
            },
            EnumerateSource {
                slice: right,
                offset: self.offset + index,
            },
        )
    }
}

impl<'a, T> IntoIterator for EnumerateSource<'a, T> {
    type Item = (usize, &'a T);
    /// A zip of two exact-size iterators, which LLVM handles as well as a counted loop.
    type IntoIter = Zip<Range<usize>, slice::Iter<'a, T>>;

    fn into_iter(self) -> Self::IntoIter {
        (self.offset..self.offset + self.slice.len()).zip(self.slice.iter())
    }
}

/// A mutable slice whose items come with their global index, as `(usize, &mut T)`: the
/// parallel counterpart of `slice.iter_mut().enumerate()`. Made by [`enumerate_mut`].
#[derive(Debug)]
pub struct EnumerateMutSource<'a, T> {
    slice: &'a mut [T],
    /// The index of `slice[0]` in the original slice.
    offset: usize,
}

/// Pairs each item of `slice` with its (global) index, mutably, for a parallel loop.
///
/// ```
/// let mut v = vec![0usize; 1000];
/// blitz::for_each_piece(blitz::enumerate_mut(&mut v), 0, |piece| {
///     for (i, x) in piece {
///         *x = i * i;
///     }
/// });
/// assert!(v.iter().enumerate().all(|(i, &x)| x == i * i));
/// ```
pub fn enumerate_mut<T: Send>(slice: &mut [T]) -> EnumerateMutSource<'_, T> {
    EnumerateMutSource { slice, offset: 0 }
}

impl<T: Send> ParallelSource for EnumerateMutSource<'_, T> {
    fn par_len(&self) -> usize {
        self.slice.len()
    }

    fn par_split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.slice.split_at_mut(index);
        (
            EnumerateMutSource {
                slice: left,
                offset: self.offset,
            },
            EnumerateMutSource {
                slice: right,
                offset: self.offset + index,
            },
        )
    }
}

impl<'a, T> IntoIterator for EnumerateMutSource<'a, T> {
    type Item = (usize, &'a mut T);
    /// As for [`EnumerateSource`].
    type IntoIter = Zip<Range<usize>, slice::IterMut<'a, T>>;

    fn into_iter(self) -> Self::IntoIter {
        let end = self.offset + self.slice.len();
        (self.offset..end).zip(self.slice.iter_mut())
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn ranges_split_in_order() {
        assert_eq!((3..10u8).par_split_at(2), (3..5, 5..10));
        assert_eq!((-5..5i8).par_len(), 10);
        assert_eq!((i64::MIN..i64::MAX).par_len(), usize::MAX);
        #[allow(clippy::reversed_empty_ranges)]
        let reversed = 5..3i32;
        assert_eq!(reversed.par_len(), 0);
        assert_eq!((-128..127i8).par_split_at(200), (-128..72, 72..127));
    }

    #[test]
    fn ranges_halve_at_their_true_middle() {
        assert_eq!((0..10u128).par_split_half(), (0..5, 5..10));
        assert_eq!((3..4u8).par_split_half(), (3..3, 3..4));
        assert_eq!(
            (i128::MIN..i128::MAX).par_split_half(),
            (i128::MIN..-1, -1..i128::MAX)
        );
        assert_eq!((0..=255u8).par_split_half(), (0..=127, 128..=255));
        assert_eq!((-3..=3i8).par_split_half(), (-3..=-1, 0..=3));
        let (a, b) = (0..=u128::MAX).par_split_half();
        assert_eq!((a, b), (0..=u128::MAX / 2, u128::MAX / 2 + 1..=u128::MAX));
        let (a, b) = (7..=7u64).par_split_half();
        assert_eq!((a.count(), b.collect::<Vec<_>>()), (0, vec![7]));
        #[allow(clippy::reversed_empty_ranges)]
        let (a, b) = (5..3i32).par_split_half();
        assert_eq!((a.count(), b.count()), (0, 0));
    }

    #[test]
    fn inclusive_ranges_split_at_every_index() {
        let r = -3..=4i8;
        assert_eq!(r.par_len(), 8);
        for index in 0..=8 {
            let (a, b) = r.clone().par_split_at(index);
            assert_eq!(a.par_len(), index);
            assert_eq!(b.par_len(), 8 - index);
            let joined: Vec<i8> = a.chain(b).collect();
            assert_eq!(joined, (-3..=4).collect::<Vec<_>>());
        }
        let full = u8::MIN..=u8::MAX;
        assert_eq!(full.par_len(), 256);
        let (a, b) = full.par_split_at(255);
        assert_eq!((a, b.collect::<Vec<_>>()), (0..=254, vec![255]));
        assert_eq!((0..=u64::MAX).par_len(), usize::MAX);
        assert_eq!(exhausted(7u16).par_len(), 0);
    }

    #[test]
    fn char_ranges_split_at_every_index_around_the_surrogates() {
        // Three scalar values on each side of the surrogates' gap.
        let (low, high) = ('\u{D7FD}', '\u{E002}');
        let all: Vec<char> = (low..=high).collect();
        assert_eq!(all.len(), 6);
        for index in 0..=all.len() {
            let (a, b) = (low..=high).par_split_at(index);
            assert_eq!(a.par_len(), index);
            let joined: Vec<char> = a.chain(b).collect();
            assert_eq!(joined, all);
            let (a, b) = (low..high).par_split_at(index.min(5));
            let joined: Vec<char> = a.chain(b).collect();
            assert_eq!(joined, all[..5]);
        }
        assert_eq!(('a'..='z').par_len(), 26);
        assert_eq!(('z'..'a').par_len(), 0);
        assert_eq!(('\0'..=char::MAX).par_len(), 0x10_FFFF + 1 - 0x800);
    }

    #[test]
    fn chunks_and_enumerate_split_on_item_boundaries() {
        let v: Vec<u8> = (0..10).collect();
        let c = chunks(&v, 4);
        assert_eq!(c.par_len(), 3);
        let (a, b) = c.par_split_at(1);
        assert_eq!(a.into_iter().collect::<Vec<_>>(), vec![&v[0..4]]);
        assert_eq!(b.into_iter().collect::<Vec<_>>(), vec![&v[4..8], &v[8..]]);
        let (a, b) = chunks(&v, 4).par_split_at(3);
        assert_eq!((a.par_len(), b.par_len()), (3, 0));
        let (_, right) = enumerate(&v).par_split_at(6);
        let right: Vec<(usize, &u8)> = right.into_iter().collect();
        assert_eq!(right[0], (6, &6));
    }
}
