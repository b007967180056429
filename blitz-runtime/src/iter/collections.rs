//! `par_iter()`, `par_iter_mut()` and `into_par_iter()` on the standard collections other than
//! slices and `Vec`: hash and B-tree maps and sets, `VecDeque`, `LinkedList`, `BinaryHeap`,
//! `Option`, `Result`, and arrays and boxed slices by value; `par_drain(range)` on `Vec`, `VecDeque` and `String`, and
//! `par_drain()` on the hash collections and `BinaryHeap`.
//!
//! A `VecDeque` is two slices, chained. The others cannot be split by index, so, as rayon does
//! for them, their items (or references to them) are first gathered into a `Vec` on the
//! calling thread, a pass that costs about as much as the sequential iteration it replaces;
//! the parallel work then runs over that `Vec`.

use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::ops::RangeBounds;

use super::{Chain, IntoParallelIterator, Iter, IterMut, ParallelIterator, VecIntoIter};

/// Implements `IntoParallelIterator` for a collection through a `Vec` of its items.
macro_rules! through_vec {
    ($(impl<$($gen:tt),*> for $collection:ty => $item:ty where [$($bound:tt)*];)*) => {$(
        impl<$($gen),*> IntoParallelIterator for $collection
        where
            $($bound)*
        {
            type Iter = VecIntoIter<$item>;
            type Item = $item;

            fn into_par_iter(self) -> VecIntoIter<$item> {
                self.into_iter().collect::<Vec<$item>>().into_par_iter()
            }
        }
    )*};
}

through_vec! {
    impl<'a, K, V, S> for &'a HashMap<K, V, S> => (&'a K, &'a V) where [K: Sync, V: Sync];
    impl<'a, K, V, S> for &'a mut HashMap<K, V, S> => (&'a K, &'a mut V) where [K: Sync, V: Send];
    impl<K, V, S> for HashMap<K, V, S> => (K, V) where [K: Send, V: Send];
    impl<'a, T, S> for &'a HashSet<T, S> => &'a T where [T: Sync];
    impl<T, S> for HashSet<T, S> => T where [T: Send];
    impl<'a, K, V> for &'a BTreeMap<K, V> => (&'a K, &'a V) where [K: Sync, V: Sync];
    impl<'a, K, V> for &'a mut BTreeMap<K, V> => (&'a K, &'a mut V) where [K: Sync, V: Send];
    impl<K, V> for BTreeMap<K, V> => (K, V) where [K: Send, V: Send];
    impl<'a, T> for &'a BTreeSet<T> => &'a T where [T: Sync];
    impl<T> for BTreeSet<T> => T where [T: Send];
    impl<'a, T> for &'a LinkedList<T> => &'a T where [T: Sync];
    impl<'a, T> for &'a mut LinkedList<T> => &'a mut T where [T: Send];
    impl<T> for LinkedList<T> => T where [T: Send];
    impl<T> for VecDeque<T> => T where [T: Send];
    impl<T> for Option<T> => T where [T: Send];
    impl<'a, T> for &'a Option<T> => &'a T where [T: Sync];
    impl<'a, T> for &'a mut Option<T> => &'a mut T where [T: Send];
    impl<T, E> for Result<T, E> => T where [T: Send];
    impl<'a, T, E> for &'a Result<T, E> => &'a T where [T: Sync];
    impl<'a, T, E> for &'a mut Result<T, E> => &'a mut T where [T: Send];
}

/// By value, as a `Vec` (which a boxed slice converts into without copying).
impl<T: Send> IntoParallelIterator for Box<[T]> {
    type Iter = VecIntoIter<T>;
    type Item = T;

    fn into_par_iter(self) -> VecIntoIter<T> {
        Vec::from(self).into_par_iter()
    }
}

impl<'a, T: Sync> IntoParallelIterator for &'a VecDeque<T> {
    type Iter = Chain<Iter<'a, T>, Iter<'a, T>>;
    type Item = &'a T;

    fn into_par_iter(self) -> Self::Iter {
        let (front, back) = self.as_slices();
        front.into_par_iter().chain(back)
    }
}

impl<'a, T: Send> IntoParallelIterator for &'a mut VecDeque<T> {
    type Iter = Chain<IterMut<'a, T>, IterMut<'a, T>>;
    type Item = &'a mut T;

    fn into_par_iter(self) -> Self::Iter {
        let (front, back) = self.as_mut_slices();
        front.into_par_iter().chain(back)
    }
}

/// In the heap's internal order, as `BinaryHeap::iter`.
impl<'a, T: Sync> IntoParallelIterator for &'a BinaryHeap<T> {
    type Iter = Iter<'a, T>;
    type Item = &'a T;

    fn into_par_iter(self) -> Iter<'a, T> {
        self.as_slice().into_par_iter()
    }
}

/// In the heap's internal order, as `BinaryHeap::into_iter`.
impl<T: Send> IntoParallelIterator for BinaryHeap<T> {
    type Iter = VecIntoIter<T>;
    type Item = T;

    fn into_par_iter(self) -> VecIntoIter<T> {
        self.into_vec().into_par_iter()
    }
}

/// An array by value: its items, moved out.
impl<T: Send, const N: usize> IntoParallelIterator for [T; N] {
    type Iter = VecIntoIter<T>;
    type Item = T;

    fn into_par_iter(self) -> VecIntoIter<T> {
        Vec::from(self).into_par_iter()
    }
}

/// `par_drain(range)`: removes a range of a collection's items and yields them by value, as
/// rayon's `ParallelDrainRange`. The items are moved out in one sequential pass (a copy of
/// the range's bytes) and then handed out in parallel; the collection keeps the rest.
///
/// ```
/// use blitz::prelude::*;
/// let mut v: Vec<u32> = (0..10).collect();
/// let drained: Vec<u32> = v.par_drain(2..5).map(|x| x * 10).collect();
/// assert_eq!(drained, [20, 30, 40]);
/// assert_eq!(v, [0, 1, 5, 6, 7, 8, 9]);
/// ```
pub trait ParallelDrainRange<Idx = usize> {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// The items.
    type Item: Send;

    /// Removes the items in `range` and yields them by value.
    ///
    /// # Panics
    ///
    /// As `Vec::drain`: if the range starts after it ends or ends past the length.
    fn par_drain<R: RangeBounds<Idx>>(self, range: R) -> Self::Iter;
}

impl<T: Send> ParallelDrainRange for &mut Vec<T> {
    type Iter = VecIntoIter<T>;
    type Item = T;

    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> VecIntoIter<T> {
        self.drain(range).collect::<Vec<T>>().into_par_iter()
    }
}

impl<T: Send> ParallelDrainRange for &mut VecDeque<T> {
    type Iter = VecIntoIter<T>;
    type Item = T;

    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> VecIntoIter<T> {
        self.drain(range).collect::<Vec<T>>().into_par_iter()
    }
}

impl ParallelDrainRange for &mut String {
    type Iter = VecIntoIter<char>;
    type Item = char;

    /// Removes the chars in the byte `range` and yields them.
    ///
    /// # Panics
    ///
    /// As `String::drain`: also if the range's ends are not on char boundaries.
    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> VecIntoIter<char> {
        self.drain(range).collect::<Vec<char>>().into_par_iter()
    }
}

/// `par_drain()`: removes every item of a collection and yields them by value, as rayon's
/// `ParallelDrainFull`, for the collections that cannot drain a range (hash maps and sets,
/// `BinaryHeap`). The items are moved out in one sequential pass, then handed out in parallel;
/// the collection is left empty, its memory kept.
///
/// ```
/// use blitz::prelude::*;
/// use std::collections::HashMap;
/// let mut scores: HashMap<&str, u32> = [("a", 1), ("b", 2)].into_iter().collect();
/// let total: u32 = scores.par_drain().map(|(_, v)| v).sum();
/// assert_eq!(total, 3);
/// assert!(scores.is_empty());
/// ```
pub trait ParallelDrainFull {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// The items.
    type Item: Send;

    /// Removes every item and yields them by value.
    fn par_drain(self) -> Self::Iter;
}

macro_rules! drain_full {
    ($(impl<$($gen:ident),*> for $collection:ty => $item:ty where [$($bound:tt)*];)*) => {$(
        impl<$($gen),*> ParallelDrainFull for $collection
        where
            $($bound)*
        {
            type Iter = VecIntoIter<$item>;
            type Item = $item;

            fn par_drain(self) -> VecIntoIter<$item> {
                self.drain().collect::<Vec<$item>>().into_par_iter()
            }
        }
    )*};
}

drain_full! {
    impl<K, V, S> for &mut HashMap<K, V, S> => (K, V) where [K: Send, V: Send];
    impl<T, S> for &mut HashSet<T, S> => T where [T: Send];
    impl<T> for &mut BinaryHeap<T> => T where [T: Send];
}
