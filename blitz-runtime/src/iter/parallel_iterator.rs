//! The [`ParallelIterator`] trait: adaptors and consumers for every parallel iterator.

use std::cmp::Ordering;
use std::collections::LinkedList;
use std::iter::{Product, Sum};

use super::{
    Chain, Cloned, Copied, Either, Filter, FilterMap, FlatMap, FlatMapIter, Flatten, FlattenIter,
    Fold, FoldWith, FromParallelIterator, Inspect, Intersperse, IntoParallelIterator, Map, MapInit,
    MapWith, MaxLen, MinLen, PanicFuse, ParallelExtend, ProducerCallback, SkipAny, SkipAnyWhile,
    TakeAny, TakeAnyWhile, Try, TryFold, TryFoldWith, Update, WhileSome, collect, consumers,
    try_ops,
};

/// A parallel iterator: rayon's `ParallelIterator`, run by Blitz's engine.
///
/// ```
/// use blitz::prelude::*;
///
/// let v: Vec<u64> = (1..=1000).collect();
/// let sum_of_odd_squares: u64 = v.par_iter().filter(|&&x| x % 2 == 1).map(|&x| x * x).sum();
/// assert_eq!(sum_of_odd_squares, (1..=1000u64).filter(|x| x % 2 == 1).map(|x| x * x).sum());
/// ```
pub trait ParallelIterator: Sized + Send {
    /// The items.
    type Item: Send;

    /// Hands the iterator's producer (its source wrapped in its adaptors) to `callback`.
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output;

    /// The number of items, if known without running the iterator (indexed iterators).
    #[doc(hidden)]
    fn opt_len(&self) -> Option<usize> {
        None
    }

    /// Applies `map` to every item.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let doubled: Vec<i32> = [1, 2, 3].par_iter().map(|x| x * 2).collect();
    /// assert_eq!(doubled, [2, 4, 6]);
    /// ```
    fn map<F, R>(self, map: F) -> Map<Self, F>
    where
        F: Fn(Self::Item) -> R + Sync + Send,
        R: Send,
    {
        Map::new(self, map)
    }

    /// Maps each item with `map`, which also gets a value of its own to work with: every piece
    /// of the iteration starts from a clone of `init` (rayon's `map_with`; for a channel's
    /// sender, a scratch buffer, a random number generator).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v: Vec<u32> = (0..5u32).into_par_iter().map_with(10, |base, x| *base + x).collect();
    /// assert_eq!(v, [10, 11, 12, 13, 14]);
    /// ```
    fn map_with<T, F, R>(self, init: T, map: F) -> MapWith<Self, T, F>
    where
        T: Clone + Send,
        F: Fn(&mut T, Self::Item) -> R + Sync + Send,
        R: Send,
    {
        MapWith::new(self, init, map)
    }

    /// Maps each item with `map`, which also gets a value of its own made by `init`: every
    /// piece of the iteration calls `init` once when it starts (rayon's `map_init`; for a
    /// value that is not `Clone`, or costly to clone, such as a random number generator).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v: Vec<u64> = (0..6u64)
    ///     .into_par_iter()
    ///     .map_init(Vec::new, |scratch: &mut Vec<u64>, x| {
    ///         scratch.clear();
    ///         scratch.extend(0..=x);
    ///         scratch.iter().sum::<u64>()
    ///     })
    ///     .collect();
    /// assert_eq!(v, [0, 1, 3, 6, 10, 15]);
    /// ```
    fn map_init<INIT, T, F, R>(self, init: INIT, map: F) -> MapInit<Self, INIT, F>
    where
        INIT: Fn() -> T + Sync + Send,
        F: Fn(&mut T, Self::Item) -> R + Sync + Send,
        R: Send,
    {
        MapInit::new(self, init, map)
    }

    /// Calls `op` on every item with a value of its own, cloned from `init` for every piece
    /// of the iteration (rayon's `for_each_with`).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// use std::sync::mpsc::channel;
    /// let (sender, receiver) = channel();
    /// (0..5u32).into_par_iter().for_each_with(sender, |s, x| s.send(x).unwrap());
    /// let mut got: Vec<u32> = receiver.iter().collect();
    /// got.sort();
    /// assert_eq!(got, [0, 1, 2, 3, 4]);
    /// ```
    fn for_each_with<T, F>(self, init: T, op: F)
    where
        T: Clone + Send,
        F: Fn(&mut T, Self::Item) + Sync + Send,
    {
        self.map_with(init, op).for_each(|()| ());
    }

    /// Calls `inspect` on a reference to every item as it passes (rayon's `inspect`).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let seen = AtomicUsize::new(0);
    /// let sum: u32 = (1..=4u32)
    ///     .into_par_iter()
    ///     .inspect(|_| {
    ///         seen.fetch_add(1, Ordering::Relaxed);
    ///     })
    ///     .sum();
    /// assert_eq!((sum, seen.into_inner()), (10, 4));
    /// ```
    fn inspect<F>(self, inspect: F) -> Inspect<Self, F>
    where
        F: Fn(&Self::Item) + Sync + Send,
    {
        Inspect::new(self, inspect)
    }

    /// Changes every item in place with `update` before passing it on (rayon's `update`).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v: Vec<String> =
    ///     ["a", "b"].par_iter().map(|s| s.to_string()).update(|s| s.push('!')).collect();
    /// assert_eq!(v, ["a!", "b!"]);
    /// ```
    fn update<F>(self, update: F) -> Update<Self, F>
    where
        F: Fn(&mut Self::Item) + Sync + Send,
    {
        Update::new(self, update)
    }

    /// Keeps the items for which `predicate` holds.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let even: Vec<u32> = (0..10u32).into_par_iter().filter(|x| x % 2 == 0).collect();
    /// assert_eq!(even, [0, 2, 4, 6, 8]);
    /// ```
    fn filter<P>(self, predicate: P) -> Filter<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        Filter::new(self, predicate)
    }

    /// Maps every item to an `Option` and keeps the `Some` values.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let words = ["1", "two", "3"];
    /// let numbers: Vec<i32> = words.par_iter().filter_map(|w| w.parse().ok()).collect();
    /// assert_eq!(numbers, [1, 3]);
    /// ```
    fn filter_map<F, R>(self, filter_map: F) -> FilterMap<Self, F>
    where
        F: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        FilterMap::new(self, filter_map)
    }

    /// Copies items out of references.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v = vec![3u8, 4, 5];
    /// let total: u32 = v.par_iter().copied().map(u32::from).sum();
    /// assert_eq!(total, 12);
    /// ```
    fn copied<'a, T>(self) -> Copied<Self>
    where
        T: 'a + Copy + Send + Sync,
        Self: ParallelIterator<Item = &'a T>,
    {
        Copied::new(self)
    }

    /// Clones items out of references.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let names = vec![String::from("a"), String::from("b")];
    /// let copies: Vec<String> = names.par_iter().cloned().collect();
    /// assert_eq!(copies, names);
    /// ```
    fn cloned<'a, T>(self) -> Cloned<Self>
    where
        T: 'a + Clone + Send + Sync,
        Self: ParallelIterator<Item = &'a T>,
    {
        Cloned::new(self)
    }

    /// Maps every item to a sequential iterator and yields all their items in order.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let pairs: Vec<(u32, u32)> =
    ///     (0..3u32).into_par_iter().flat_map_iter(|i| (0..i).map(move |j| (i, j))).collect();
    /// assert_eq!(pairs, [(1, 0), (2, 0), (2, 1)]);
    /// ```
    fn flat_map_iter<F, U>(self, map: F) -> FlatMapIter<Self, F>
    where
        F: Fn(Self::Item) -> U + Sync + Send,
        U: IntoIterator,
        U::Item: Send,
    {
        FlatMapIter::new(self, map)
    }

    /// Maps each item to a parallel iterator and yields their items, in order (rayon's
    /// `flat_map`). Each item's iterator runs as a parallel collection of its own, whose
    /// results are then yielded in order; for inner sequences that are cheap to produce,
    /// [`flat_map_iter`](Self::flat_map_iter) does without the intermediate `Vec`s. So an
    /// inner iterator is collected whole even when the consumer stops early: unlike rayon's,
    /// `flat_map(|a| (0..u64::MAX).into_par_iter()).find_any(..)` runs out of memory. An
    /// inner sequence without end needs `flat_map_iter`.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v: Vec<u32> = (1..4u32).into_par_iter().flat_map(|i| (0..i).into_par_iter()).collect();
    /// assert_eq!(v, [0, 0, 1, 0, 1, 2]);
    /// ```
    fn flat_map<F, PI>(self, map: F) -> FlatMap<Self, F>
    where
        F: Fn(Self::Item) -> PI + Sync + Send,
        PI: IntoParallelIterator,
    {
        FlatMap::new(self, map)
    }

    /// Yields the items of every item, in order, where each item is itself a parallel
    /// iterator or converts into one (rayon's `flatten`): `flat_map` with nothing to map.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let rows = vec![vec![1, 2], vec![], vec![3]];
    /// let v: Vec<i32> = rows.into_par_iter().flatten().collect();
    /// assert_eq!(v, [1, 2, 3]);
    /// ```
    fn flatten(self) -> Flatten<Self>
    where
        Self::Item: IntoParallelIterator,
    {
        Flatten::new(self)
    }

    /// Yields the items of every item, in order, where each item is a sequential iterator or
    /// converts into one (rayon's `flatten_iter`): `flat_map_iter` with nothing to map.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let rows = vec![vec![1, 2], vec![], vec![3]];
    /// let total: i32 = rows.par_iter().flatten_iter().sum();
    /// assert_eq!(total, 6);
    /// ```
    fn flatten_iter(self) -> FlattenIter<Self>
    where
        Self::Item: IntoIterator,
        <Self::Item as IntoIterator>::Item: Send,
    {
        FlattenIter::new(self)
    }

    /// The items of `self`, then those of `other` (rayon's `chain`). Indexed if both are.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let a = vec![1, 2];
    /// let v: Vec<i32> = a.par_iter().copied().chain(10..12).collect();
    /// assert_eq!(v, [1, 2, 10, 11]);
    /// ```
    fn chain<C>(self, other: C) -> Chain<Self, C::Iter>
    where
        C: IntoParallelIterator<Item = Self::Item>,
    {
        Chain::new(self, other.into_par_iter())
    }

    /// A clone of `separator` between every two items (rayon's `intersperse`). Indexed if
    /// `self` is; otherwise the items are collected in order first.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v: Vec<i32> = (1..4).into_par_iter().intersperse(0).collect();
    /// assert_eq!(v, [1, 0, 2, 0, 3]);
    /// let csv: String = ["a", "b"].par_iter().copied().intersperse(",").collect();
    /// assert_eq!(csv, "a,b");
    /// ```
    fn intersperse(self, separator: Self::Item) -> Intersperse<Self>
    where
        Self::Item: Clone,
    {
        Intersperse::new(self, separator)
    }

    /// Never splits the source into pieces shorter than `min` (in source items): for items
    /// so cheap that a piece needs many of them to be worth a fork.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let total: u64 = (0..100_000u64).into_par_iter().with_min_len(4096).sum();
    /// assert_eq!(total, 4_999_950_000);
    /// ```
    fn with_min_len(self, min: usize) -> MinLen<Self> {
        MinLen::new(self, min)
    }

    /// Splits the source until pieces are at most `max` items long (unless that would go
    /// below a minimum length): for items so expensive that each should be free to move.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let squares: Vec<u64> = (0..8u64).into_par_iter().with_max_len(1).map(|x| x * x).collect();
    /// assert_eq!(squares, [0, 1, 4, 9, 16, 25, 36, 49]);
    /// ```
    fn with_max_len(self, max: usize) -> MaxLen<Self> {
        MaxLen::new(self, max)
    }

    /// Folds the items of each piece into an accumulator started by `identity()`, and yields
    /// one accumulator per piece (how many depends on the split). Follow it with a `reduce`
    /// or `sum` to combine them.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let words = vec!["a", "bb", "ccc"];
    /// let total_len = words
    ///     .par_iter()
    ///     .fold(|| 0usize, |acc, w| acc + w.len())
    ///     .reduce(|| 0, |a, b| a + b);
    /// assert_eq!(total_len, 6);
    /// ```
    fn fold<T, ID, F>(self, identity: ID, fold_op: F) -> Fold<Self, ID, F>
    where
        ID: Fn() -> T + Sync + Send,
        F: Fn(T, Self::Item) -> T + Sync + Send,
        T: Send,
    {
        Fold::new(self, identity, fold_op)
    }

    /// Like [`fold`](Self::fold), starting each piece from a clone of `init`.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let longest = ["a", "bbb", "cc"]
    ///     .par_iter()
    ///     .fold_with(0usize, |acc, w| acc.max(w.len()))
    ///     .max();
    /// assert_eq!(longest, Some(3));
    /// ```
    fn fold_with<T, F>(self, init: T, fold_op: F) -> FoldWith<Self, T, F>
    where
        T: Clone + Send,
        F: Fn(T, Self::Item) -> T + Sync + Send,
    {
        FoldWith::new(self, init, fold_op)
    }

    /// Calls `op` on every item, in parallel.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// use std::sync::atomic::{AtomicU64, Ordering};
    /// let total = AtomicU64::new(0);
    /// (1..=100u64).into_par_iter().for_each(|x| {
    ///     total.fetch_add(x, Ordering::Relaxed);
    /// });
    /// assert_eq!(total.into_inner(), 5050);
    /// ```
    fn for_each<OP>(self, op: OP)
    where
        OP: Fn(Self::Item) + Sync + Send,
    {
        consumers::for_each(self, op)
    }

    /// The sum of the items (as `Iterator::sum`; an empty iterator sums to zero).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v: Vec<f64> = (0..1000).map(f64::from).collect();
    /// let sum: f64 = v.par_iter().sum();
    /// assert_eq!(sum, 499_500.0);
    /// ```
    fn sum<S>(self) -> S
    where
        S: Send + Sum<Self::Item> + Sum<S>,
    {
        consumers::sum(self)
    }

    /// The product of the items (as `Iterator::product`; empty: one).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let factorial: u64 = (1..=20u64).into_par_iter().product();
    /// assert_eq!(factorial, 2_432_902_008_176_640_000);
    /// ```
    fn product<P>(self) -> P
    where
        P: Send + Product<Self::Item> + Product<P>,
    {
        consumers::product(self)
    }

    /// The number of items.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let n = (0..1000u32).into_par_iter().filter(|x| x % 7 == 0).count();
    /// assert_eq!(n, 143);
    /// ```
    fn count(self) -> usize {
        consumers::count(self)
    }

    /// The least item (the first of several equal ones), or `None` if there are none.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// assert_eq!([5, 2, 9].par_iter().min(), Some(&2));
    /// ```
    fn min(self) -> Option<Self::Item>
    where
        Self::Item: Ord,
    {
        consumers::min_by(self, Ord::cmp)
    }

    /// The greatest item (the last of several equal ones), or `None` if there are none.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// assert_eq!([5, 2, 9].par_iter().max(), Some(&9));
    /// ```
    fn max(self) -> Option<Self::Item>
    where
        Self::Item: Ord,
    {
        consumers::max_by(self, Ord::cmp)
    }

    /// The least item by `compare` (the first of several equal ones).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v = [2.5f64, -1.0, 7.0];
    /// assert_eq!(v.par_iter().min_by(|a, b| a.total_cmp(b)), Some(&-1.0));
    /// ```
    fn min_by<F>(self, compare: F) -> Option<Self::Item>
    where
        F: Fn(&Self::Item, &Self::Item) -> Ordering + Sync + Send,
    {
        consumers::min_by(self, compare)
    }

    /// The greatest item by `compare` (the last of several equal ones).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v = [2.5f64, -1.0, 7.0];
    /// assert_eq!(v.par_iter().max_by(|a, b| a.total_cmp(b)), Some(&7.0));
    /// ```
    fn max_by<F>(self, compare: F) -> Option<Self::Item>
    where
        F: Fn(&Self::Item, &Self::Item) -> Ordering + Sync + Send,
    {
        consumers::max_by(self, compare)
    }

    /// The item with the least key (the first of several equal ones).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let words = ["ccc", "a", "bb"];
    /// assert_eq!(words.par_iter().min_by_key(|w| w.len()), Some(&"a"));
    /// ```
    fn min_by_key<K, F>(self, key: F) -> Option<Self::Item>
    where
        K: Ord + Send,
        F: Fn(&Self::Item) -> K + Sync + Send,
    {
        consumers::min_by_key(self, key)
    }

    /// The item with the greatest key (the last of several equal ones).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let words = ["ccc", "a", "bb"];
    /// assert_eq!(words.par_iter().max_by_key(|w| w.len()), Some(&"ccc"));
    /// ```
    fn max_by_key<K, F>(self, key: F) -> Option<Self::Item>
    where
        K: Ord + Send,
        F: Fn(&Self::Item) -> K + Sync + Send,
    {
        consumers::max_by_key(self, key)
    }

    /// Combines the items with the associative `op`, in order, each piece starting from
    /// `identity()` (which must be neutral for `op`); `identity()` for no items.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let longest = ["a", "ccc", "bb"]
    ///     .par_iter()
    ///     .map(|s| s.to_string())
    ///     .reduce(String::new, |a, b| if b.len() > a.len() { b } else { a });
    /// assert_eq!(longest, "ccc");
    /// ```
    fn reduce<OP, ID>(self, identity: ID, op: OP) -> Self::Item
    where
        OP: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
        ID: Fn() -> Self::Item + Sync + Send,
    {
        consumers::reduce(self, identity, op)
    }

    /// Combines the items with the associative `op`, in order; `None` for no items.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// assert_eq!((1..=4u32).into_par_iter().reduce_with(|a, b| a * b), Some(24));
    /// ```
    fn reduce_with<OP>(self, op: OP) -> Option<Self::Item>
    where
        OP: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
    {
        consumers::reduce_with(self, op)
    }

    /// True if `predicate` holds for some item; stops looking once one is found.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// assert!((0..1_000_000u32).into_par_iter().any(|x| x == 999_999));
    /// ```
    fn any<P>(self, predicate: P) -> bool
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        consumers::any(self, predicate)
    }

    /// True if `predicate` holds for every item (true for none); stops at the first failure.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// assert!([2, 4, 6].par_iter().all(|x| x % 2 == 0));
    /// ```
    fn all<P>(self, predicate: P) -> bool
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        !consumers::any(self, |item| !predicate(item))
    }

    /// Some item for which `predicate` holds (not necessarily the first); stops looking once
    /// one is found.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v = [1, 3, 4, 5];
    /// assert_eq!(v.par_iter().find_any(|&&x| x % 2 == 0), Some(&4));
    /// ```
    fn find_any<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        consumers::find_any(self, predicate)
    }

    /// rayon's deprecated `find`, kept so that ported code compiles: [`find_any`].
    ///
    /// [`find_any`]: ParallelIterator::find_any
    #[doc(hidden)]
    #[deprecated(note = "parallel `find` does not search in order: use `find_any`, \
                         `find_first` or `find_last`")]
    fn find<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        self.find_any(predicate)
    }

    /// The first item for which `predicate` holds; pieces after a hit are skipped.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v = [1, 4, 3, 6];
    /// assert_eq!(v.par_iter().find_first(|&&x| x % 2 == 0), Some(&4));
    /// ```
    fn find_first<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        consumers::find_first(self, predicate)
    }

    /// The last item for which `predicate` holds; pieces before a hit are skipped.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v = [1, 4, 3, 6, 7];
    /// assert_eq!(v.par_iter().find_last(|&&x| x % 2 == 0), Some(&6));
    /// ```
    fn find_last<P>(self, predicate: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        consumers::find_last(self, predicate)
    }

    /// Some `Some` value of `map` over the items (not necessarily the first); stops looking
    /// once one is found (rayon's `find_map_any`).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let words = ["a", "7", "b"];
    /// assert_eq!(words.par_iter().find_map_any(|w| w.parse::<u32>().ok()), Some(7));
    /// ```
    fn find_map_any<F, R>(self, map: F) -> Option<R>
    where
        F: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.filter_map(map).find_any(|_| true)
    }

    /// The first `Some` value of `map` over the items, in order (rayon's `find_map_first`).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let words = ["a", "7", "b", "9"];
    /// assert_eq!(words.par_iter().find_map_first(|w| w.parse::<u32>().ok()), Some(7));
    /// ```
    fn find_map_first<F, R>(self, map: F) -> Option<R>
    where
        F: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.filter_map(map).find_first(|_| true)
    }

    /// The last `Some` value of `map` over the items, in order (rayon's `find_map_last`).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let words = ["a", "7", "b", "9"];
    /// assert_eq!(words.par_iter().find_map_last(|w| w.parse::<u32>().ok()), Some(9));
    /// ```
    fn find_map_last<F, R>(self, map: F) -> Option<R>
    where
        F: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.filter_map(map).find_last(|_| true)
    }

    /// The values inside the items, stopping at a `None` (rayon's `while_some`). Once any
    /// piece meets a `None`, every piece stops at its next item, so which values come through
    /// (before or after the first `None` in order) depends on the schedule; without a `None`,
    /// all of them do.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let parsed: Vec<u32> =
    ///     ["1", "2", "3"].par_iter().map(|s| s.parse().ok()).while_some().collect();
    /// assert_eq!(parsed, [1, 2, 3]);
    /// ```
    fn while_some<T>(self) -> WhileSome<Self>
    where
        Self: ParallelIterator<Item = Option<T>>,
        T: Send,
    {
        WhileSome::new(self)
    }

    /// At most `n` of the items, whichever the pieces reach first (rayon's `take_any`); the
    /// pieces stop once `n` have been taken. For the first `n` in order, use
    /// [`take`](super::IndexedParallelIterator::take).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let some: Vec<u32> = (0..1000u32).into_par_iter().filter(|x| x % 3 == 0).take_any(5).collect();
    /// assert_eq!(some.len(), 5);
    /// assert!(some.iter().all(|x| x % 3 == 0));
    /// ```
    fn take_any(self, n: usize) -> TakeAny<Self> {
        TakeAny::new(self, n)
    }

    /// All but `n` of the items, whichever the pieces reach first being left out (rayon's
    /// `skip_any`). For all but the first `n` in order, use
    /// [`skip`](super::IndexedParallelIterator::skip).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// assert_eq!((0..1000u32).into_par_iter().skip_any(10).count(), 990);
    /// ```
    fn skip_any(self, n: usize) -> SkipAny<Self> {
        SkipAny::new(self, n)
    }

    /// Yields items while `predicate` holds: once it fails for some item, the iteration stops
    /// yielding (rayon's `take_any_while`). Which items pass before that depends on the
    /// schedule: items after the failing one in order may pass, and items before it may not.
    /// Every item that passes satisfies `predicate`.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let small: Vec<u32> = (0..1000u32).into_par_iter().take_any_while(|&x| x < 100).collect();
    /// assert!(small.iter().all(|&x| x < 100));
    /// ```
    fn take_any_while<P>(self, predicate: P) -> TakeAnyWhile<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        TakeAnyWhile::new(self, predicate)
    }

    /// Skips items while `predicate` holds: once it fails for some item, every item from then
    /// on passes (rayon's `skip_any_while`). Which items are skipped before that depends on the
    /// schedule; every item for which `predicate` fails passes.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let v: Vec<u32> = (0..1000u32).into_par_iter().skip_any_while(|&x| x < 100).collect();
    /// assert!((100..1000).all(|x| v.contains(&x)));
    /// ```
    fn skip_any_while<P>(self, predicate: P) -> SkipAnyWhile<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        SkipAnyWhile::new(self, predicate)
    }

    /// Stops every piece soon after an item panics (in the adaptors before `panic_fuse` or in
    /// the consumer after it): the pieces check a shared flag before each item and yield no
    /// more once it is up. The panic reaches the caller either way, once the pieces running
    /// beside the panicking one have returned; without the fuse they run to their ends first,
    /// which for long pieces of slow items is a long wait for a result that is lost anyway.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// assert_eq!((1..=4u32).into_par_iter().panic_fuse().sum::<u32>(), 10);
    ///
    /// let ran = AtomicUsize::new(0);
    /// let result = std::panic::catch_unwind(|| {
    ///     (0..1_000_000u32).into_par_iter().panic_fuse().for_each(|i| {
    ///         ran.fetch_add(1, Ordering::Relaxed);
    ///         assert!(i != 10, "item 10 failed");
    ///     })
    /// });
    /// assert!(result.is_err());
    /// assert!(ran.into_inner() < 1_000_000);
    /// ```
    fn panic_fuse(self) -> PanicFuse<Self> {
        PanicFuse::new(self)
    }

    /// Collects the items, in order, into any [`FromParallelIterator`] collection: `Vec`
    /// (written in place when the length is known), `String`, maps and sets, `Result` and
    /// `Option` of a collection.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let squares: Vec<u64> = (0..5u64).into_par_iter().map(|x| x * x).collect();
    /// assert_eq!(squares, [0, 1, 4, 9, 16]);
    /// ```
    fn collect<C>(self) -> C
    where
        C: FromParallelIterator<Self::Item>,
    {
        C::from_par_iter(self)
    }

    /// Splits the items into those for which `predicate` holds and the others, each in order
    /// (rayon's `partition`).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let (even, odd): (Vec<u32>, Vec<u32>) = (0..7u32).into_par_iter().partition(|x| x % 2 == 0);
    /// assert_eq!((even, odd), (vec![0, 2, 4, 6], vec![1, 3, 5]));
    /// ```
    fn partition<A, B, P>(self, predicate: P) -> (A, B)
    where
        A: Default + Send + ParallelExtend<Self::Item>,
        B: Default + Send + ParallelExtend<Self::Item>,
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        self.partition_map(|item| {
            if predicate(&item) {
                Either::Left(item)
            } else {
                Either::Right(item)
            }
        })
    }

    /// Maps every item to [`Either`] and collects the `Left` values into one collection and
    /// the `Right` values into the other, each in order (rayon's `partition_map`).
    ///
    /// ```
    /// use blitz::iter::Either;
    /// use blitz::prelude::*;
    /// let (numbers, words): (Vec<i32>, Vec<&str>) = ["1", "two", "3"]
    ///     .par_iter()
    ///     .partition_map(|s| match s.parse::<i32>() {
    ///         Ok(n) => Either::Left(n),
    ///         Err(_) => Either::Right(*s),
    ///     });
    /// assert_eq!((numbers, words), (vec![1, 3], vec!["two"]));
    /// ```
    fn partition_map<A, B, P, L, R>(self, predicate: P) -> (A, B)
    where
        A: Default + Send + ParallelExtend<L>,
        B: Default + Send + ParallelExtend<R>,
        P: Fn(Self::Item) -> Either<L, R> + Sync + Send,
        L: Send,
        R: Send,
    {
        let (left, right) = collect::partition_map_pieces(self, predicate);
        let (mut a, mut b) = (A::default(), B::default());
        a.par_extend_gathered(left);
        b.par_extend_gathered(right);
        (a, b)
    }

    /// Splits pairs into two collections, in order.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let (small, big): (Vec<u32>, Vec<u32>) =
    ///     (0..4u32).into_par_iter().map(|x| (x, x * 100)).unzip();
    /// assert_eq!(small, [0, 1, 2, 3]);
    /// assert_eq!(big, [0, 100, 200, 300]);
    /// ```
    fn unzip<A, B, FromA, FromB>(self) -> (FromA, FromB)
    where
        Self: ParallelIterator<Item = (A, B)>,
        A: Send,
        B: Send,
        FromA: Default + Send + ParallelExtend<A>,
        FromB: Default + Send + ParallelExtend<B>,
    {
        // Into `Vec`s (written in place when the length is known), which a `Vec` target then
        // takes as they are.
        let (a, b): (Vec<A>, Vec<B>) = collect::unzip(self);
        let (mut from_a, mut from_b) = (FromA::default(), FromB::default());
        from_a.par_extend_gathered(vec![a]);
        from_b.par_extend_gathered(vec![b]);
        (from_a, from_b)
    }

    /// Calls the fallible `op` on every item until one fails (returns `Err` or `None`); then
    /// stops looking and returns one of the failures.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let checked = (0..100u32).into_par_iter().try_for_each(|x| {
    ///     if x == 42 { Err(x) } else { Ok(()) }
    /// });
    /// assert_eq!(checked, Err(42));
    /// ```
    fn try_for_each<OP, R>(self, op: OP) -> R
    where
        OP: Fn(Self::Item) -> R + Sync + Send,
        R: Try<Output = ()> + Send,
    {
        try_ops::try_for_each(self, op)
    }

    /// Calls the fallible `op` on every item with a value of its own, cloned from `init` for
    /// every piece, until one fails (rayon's `try_for_each_with`).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// use std::sync::mpsc::channel;
    /// let (sender, receiver) = channel();
    /// let sent = (0..5u32).into_par_iter().try_for_each_with(sender, |s, x| s.send(x));
    /// assert!(sent.is_ok());
    /// assert_eq!(receiver.iter().count(), 5);
    /// ```
    fn try_for_each_with<T, OP, R>(self, init: T, op: OP) -> R
    where
        T: Clone + Send,
        OP: Fn(&mut T, Self::Item) -> R + Sync + Send,
        R: Try<Output = ()> + Send,
    {
        self.map_with(init, op).try_for_each(|result| result)
    }

    /// Calls the fallible `op` on every item with a value of its own, made by `init` once per
    /// piece, until one fails (rayon's `try_for_each_init`).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let checked = (0..100u32).into_par_iter().try_for_each_init(
    ///     || 7u32,
    ///     |seven, x| if x == *seven { Err(x) } else { Ok(()) },
    /// );
    /// assert_eq!(checked, Err(7));
    /// ```
    fn try_for_each_init<INIT, T, OP, R>(self, init: INIT, op: OP) -> R
    where
        INIT: Fn() -> T + Sync + Send,
        OP: Fn(&mut T, Self::Item) -> R + Sync + Send,
        R: Try<Output = ()> + Send,
    {
        self.map_init(init, op).try_for_each(|result| result)
    }

    /// Calls `op` on every item with a value of its own, made by `init` once per piece
    /// (rayon's `for_each_init`; for a buffer or a random number generator).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// use std::sync::atomic::{AtomicU64, Ordering};
    /// let total = AtomicU64::new(0);
    /// (1..=4u64).into_par_iter().for_each_init(Vec::new, |buffer, x| {
    ///     buffer.push(x);
    ///     total.fetch_add(x, Ordering::Relaxed);
    /// });
    /// assert_eq!(total.into_inner(), 10);
    /// ```
    fn for_each_init<INIT, T, OP>(self, init: INIT, op: OP)
    where
        INIT: Fn() -> T + Sync + Send,
        OP: Fn(&mut T, Self::Item) + Sync + Send,
    {
        self.map_init(init, op).for_each(|()| ());
    }

    /// Folds the items of each piece with the fallible `fold_op`, from an accumulator made by
    /// `identity`, and yields one result per piece: the accumulator, or the piece's first
    /// failure (rayon's `try_fold`). Follow it with a `try_reduce`.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let sum = (1..=100u32)
    ///     .into_par_iter()
    ///     .try_fold(|| 0u32, |acc, x| acc.checked_add(x))
    ///     .try_reduce(|| 0, |a, b| a.checked_add(b));
    /// assert_eq!(sum, Some(5050));
    /// let overflow = (1..=100u8)
    ///     .into_par_iter()
    ///     .try_fold(|| 0u8, |acc, x| acc.checked_add(x))
    ///     .try_reduce(|| 0, |a, b| a.checked_add(b));
    /// assert_eq!(overflow, None);
    /// ```
    fn try_fold<T, R, ID, F>(self, identity: ID, fold_op: F) -> TryFold<Self, ID, F>
    where
        ID: Fn() -> T + Sync + Send,
        F: Fn(T, Self::Item) -> R + Sync + Send,
        R: Try<Output = T> + Send,
    {
        TryFold::new(self, identity, fold_op)
    }

    /// Like [`try_fold`](Self::try_fold), starting each piece from a clone of `init`.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let lengths: Result<usize, String> = ["a", "bb", "ccc"]
    ///     .par_iter()
    ///     .try_fold_with(0usize, |acc, w| Ok(acc + w.len()))
    ///     .try_reduce(|| 0, |a, b| Ok(a + b));
    /// assert_eq!(lengths, Ok(6));
    /// ```
    fn try_fold_with<T, R, F>(self, init: T, fold_op: F) -> TryFoldWith<Self, T, F>
    where
        T: Clone + Send,
        F: Fn(T, Self::Item) -> R + Sync + Send,
        R: Try<Output = T> + Send,
    {
        TryFoldWith::new(self, init, fold_op)
    }

    /// Combines fallible items with the fallible associative `op`, in order, until something
    /// fails (an item or a combination is `Err` or `None`); then stops and returns a failure.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let sum = (1..=10u8).into_par_iter().map(Some).try_reduce(|| 0, |a, b| a.checked_add(b));
    /// assert_eq!(sum, Some(55));
    /// let overflow = (1..=100u8).into_par_iter().map(Some).try_reduce(|| 0, |a, b| a.checked_add(b));
    /// assert_eq!(overflow, None);
    /// ```
    fn try_reduce<T, OP, ID>(self, identity: ID, op: OP) -> Self::Item
    where
        OP: Fn(T, T) -> Self::Item + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        Self::Item: Try<Output = T>,
        T: Send,
    {
        try_ops::try_reduce(self, identity, op)
    }

    /// Like [`try_reduce`](Self::try_reduce) without an identity: the items are combined from
    /// the first; `None` if there are none.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let parsed: Option<Result<i32, _>> =
    ///     ["1", "2", "3"].par_iter().map(|s| s.parse::<i32>()).try_reduce_with(|a, b| Ok(a + b));
    /// assert_eq!(parsed, Some(Ok(6)));
    /// let none: Option<Option<u8>> = blitz::iter::empty().try_reduce_with(|a: u8, b| a.checked_add(b));
    /// assert_eq!(none, None);
    /// ```
    fn try_reduce_with<T, OP>(self, op: OP) -> Option<Self::Item>
    where
        OP: Fn(T, T) -> Self::Item + Sync + Send,
        Self::Item: Try<Output = T>,
        T: Send,
    {
        try_ops::try_reduce_with(self, op)
    }

    /// Collects the items, in order, as a list of `Vec`s: one per piece of the split (how
    /// many depends on the schedule), none empty (rayon's `collect_vec_list`). Cheaper than a
    /// `collect` into one `Vec` when the items are only walked afterwards.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let list = (0..1000u32).into_par_iter().filter(|x| x % 7 == 0).collect_vec_list();
    /// let flat: Vec<u32> = list.into_iter().flatten().collect();
    /// assert_eq!(flat, (0..1000u32).filter(|x| x % 7 == 0).collect::<Vec<_>>());
    /// ```
    fn collect_vec_list(self) -> LinkedList<Vec<Self::Item>> {
        collect::collect_pieces(self).into_iter().collect()
    }
}
