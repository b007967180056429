//! Tuples of indexed parallel iterators, zipped: `(a, b, c).into_par_iter()` yields
//! `(a_item, b_item, c_item)` (rayon's `MultiZip`), for tuples of 1 to 12 iterators, and of
//! collections by reference (`(&v, &mut w).into_par_iter()`, `(v, w).par_iter()`).

use super::{
    IndexedParallelIterator, IntoParallelIterator, IntoParallelRefIterator,
    IntoParallelRefMutIterator, ParallelIterator, ProducerCallback,
};

/// The iterator of a tuple of indexed parallel iterators: their items side by side, as many
/// as the shortest has.
///
/// ```
/// use blitz::prelude::*;
/// let (a, b, mut out) = (vec![1, 2, 3], vec![10, 20, 30], vec![0; 3]);
/// (&a, &b, &mut out).into_par_iter().for_each(|(x, y, o)| *o = x + y);
/// assert_eq!(out, [11, 22, 33]);
/// let names = ["x", "y"];
/// let tagged: Vec<(&str, u32, char)> =
///     (names.par_iter().copied(), 0..2u32, vec!['p', 'q']).into_par_iter().collect();
/// assert_eq!(tagged, [("x", 0, 'p'), ("y", 1, 'q')]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct MultiZip<T> {
    tuple: T,
}

/// `a.zip(b.zip(c.zip(..)))`: the tuple's iterators zipped from the right.
macro_rules! nest_zip {
    ($last:expr) => { $last };
    ($first:expr, $($rest:expr),+) => { $first.zip(nest_zip!($($rest),+)) };
}

/// The pattern of an item of `nest_zip!`: `(a, (b, (c, ..)))`.
macro_rules! nest_pattern {
    ($last:ident) => { $last };
    ($first:ident, $($rest:ident),+) => { ($first, nest_pattern!($($rest),+)) };
}

macro_rules! multizip {
    ($(($($T:ident $item:ident $index:tt),+))+) => {$(
        impl<$($T),+> IntoParallelIterator for ($($T,)+)
        where
            $($T: IntoParallelIterator, $T::Iter: IndexedParallelIterator,)+
        {
            type Item = ($($T::Item,)+);
            type Iter = MultiZip<($($T::Iter,)+)>;

            fn into_par_iter(self) -> Self::Iter {
                MultiZip { tuple: ($(self.$index.into_par_iter(),)+) }
            }
        }

        impl<'data, $($T),+> IntoParallelIterator for &'data ($($T,)+)
        where
            $($T: IntoParallelRefIterator<'data>, $T::Iter: IndexedParallelIterator,)+
        {
            type Item = ($($T::Item,)+);
            type Iter = MultiZip<($($T::Iter,)+)>;

            fn into_par_iter(self) -> Self::Iter {
                MultiZip { tuple: ($(self.$index.par_iter(),)+) }
            }
        }

        impl<'data, $($T),+> IntoParallelIterator for &'data mut ($($T,)+)
        where
            $($T: IntoParallelRefMutIterator<'data>, $T::Iter: IndexedParallelIterator,)+
        {
            type Item = ($($T::Item,)+);
            type Iter = MultiZip<($($T::Iter,)+)>;

            fn into_par_iter(self) -> Self::Iter {
                MultiZip { tuple: ($(self.$index.par_iter_mut(),)+) }
            }
        }

        impl<$($T),+> ParallelIterator for MultiZip<($($T,)+)>
        where
            $($T: IndexedParallelIterator,)+
        {
            type Item = ($($T::Item,)+);

            fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
                let ($($item,)+) = self.tuple;
                nest_zip!($($item),+)
                    .map(|nest_pattern!($($item),+)| ($($item,)+))
                    .with_producer(callback)
            }

            fn opt_len(&self) -> Option<usize> {
                Some(self.len())
            }
        }

        impl<$($T),+> IndexedParallelIterator for MultiZip<($($T,)+)>
        where
            $($T: IndexedParallelIterator,)+
        {
            fn len(&self) -> usize {
                let mut len = usize::MAX;
                $(len = len.min(self.tuple.$index.len());)+
                len
            }
        }
    )+};
}

multizip! {
    (A a 0)
    (A a 0, B b 1)
    (A a 0, B b 1, C c 2)
    (A a 0, B b 1, C c 2, D d 3)
    (A a 0, B b 1, C c 2, D d 3, E e 4)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7, I i 8)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7, I i 8, J j 9)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7, I i 8, J j 9, K k 10)
    (A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7, I i 8, J j 9, K k 10, L l 11)
}
