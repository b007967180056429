//! The sources of parallel iterators: slices (`par_iter`, `par_iter_mut`), integer ranges
//! and `Vec`s by value (`into_par_iter`). Slices and ranges are the loops' own sources; a
//! `Vec` by value hands out its items through a [`DrainProducer`].

use std::mem;
use std::ops::{Range, RangeInclusive};
use std::ptr;
use std::slice;

use super::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator, ProducerCallback};
use crate::loops::ParallelSource;
use crate::loops::sources::{char_at, char_index};

/// A parallel iterator over `&T` in a slice (`par_iter()` on slices, arrays and `Vec`s).
#[derive(Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Iter<'data, T> {
    slice: &'data [T],
}

impl<T> Clone for Iter<'_, T> {
    fn clone(&self) -> Self {
        Iter { slice: self.slice }
    }
}

impl<'data, T: Sync + 'data> ParallelIterator for Iter<'data, T> {
    type Item = &'data T;

    fn with_producer<CB: ProducerCallback<&'data T>>(self, callback: CB) -> CB::Output {
        callback.call(self.slice)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.slice.len())
    }
}

impl<'data, T: Sync + 'data> IndexedParallelIterator for Iter<'data, T> {
    fn len(&self) -> usize {
        self.slice.len()
    }
}

/// A parallel iterator over `&mut T` in a slice (`par_iter_mut()`).
#[derive(Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct IterMut<'data, T> {
    slice: &'data mut [T],
}

impl<'data, T: Send + 'data> ParallelIterator for IterMut<'data, T> {
    type Item = &'data mut T;

    fn with_producer<CB: ProducerCallback<&'data mut T>>(self, callback: CB) -> CB::Output {
        callback.call(self.slice)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.slice.len())
    }
}

impl<'data, T: Send + 'data> IndexedParallelIterator for IterMut<'data, T> {
    fn len(&self) -> usize {
        self.slice.len()
    }
}

impl<'data, T: Sync + 'data> IntoParallelIterator for &'data [T] {
    type Iter = Iter<'data, T>;
    type Item = &'data T;

    fn into_par_iter(self) -> Iter<'data, T> {
        Iter { slice: self }
    }
}

impl<'data, T: Sync + 'data> IntoParallelIterator for &'data Vec<T> {
    type Iter = Iter<'data, T>;
    type Item = &'data T;

    fn into_par_iter(self) -> Iter<'data, T> {
        Iter { slice: self }
    }
}

impl<'data, T: Sync + 'data, const N: usize> IntoParallelIterator for &'data [T; N] {
    type Iter = Iter<'data, T>;
    type Item = &'data T;

    fn into_par_iter(self) -> Iter<'data, T> {
        Iter { slice: self }
    }
}

impl<'data, T: Send + 'data> IntoParallelIterator for &'data mut [T] {
    type Iter = IterMut<'data, T>;
    type Item = &'data mut T;

    fn into_par_iter(self) -> IterMut<'data, T> {
        IterMut { slice: self }
    }
}

impl<'data, T: Send + 'data> IntoParallelIterator for &'data mut Vec<T> {
    type Iter = IterMut<'data, T>;
    type Item = &'data mut T;

    fn into_par_iter(self) -> IterMut<'data, T> {
        IterMut { slice: self }
    }
}

impl<'data, T: Send + 'data, const N: usize> IntoParallelIterator for &'data mut [T; N] {
    type Iter = IterMut<'data, T>;
    type Item = &'data mut T;

    fn into_par_iter(self) -> IterMut<'data, T> {
        IterMut { slice: self }
    }
}

/// A parallel iterator over an integer range (`(a..b).into_par_iter()`, `(a..=b)...`).
/// Indexed for every integer type: where the number of items may not fit a `usize` (`a..=b`
/// of 64-bit integers, 128-bit ranges), an indexed operation on a range too long to count
/// panics.
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct RangeIter<R> {
    range: R,
}

/// The integer types a range iterates over. The impls below are generic over this trait, not
/// one per integer type, as rayon's are: a method call on `(0..n)` with an unsuffixed `n`
/// needs the impl before the literal's type is settled, and with one impl per integer type it
/// did not compile ("type annotations needed") or settled on `i32` at once, so that
/// `(0..10).into_par_iter().map(|x| x * 2).collect::<Vec<u64>>()` failed. With one generic
/// impl whose `Item` is `T`, the literal's type is inferred from how the items are used. The
/// traits are markers (the ranges' `ParallelSource` impls do the work): a bound on the item
/// type itself is what the compiler infers the literal's type through.
///
/// Public in a private module: it appears in the bounds of public impls, but nobody outside
/// can name or implement it.
mod range_integer {
    pub trait RangeInteger: Sized + Send + Copy {}

    /// `Range<T>` is indexed. `LEN_FITS`: the length of every such range fits a `usize`.
    pub trait IndexedRangeInteger: RangeInteger {
        const LEN_FITS: bool;
    }

    /// `RangeInclusive<T>` is indexed. `LEN_FITS`: the length of every such range (`end -
    /// start + 1`) fits a `usize`.
    pub trait IndexedInclusiveRangeInteger: RangeInteger {
        const LEN_FITS: bool;
    }
}
use range_integer::{IndexedInclusiveRangeInteger, IndexedRangeInteger, RangeInteger};

macro_rules! impl_for {
    ($tr:ident: $($t:ty),*) => {$(impl $tr for $t {})*};
    ($tr:ident, $fits:literal: $($t:ty),*) => {
        $(impl $tr for $t { const LEN_FITS: bool = $fits; })*
    };
}

impl_for!(RangeInteger: u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);
impl_for!(IndexedRangeInteger, true: u8, u16, u32, usize, i8, i16, i32, isize);
impl_for!(IndexedRangeInteger, false: u128, i128);
impl_for!(IndexedInclusiveRangeInteger, true: u8, u16, i8, i16);
impl_for!(IndexedInclusiveRangeInteger, false: u64, i64, usize, isize, u128, i128);
#[cfg(target_pointer_width = "64")]
impl_for!(IndexedRangeInteger, true: u64, i64);
#[cfg(target_pointer_width = "64")]
impl_for!(IndexedInclusiveRangeInteger, true: u32, i32);
#[cfg(not(target_pointer_width = "64"))]
impl_for!(IndexedRangeInteger, false: u64, i64);
#[cfg(not(target_pointer_width = "64"))]
impl_for!(IndexedInclusiveRangeInteger, false: u32, i32);

/// The impls for one range type; the ranges' own `ParallelSource` impls do the work.
macro_rules! range_iter {
    ($range:ident, $indexed:ident) => {
        impl<T: RangeInteger> ParallelIterator for RangeIter<$range<T>>
        where
            $range<T>: ParallelSource + IntoIterator<Item = T>,
        {
            type Item = T;

            fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
                callback.call(self.range)
            }

            fn opt_len(&self) -> Option<usize> {
                range_opt_len(&self.range)
            }
        }

        impl<T: RangeInteger> IntoParallelIterator for $range<T>
        where
            $range<T>: ParallelSource + IntoIterator<Item = T>,
        {
            type Iter = RangeIter<$range<T>>;
            type Item = T;

            fn into_par_iter(self) -> Self::Iter {
                RangeIter { range: self }
            }
        }

        impl<T: $indexed> IndexedParallelIterator for RangeIter<$range<T>>
        where
            $range<T>: ParallelSource + IntoIterator<Item = T> + std::fmt::Debug,
        {
            fn len(&self) -> usize {
                let len = self.range.par_len();
                // `par_len` saturates: for a type whose ranges may be longer than a `usize`
                // counts, `usize::MAX` means "at least that many".
                if !T::LEN_FITS && len == usize::MAX {
                    panic!(
                        "blitz: the range {:?} has more items than a `usize` can count, too \
                         many for an indexed operation (`enumerate`, `rev`, `zip`, `collect`, \
                         ...)",
                        self.range
                    );
                }
                len
            }
        }
    };
}

range_iter!(Range, IndexedRangeInteger);
range_iter!(RangeInclusive, IndexedInclusiveRangeInteger);

/// The `char`s of a range, in order (rayon's `Range<char>` parallel iterator): the range runs
/// over the indices of the scalar values (the surrogates skipped), mapped back to `char`s, so it
/// is indexed.
impl IntoParallelIterator for Range<char> {
    type Iter = super::Map<RangeIter<Range<u32>>, fn(u32) -> char>;
    type Item = char;

    fn into_par_iter(self) -> Self::Iter {
        let indices = char_index(self.start)..char_index(self.end);
        indices.into_par_iter().map(char_at as fn(u32) -> char)
    }
}

/// The `char`s of an inclusive range, in order.
impl IntoParallelIterator for RangeInclusive<char> {
    type Iter = super::Map<RangeIter<Range<u32>>, fn(u32) -> char>;
    type Item = char;

    fn into_par_iter(self) -> Self::Iter {
        let indices = if self.is_empty() {
            0..0
        } else {
            // At most `char_index(char::MAX) + 1`, far below `u32::MAX`.
            char_index(*self.start())..char_index(*self.end()) + 1
        };
        indices.into_par_iter().map(char_at as fn(u32) -> char)
    }
}

/// The length of a range, unless it does not fit a `usize`. (`par_len` saturates there: at
/// `usize::MAX`, whether the range ends there is what is left after splitting that many off.)
fn range_opt_len(range: &(impl ParallelSource + Clone)) -> Option<usize> {
    match range.par_len() {
        usize::MAX => {
            let (_, rest) = range.clone().par_split_at(usize::MAX);
            rest.par_is_empty().then_some(usize::MAX)
        }
        len => Some(len),
    }
}

/// A parallel iterator that moves the items out of a `Vec` (`vec.into_par_iter()`).
#[derive(Debug, Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct VecIntoIter<T> {
    vec: Vec<T>,
}

impl<T: Send> IntoParallelIterator for Vec<T> {
    type Iter = VecIntoIter<T>;
    type Item = T;

    fn into_par_iter(self) -> VecIntoIter<T> {
        VecIntoIter { vec: self }
    }
}

impl<T: Send> ParallelIterator for VecIntoIter<T> {
    type Item = T;

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        let mut vec = self.vec;
        let len = vec.len();
        // The items now belong to the producer: if anything unwinds, the `Vec` only frees its
        // buffer, and the producer's pieces drop whatever items they did not hand out.
        // SAFETY: `0 <= len`; the items stay initialised in the buffer, owned by the slice.
        unsafe { vec.set_len(0) };
        // SAFETY: the buffer holds `len` initialised items and outlives the call (`vec` is
        // dropped after it); nothing else reads them (the `Vec`'s length is 0).
        let slice = unsafe { slice::from_raw_parts_mut(vec.as_mut_ptr(), len) };
        callback.call(DrainProducer { slice })
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.vec.len())
    }
}

impl<T: Send> IndexedParallelIterator for VecIntoIter<T> {
    fn len(&self) -> usize {
        self.vec.len()
    }
}

/// Owns the items of a slice (moved out of a `Vec` whose length was set to 0): hands them out
/// by value, and drops those it never handed out.
///
/// Invariant: every item of `slice` is initialised and owned by this producer alone.
pub(super) struct DrainProducer<'data, T> {
    slice: &'data mut [T],
}

impl<T: Send> ParallelSource for DrainProducer<'_, T> {
    fn par_len(&self) -> usize {
        self.slice.len()
    }

    fn par_split_at(mut self, index: usize) -> (Self, Self) {
        // Take the slice out, so that dropping `self` drops nothing.
        let (left, right) = mem::take(&mut self.slice).split_at_mut(index);
        (
            DrainProducer { slice: left },
            DrainProducer { slice: right },
        )
    }
}

impl<'data, T> IntoIterator for DrainProducer<'data, T> {
    type Item = T;
    type IntoIter = DrainIter<'data, T>;

    fn into_iter(mut self) -> DrainIter<'data, T> {
        DrainIter {
            items: mem::take(&mut self.slice).iter_mut(),
        }
    }
}

impl<T> Drop for DrainProducer<'_, T> {
    fn drop(&mut self) {
        // SAFETY: the items are initialised and ours (type invariant); they are not used again.
        unsafe { ptr::drop_in_place(self.slice) };
    }
}

/// The sequential side of [`DrainProducer`]: moves each item out once.
pub(super) struct DrainIter<'data, T> {
    /// The items not handed out yet (initialised, owned by this iterator).
    items: slice::IterMut<'data, T>,
}

impl<T> Iterator for DrainIter<'_, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        let item = self.items.next()?;
        // SAFETY: initialised and owned by us; the iterator has moved past it, so it is read
        // exactly once and never dropped here.
        Some(unsafe { ptr::read(item) })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.items.size_hint()
    }
}

impl<T> ExactSizeIterator for DrainIter<'_, T> {}

impl<T> Drop for DrainIter<'_, T> {
    fn drop(&mut self) {
        let rest = mem::take(&mut self.items).into_slice();
        // SAFETY: the items not handed out are initialised and ours; not used again.
        unsafe { ptr::drop_in_place(rest) };
    }
}
