//! The conversions into parallel iterators: `into_par_iter`, `par_iter`, `par_iter_mut`.

use super::ParallelIterator;

/// Conversion into a parallel iterator: rayon's `IntoParallelIterator`. Implemented for every
/// parallel iterator, integer ranges, `Vec<T>` (by value: the items move), and slices and
/// vectors by reference.
///
/// ```
/// use blitz::prelude::*;
/// let v = vec![String::from("a"), String::from("b")];
/// let joined: String = v.into_par_iter().collect();
/// assert_eq!(joined, "ab");
/// ```
pub trait IntoParallelIterator {
    /// The parallel iterator this converts into.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: Send;

    /// Performs the conversion.
    fn into_par_iter(self) -> Self::Iter;
}

impl<I: ParallelIterator> IntoParallelIterator for I {
    type Iter = I;
    type Item = I::Item;

    fn into_par_iter(self) -> I {
        self
    }
}

/// `par_iter()`: a parallel iterator over references to the items of a collection (slices,
/// arrays, `Vec`), as rayon's `IntoParallelRefIterator`.
///
/// ```
/// use blitz::prelude::*;
/// let v = vec![1, 2, 3];
/// assert_eq!(v.par_iter().sum::<i32>(), 6);
/// ```
pub trait IntoParallelRefIterator<'data> {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items (references).
    type Item: Send + 'data;

    /// A parallel iterator over references to the items.
    fn par_iter(&'data self) -> Self::Iter;
}

impl<'data, C: ?Sized + 'data> IntoParallelRefIterator<'data> for C
where
    &'data C: IntoParallelIterator,
{
    type Iter = <&'data C as IntoParallelIterator>::Iter;
    type Item = <&'data C as IntoParallelIterator>::Item;

    fn par_iter(&'data self) -> Self::Iter {
        self.into_par_iter()
    }
}

/// `par_iter_mut()`: a parallel iterator over mutable references to the items of a
/// collection, as rayon's `IntoParallelRefMutIterator`.
///
/// ```
/// use blitz::prelude::*;
/// let mut v = vec![1, 2, 3];
/// v.par_iter_mut().for_each(|x| *x *= 10);
/// assert_eq!(v, [10, 20, 30]);
/// ```
pub trait IntoParallelRefMutIterator<'data> {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items (mutable references).
    type Item: Send + 'data;

    /// A parallel iterator over mutable references to the items.
    fn par_iter_mut(&'data mut self) -> Self::Iter;
}

impl<'data, C: ?Sized + 'data> IntoParallelRefMutIterator<'data> for C
where
    &'data mut C: IntoParallelIterator,
{
    type Iter = <&'data mut C as IntoParallelIterator>::Iter;
    type Item = <&'data mut C as IntoParallelIterator>::Item;

    fn par_iter_mut(&'data mut self) -> Self::Iter {
        self.into_par_iter()
    }
}
