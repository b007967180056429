//! The adaptors that work on any parallel iterator: `map`, `filter`, `filter_map`, `copied`,
//! `cloned`, `flat_map_iter`, `with_min_len`, `with_max_len`, `fold`, `fold_with`.
//!
//! Each is three things: the iterator (owns the base and the closure), a callback that wraps
//! the base's producer on its way to the consumer, and the producer (borrows the closure, splits
//! with the base, and runs a piece as the matching `std::iter` adaptor).

use super::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator, ProducerCallback};
use crate::loops::ParallelSource;

/// Implements `ParallelSource` for a producer whose splitting is its `base`'s, the other
/// fields being copied into both halves.
macro_rules! forward_source {
    ($producer:ident<$($lt:lifetime,)? $($param:ident),*> { $($field:ident),* }
        where $($bound:tt)*) => {
        impl<$($lt,)? $($param),*> ParallelSource for $producer<$($lt,)? $($param),*>
        where
            Self: IntoIterator,
            $($bound)*
        {
            fn par_len(&self) -> usize {
                self.base.par_len()
            }

            fn par_split_at(self, index: usize) -> (Self, Self) {
                let (left, right) = self.base.par_split_at(index);
                (
                    $producer { base: left, $($field: self.$field.clone()),* },
                    $producer { base: right, $($field: self.$field),* },
                )
            }

            fn par_min_len(&self) -> usize {
                self.base.par_min_len()
            }

            fn par_max_len(&self) -> usize {
                self.base.par_max_len()
            }
        }
    };
}
pub(super) use forward_source;

/// Implements `IndexedParallelIterator` for an adaptor that keeps one item per base item.
macro_rules! indexed_like_base {
    (impl<$($lt:lifetime,)? $($param:ident),*> for $adaptor:ty where $($bound:tt)*) => {
        impl<$($lt,)? $($param),*> IndexedParallelIterator for $adaptor
        where
            $($bound)*
        {
            fn len(&self) -> usize {
                self.base.len()
            }
        }
    };
}

/// The iterator of [`ParallelIterator::map`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Map<I, F> {
    base: I,
    map: F,
}

impl<I, F> Map<I, F> {
    pub(super) fn new(base: I, map: F) -> Self {
        Map { base, map }
    }
}

impl<I, F, R> ParallelIterator for Map<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> R + Sync + Send,
    R: Send,
{
    type Item = R;

    fn with_producer<CB: ProducerCallback<R>>(self, callback: CB) -> CB::Output {
        let Map { base, map } = self;
        return base.with_producer(Callback {
            callback,
            map: &map,
        });

        struct Callback<'f, CB, F> {
            callback: CB,
            map: &'f F,
        }

        impl<'f, T, R, CB, F> ProducerCallback<T> for Callback<'f, CB, F>
        where
            CB: ProducerCallback<R>,
            F: Fn(T) -> R + Sync,
        {
            type Output = CB::Output;

            fn call<P>(self, base: P) -> CB::Output
            where
                P: ParallelSource + IntoIterator<Item = T>,
            {
                self.callback.call(MapProducer {
                    base,
                    map: self.map,
                })
            }
        }
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

indexed_like_base!(impl<I, F, R> for Map<I, F> where I: IndexedParallelIterator, F: Fn(I::Item) -> R + Sync + Send, R: Send);

struct MapProducer<'f, P, F> {
    base: P,
    map: &'f F,
}

forward_source!(MapProducer<'f, P, F> { map } where P: ParallelSource, F: Sync);

impl<'f, P, F, R> IntoIterator for MapProducer<'f, P, F>
where
    P: IntoIterator,
    F: Fn(P::Item) -> R,
{
    type Item = R;
    type IntoIter = std::iter::Map<P::IntoIter, &'f F>;

    fn into_iter(self) -> Self::IntoIter {
        self.base.into_iter().map(self.map)
    }
}

/// The iterator of [`ParallelIterator::map_with`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct MapWith<I, T, F> {
    base: I,
    init: T,
    map: F,
}

impl<I, T, F> MapWith<I, T, F> {
    pub(super) fn new(base: I, init: T, map: F) -> Self {
        MapWith { base, init, map }
    }
}

impl<I, T, F, R> ParallelIterator for MapWith<I, T, F>
where
    I: ParallelIterator,
    T: Clone + Send,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
    R: Send,
{
    type Item = R;

    fn with_producer<CB: ProducerCallback<R>>(self, callback: CB) -> CB::Output {
        let MapWith { base, init, map } = self;
        return base.with_producer(Callback {
            callback,
            init,
            map: &map,
        });

        struct Callback<'f, CB, T, F> {
            callback: CB,
            init: T,
            map: &'f F,
        }

        impl<'f, U, R, CB, T, F> ProducerCallback<U> for Callback<'f, CB, T, F>
        where
            CB: ProducerCallback<R>,
            T: Clone + Send,
            F: Fn(&mut T, U) -> R + Sync,
        {
            type Output = CB::Output;

            fn call<P>(self, base: P) -> CB::Output
            where
                P: ParallelSource + IntoIterator<Item = U>,
            {
                self.callback.call(MapWithProducer {
                    base,
                    init: self.init,
                    map: self.map,
                })
            }
        }
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

indexed_like_base!(impl<I, T, F, R> for MapWith<I, T, F> where I: IndexedParallelIterator, T: Clone + Send, F: Fn(&mut T, I::Item) -> R + Sync + Send, R: Send);

/// A piece of a `map_with`: each split clones the value, so every piece runs with its own.
struct MapWithProducer<'f, P, T, F> {
    base: P,
    init: T,
    map: &'f F,
}

forward_source!(MapWithProducer<'f, P, T, F> { init, map } where P: ParallelSource, T: Clone + Send, F: Sync);

impl<'f, P, T, F, R> IntoIterator for MapWithProducer<'f, P, T, F>
where
    P: IntoIterator,
    F: Fn(&mut T, P::Item) -> R,
{
    type Item = R;
    type IntoIter = MapWithIter<'f, P::IntoIter, T, F>;

    fn into_iter(self) -> Self::IntoIter {
        MapWithIter {
            base: self.base.into_iter(),
            state: self.init,
            map: self.map,
        }
    }
}

/// The sequential side of a `map_with` piece.
struct MapWithIter<'f, It, T, F> {
    base: It,
    state: T,
    map: &'f F,
}

impl<It: Iterator, T, F: Fn(&mut T, It::Item) -> R, R> Iterator for MapWithIter<'_, It, T, F> {
    type Item = R;

    fn next(&mut self) -> Option<R> {
        let item = self.base.next()?;
        Some((self.map)(&mut self.state, item))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.base.size_hint()
    }
}

/// The iterator of [`ParallelIterator::inspect`]: a [`Map`] that hands each item back.
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Inspect<I, F> {
    base: I,
    inspect: F,
}

impl<I, F> Inspect<I, F> {
    pub(super) fn new(base: I, inspect: F) -> Self {
        Inspect { base, inspect }
    }
}

impl<I, F> ParallelIterator for Inspect<I, F>
where
    I: ParallelIterator,
    F: Fn(&I::Item) + Sync + Send,
{
    type Item = I::Item;

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let inspect = self.inspect;
        Map::new(self.base, move |item| {
            inspect(&item);
            item
        })
        .with_producer(callback)
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

indexed_like_base!(impl<I, F> for Inspect<I, F> where I: IndexedParallelIterator, F: Fn(&I::Item) + Sync + Send);

/// The iterator of [`ParallelIterator::filter`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Filter<I, P> {
    base: I,
    predicate: P,
}

impl<I, P> Filter<I, P> {
    pub(super) fn new(base: I, predicate: P) -> Self {
        Filter { base, predicate }
    }
}

impl<I, F> ParallelIterator for Filter<I, F>
where
    I: ParallelIterator,
    F: Fn(&I::Item) -> bool + Sync + Send,
{
    type Item = I::Item;

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let Filter { base, predicate } = self;
        return base.with_producer(Callback {
            callback,
            predicate: &predicate,
        });

        struct Callback<'f, CB, F> {
            callback: CB,
            predicate: &'f F,
        }

        impl<'f, T, CB, F> ProducerCallback<T> for Callback<'f, CB, F>
        where
            CB: ProducerCallback<T>,
            F: Fn(&T) -> bool + Sync,
        {
            type Output = CB::Output;

            fn call<P>(self, base: P) -> CB::Output
            where
                P: ParallelSource + IntoIterator<Item = T>,
            {
                self.callback.call(FilterProducer {
                    base,
                    predicate: self.predicate,
                })
            }
        }
    }
}

struct FilterProducer<'f, P, F> {
    base: P,
    predicate: &'f F,
}

forward_source!(FilterProducer<'f, P, F> { predicate } where P: ParallelSource, F: Sync);

impl<'f, P, F> IntoIterator for FilterProducer<'f, P, F>
where
    P: IntoIterator,
    F: Fn(&P::Item) -> bool,
{
    type Item = P::Item;
    type IntoIter = std::iter::Filter<P::IntoIter, &'f F>;

    fn into_iter(self) -> Self::IntoIter {
        self.base.into_iter().filter(self.predicate)
    }
}

/// The iterator of [`ParallelIterator::filter_map`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct FilterMap<I, F> {
    base: I,
    filter_map: F,
}

impl<I, F> FilterMap<I, F> {
    pub(super) fn new(base: I, filter_map: F) -> Self {
        FilterMap { base, filter_map }
    }
}

impl<I, F, R> ParallelIterator for FilterMap<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> Option<R> + Sync + Send,
    R: Send,
{
    type Item = R;

    fn with_producer<CB: ProducerCallback<R>>(self, callback: CB) -> CB::Output {
        let FilterMap { base, filter_map } = self;
        return base.with_producer(Callback {
            callback,
            filter_map: &filter_map,
        });

        struct Callback<'f, CB, F> {
            callback: CB,
            filter_map: &'f F,
        }

        impl<'f, T, R, CB, F> ProducerCallback<T> for Callback<'f, CB, F>
        where
            CB: ProducerCallback<R>,
            F: Fn(T) -> Option<R> + Sync,
        {
            type Output = CB::Output;

            fn call<P>(self, base: P) -> CB::Output
            where
                P: ParallelSource + IntoIterator<Item = T>,
            {
                self.callback.call(FilterMapProducer {
                    base,
                    filter_map: self.filter_map,
                })
            }
        }
    }
}

struct FilterMapProducer<'f, P, F> {
    base: P,
    filter_map: &'f F,
}

forward_source!(FilterMapProducer<'f, P, F> { filter_map } where P: ParallelSource, F: Sync);

impl<'f, P, F, R> IntoIterator for FilterMapProducer<'f, P, F>
where
    P: IntoIterator,
    F: Fn(P::Item) -> Option<R>,
{
    type Item = R;
    type IntoIter = std::iter::FilterMap<P::IntoIter, &'f F>;

    fn into_iter(self) -> Self::IntoIter {
        self.base.into_iter().filter_map(self.filter_map)
    }
}

/// The iterator of [`ParallelIterator::flat_map`]: [`FlatMapIter`] over each item's
/// iterator collected into a `Vec`.
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct FlatMap<I, F> {
    base: I,
    map: F,
}

impl<I, F> FlatMap<I, F> {
    pub(super) fn new(base: I, map: F) -> Self {
        FlatMap { base, map }
    }
}

impl<I, F, PI> ParallelIterator for FlatMap<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> PI + Sync + Send,
    PI: IntoParallelIterator,
{
    type Item = PI::Item;

    fn with_producer<CB: ProducerCallback<PI::Item>>(self, callback: CB) -> CB::Output {
        let map = self.map;
        FlatMapIter::new(self.base, move |item| {
            map(item).into_par_iter().collect::<Vec<PI::Item>>()
        })
        .with_producer(callback)
    }
}

/// The iterator of [`ParallelIterator::flat_map_iter`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct FlatMapIter<I, F> {
    base: I,
    map: F,
}

impl<I, F> FlatMapIter<I, F> {
    pub(super) fn new(base: I, map: F) -> Self {
        FlatMapIter { base, map }
    }
}

impl<I, F, U> ParallelIterator for FlatMapIter<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> U + Sync + Send,
    U: IntoIterator,
    U::Item: Send,
{
    type Item = U::Item;

    fn with_producer<CB: ProducerCallback<U::Item>>(self, callback: CB) -> CB::Output {
        let FlatMapIter { base, map } = self;
        return base.with_producer(Callback {
            callback,
            map: &map,
        });

        struct Callback<'f, CB, F> {
            callback: CB,
            map: &'f F,
        }

        impl<'f, T, U, CB, F> ProducerCallback<T> for Callback<'f, CB, F>
        where
            CB: ProducerCallback<U::Item>,
            F: Fn(T) -> U + Sync,
            U: IntoIterator,
        {
            type Output = CB::Output;

            fn call<P>(self, base: P) -> CB::Output
            where
                P: ParallelSource + IntoIterator<Item = T>,
            {
                self.callback.call(FlatMapIterProducer {
                    base,
                    map: self.map,
                })
            }
        }
    }
}

struct FlatMapIterProducer<'f, P, F> {
    base: P,
    map: &'f F,
}

forward_source!(FlatMapIterProducer<'f, P, F> { map } where P: ParallelSource, F: Sync);

impl<'f, P, F, U> IntoIterator for FlatMapIterProducer<'f, P, F>
where
    P: IntoIterator,
    F: Fn(P::Item) -> U,
    U: IntoIterator,
{
    type Item = U::Item;
    type IntoIter = std::iter::FlatMap<P::IntoIter, U, &'f F>;

    fn into_iter(self) -> Self::IntoIter {
        self.base.into_iter().flat_map(self.map)
    }
}

/// `copied` and `cloned`: an adaptor from `&T` to `T` that is a `std::iter` adaptor on each
/// piece, with no closure of its own.
macro_rules! by_value_adaptor {
    ($(#[$doc:meta])* $adaptor:ident, $producer:ident, $bound:ident, $std:ident, $method:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        #[must_use = "parallel iterators do nothing until consumed"]
        pub struct $adaptor<I> {
            base: I,
        }

        impl<I> $adaptor<I> {
            pub(super) fn new(base: I) -> Self {
                $adaptor { base }
            }
        }

        impl<'a, I, T> ParallelIterator for $adaptor<I>
        where
            I: ParallelIterator<Item = &'a T>,
            T: 'a + $bound + Send + Sync,
        {
            type Item = T;

            fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
                return self.base.with_producer(Callback { callback });

                struct Callback<CB> {
                    callback: CB,
                }

                impl<'a, T, CB> ProducerCallback<&'a T> for Callback<CB>
                where
                    CB: ProducerCallback<T>,
                    T: 'a + $bound,
                {
                    type Output = CB::Output;

                    fn call<P>(self, base: P) -> CB::Output
                    where
                        P: ParallelSource + IntoIterator<Item = &'a T>,
                    {
                        self.callback.call($producer { base })
                    }
                }
            }

            fn opt_len(&self) -> Option<usize> {
                self.base.opt_len()
            }
        }

        indexed_like_base!(impl<'a, I, T> for $adaptor<I>
            where I: IndexedParallelIterator<Item = &'a T>, T: 'a + $bound + Send + Sync);

        struct $producer<P> {
            base: P,
        }

        forward_source!($producer<P> {} where P: ParallelSource);

        impl<'a, P, T> IntoIterator for $producer<P>
        where
            P: IntoIterator<Item = &'a T>,
            T: 'a + $bound,
        {
            type Item = T;
            type IntoIter = std::iter::$std<P::IntoIter>;

            fn into_iter(self) -> Self::IntoIter {
                self.base.into_iter().$method()
            }
        }
    };
}

by_value_adaptor!(
    /// The iterator of [`ParallelIterator::copied`].
    Copied, CopiedProducer, Copy, Copied, copied
);
by_value_adaptor!(
    /// The iterator of [`ParallelIterator::cloned`].
    Cloned, ClonedProducer, Clone, Cloned, cloned
);

/// The iterator of [`ParallelIterator::with_min_len`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct MinLen<I> {
    base: I,
    min: usize,
}

impl<I> MinLen<I> {
    pub(super) fn new(base: I, min: usize) -> Self {
        MinLen { base, min }
    }
}

/// The iterator of [`ParallelIterator::with_max_len`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct MaxLen<I> {
    base: I,
    max: usize,
}

impl<I> MaxLen<I> {
    pub(super) fn new(base: I, max: usize) -> Self {
        MaxLen { base, max }
    }
}

/// A producer with its own bounds on piece lengths (`with_min_len` and `with_max_len`).
struct BoundsProducer<P> {
    base: P,
    min: usize,
    max: usize,
}

impl<P: ParallelSource> ParallelSource for BoundsProducer<P> {
    fn par_len(&self) -> usize {
        self.base.par_len()
    }

    fn par_split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.par_split_at(index);
        let (min, max) = (self.min, self.max);
        (
            BoundsProducer {
                base: left,
                min,
                max,
            },
            BoundsProducer {
                base: right,
                min,
                max,
            },
        )
    }

    fn par_min_len(&self) -> usize {
        self.min.max(self.base.par_min_len())
    }

    fn par_max_len(&self) -> usize {
        self.max.min(self.base.par_max_len())
    }
}

impl<P: IntoIterator> IntoIterator for BoundsProducer<P> {
    type Item = P::Item;
    type IntoIter = P::IntoIter;

    fn into_iter(self) -> P::IntoIter {
        self.base.into_iter()
    }
}

/// The callback of `MinLen` and `MaxLen`.
struct BoundsCallback<CB> {
    callback: CB,
    min: usize,
    max: usize,
}

impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for BoundsCallback<CB> {
    type Output = CB::Output;

    fn call<P>(self, base: P) -> CB::Output
    where
        P: ParallelSource + IntoIterator<Item = T>,
    {
        self.callback.call(BoundsProducer {
            base,
            min: self.min,
            max: self.max,
        })
    }
}

impl<I: ParallelIterator> ParallelIterator for MinLen<I> {
    type Item = I::Item;

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        self.base.with_producer(BoundsCallback {
            callback,
            min: self.min,
            max: usize::MAX,
        })
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

indexed_like_base!(impl<I> for MinLen<I> where I: IndexedParallelIterator);

impl<I: ParallelIterator> ParallelIterator for MaxLen<I> {
    type Item = I::Item;

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        self.base.with_producer(BoundsCallback {
            callback,
            min: 1,
            max: self.max,
        })
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

indexed_like_base!(impl<I> for MaxLen<I> where I: IndexedParallelIterator);

/// The iterator of [`ParallelIterator::fold`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Fold<I, ID, F> {
    base: I,
    identity: ID,
    fold_op: F,
}

impl<I, ID, F> Fold<I, ID, F> {
    pub(super) fn new(base: I, identity: ID, fold_op: F) -> Self {
        Fold {
            base,
            identity,
            fold_op,
        }
    }
}

impl<I, ID, F, T> ParallelIterator for Fold<I, ID, F>
where
    I: ParallelIterator,
    ID: Fn() -> T + Sync + Send,
    F: Fn(T, I::Item) -> T + Sync + Send,
    T: Send,
{
    type Item = T;

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        let Fold {
            base,
            identity,
            fold_op,
        } = self;
        let start = || identity();
        base.with_producer(FoldCallback {
            callback,
            start: &start,
            fold_op: &fold_op,
        })
    }
}

/// The iterator of [`ParallelIterator::fold_with`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct FoldWith<I, T, F> {
    base: I,
    init: T,
    fold_op: F,
}

impl<I, T, F> FoldWith<I, T, F> {
    pub(super) fn new(base: I, init: T, fold_op: F) -> Self {
        FoldWith {
            base,
            init,
            fold_op,
        }
    }
}

impl<I, T, F> ParallelIterator for FoldWith<I, T, F>
where
    I: ParallelIterator,
    T: Clone + Send + Sync,
    F: Fn(T, I::Item) -> T + Sync + Send,
{
    type Item = T;

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        let FoldWith {
            base,
            init,
            fold_op,
        } = self;
        let start = || init.clone();
        base.with_producer(FoldCallback {
            callback,
            start: &start,
            fold_op: &fold_op,
        })
    }
}

/// The callback of `Fold` and `FoldWith`: `start` makes each piece's accumulator.
struct FoldCallback<'f, CB, S, F> {
    callback: CB,
    start: &'f S,
    fold_op: &'f F,
}

impl<'f, T, A, CB, S, F> ProducerCallback<T> for FoldCallback<'f, CB, S, F>
where
    CB: ProducerCallback<A>,
    S: Fn() -> A + Sync,
    F: Fn(A, T) -> A + Sync,
{
    type Output = CB::Output;

    fn call<P>(self, base: P) -> CB::Output
    where
        P: ParallelSource + IntoIterator<Item = T>,
    {
        self.callback.call(FoldProducer {
            base,
            start: self.start,
            fold_op: self.fold_op,
        })
    }
}

/// Yields one item per piece: the piece's items folded into a fresh accumulator.
struct FoldProducer<'f, P, S, F> {
    base: P,
    start: &'f S,
    fold_op: &'f F,
}

forward_source!(FoldProducer<'f, P, S, F> { start, fold_op } where P: ParallelSource, S: Sync, F: Sync);

impl<'f, P, S, F, A> IntoIterator for FoldProducer<'f, P, S, F>
where
    P: IntoIterator,
    S: Fn() -> A,
    F: Fn(A, P::Item) -> A,
{
    type Item = A;
    type IntoIter = std::iter::Once<A>;

    fn into_iter(self) -> Self::IntoIter {
        std::iter::once(self.base.into_iter().fold((self.start)(), self.fold_op))
    }
}
