//! The adaptors that change how many items there are or how they are grouped: `filter`,
//! `filter_map`, `flat_map`, `flat_map_iter`, `flatten`, `flatten_iter`, `with_min_len`, `with_max_len`, `fold`,
//! `fold_with`; and the macros every adaptor's producer is built with.
//!
//! Each adaptor is three things: the iterator (owns the base and the closure), a callback that wraps
//! the base's producer on its way to the consumer, and the producer (borrows the closure, splits
//! with the base, and runs a piece as the matching `std::iter` adaptor).

use super::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator, ProducerCallback};
use crate::loops::ParallelSource;

/// Implements `ParallelSource` for a producer whose splitting is its `base`'s, the other
/// fields being copied into both halves. With `blocks = field`, the producer runs in the blocks
/// that field holds (`par_blocks`); otherwise in its base's.
macro_rules! forward_source {
    ($producer:ident<$($lt:lifetime,)? $($param:ident),*> { $($field:ident),* }
        where $($bound:tt)*) => {
        forward_source!(@impl $producer<$($lt,)? $($param),*> { $($field),* }
            |this| this.base.par_blocks(); where $($bound)*);
    };
    ($producer:ident<$($lt:lifetime,)? $($param:ident),*> { $($field:ident),* }
        blocks = $blocks:ident where $($bound:tt)*) => {
        forward_source!(@impl $producer<$($lt,)? $($param),*> { $($field),* }
            |this| Some(this.$blocks); where $($bound)*);
    };
    (@impl $producer:ident<$($lt:lifetime,)? $($param:ident),*> { $($field:ident),* }
        |$this:ident| $blocks:expr; where $($bound:tt)*) => {
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

            fn par_split_half(self) -> (Self, Self) {
                let (left, right) = self.base.par_split_half();
                (
                    $producer { base: left, $($field: self.$field.clone()),* },
                    $producer { base: right, $($field: self.$field),* },
                )
            }

            fn par_blocks(&self) -> Option<(usize, usize)> {
                let $this = self;
                $blocks
            }
        }
    };
}
pub(super) use forward_source;

/// Implements `Debug` for an adaptor that holds closures: the listed fields are shown and the
/// closures left out (`Map { base: .., .. }`), as rayon's adaptors do, so that an iterator
/// built with closures can still be printed.
macro_rules! debug_without_closures {
    ($adaptor:ident<$($param:ident),*> { $($field:ident),* } where $($bound:tt)*) => {
        impl<$($param),*> std::fmt::Debug for $adaptor<$($param),*>
        where
            $($bound)*
        {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($adaptor))
                    $(.field(stringify!($field), &self.$field))*
                    .finish_non_exhaustive()
            }
        }
    };
}
pub(super) use debug_without_closures;

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
pub(super) use indexed_like_base;

/// The iterator of [`ParallelIterator::filter`].
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Filter<I, P> {
    base: I,
    predicate: P,
}

debug_without_closures!(Filter<I, P> { base } where I: std::fmt::Debug);

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
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct FilterMap<I, F> {
    base: I,
    filter_map: F,
}

debug_without_closures!(FilterMap<I, F> { base } where I: std::fmt::Debug);

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
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct FlatMap<I, F> {
    base: I,
    map: F,
}

debug_without_closures!(FlatMap<I, F> { base } where I: std::fmt::Debug);

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
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct FlatMapIter<I, F> {
    base: I,
    map: F,
}

debug_without_closures!(FlatMapIter<I, F> { base } where I: std::fmt::Debug);

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

/// The iterator of [`ParallelIterator::flatten`]: a [`FlatMap`] whose items are already
/// parallel iterators.
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Flatten<I> {
    base: I,
}

impl<I> Flatten<I> {
    pub(super) fn new(base: I) -> Self {
        Flatten { base }
    }
}

impl<I> ParallelIterator for Flatten<I>
where
    I: ParallelIterator,
    I::Item: IntoParallelIterator,
{
    type Item = <I::Item as IntoParallelIterator>::Item;

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        FlatMap::new(self.base, |item: I::Item| item).with_producer(callback)
    }
}

/// The iterator of [`ParallelIterator::flatten_iter`]: a [`FlatMapIter`] whose items are
/// already sequential iterators.
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct FlattenIter<I> {
    base: I,
}

impl<I> FlattenIter<I> {
    pub(super) fn new(base: I) -> Self {
        FlattenIter { base }
    }
}

impl<I> ParallelIterator for FlattenIter<I>
where
    I: ParallelIterator,
    I::Item: IntoIterator,
    <I::Item as IntoIterator>::Item: Send,
{
    type Item = <I::Item as IntoIterator>::Item;

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        FlatMapIter::new(self.base, |item: I::Item| item).with_producer(callback)
    }
}

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
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Fold<I, ID, F> {
    base: I,
    identity: ID,
    fold_op: F,
}

debug_without_closures!(Fold<I, ID, F> { base } where I: std::fmt::Debug);

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
        base.with_producer(FoldCallback {
            callback,
            start: &identity,
            fold_op: &fold_op,
        })
    }
}

/// The iterator of [`ParallelIterator::fold_with`].
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct FoldWith<I, T, F> {
    base: I,
    init: T,
    fold_op: F,
}

debug_without_closures!(FoldWith<I, T, F> { base, init } where I: std::fmt::Debug, T: std::fmt::Debug);

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
    T: Clone + Send,
    F: Fn(T, I::Item) -> T + Sync + Send,
{
    type Item = T;

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        let FoldWith {
            base,
            init,
            fold_op,
        } = self;
        base.with_producer(FoldCallback {
            callback,
            start: SeedValue(init),
            fold_op: &fold_op,
        })
    }
}

/// Where each piece of a fold gets its accumulator: `fold`'s identity closure, shared by
/// reference, or `fold_with`'s value, of which every piece carries its own clone down the
/// splits (as in rayon), so that the value need only be `Send`, not `Sync`.
pub(super) trait Seed: Clone + Send {
    /// The accumulator.
    type Acc;

    /// This piece's accumulator.
    fn seed(self) -> Self::Acc;
}

impl<A, S: Fn() -> A + Sync> Seed for &S {
    type Acc = A;

    fn seed(self) -> A {
        self()
    }
}

/// The value of `fold_with` (and `try_fold_with`) as a [`Seed`]: cloned at every split.
#[derive(Clone)]
pub(super) struct SeedValue<T>(pub(super) T);

impl<T: Clone + Send> Seed for SeedValue<T> {
    type Acc = T;

    fn seed(self) -> T {
        self.0
    }
}

/// The callback of `Fold` and `FoldWith`: `start` makes each piece's accumulator.
struct FoldCallback<'f, CB, S, F> {
    callback: CB,
    start: S,
    fold_op: &'f F,
}

impl<'f, T, CB, S, F> ProducerCallback<T> for FoldCallback<'f, CB, S, F>
where
    CB: ProducerCallback<S::Acc>,
    S: Seed,
    F: Fn(S::Acc, T) -> S::Acc + Sync,
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
    start: S,
    fold_op: &'f F,
}

forward_source!(FoldProducer<'f, P, S, F> { start, fold_op } where P: ParallelSource, S: Seed, F: Sync);

impl<'f, P, S, F> IntoIterator for FoldProducer<'f, P, S, F>
where
    P: IntoIterator,
    S: Seed,
    F: Fn(S::Acc, P::Item) -> S::Acc,
{
    type Item = S::Acc;
    type IntoIter = std::iter::Once<S::Acc>;

    fn into_iter(self) -> Self::IntoIter {
        std::iter::once(self.base.into_iter().fold(self.start.seed(), self.fold_op))
    }
}

/// The iterator of [`IndexedParallelIterator::positions`]: the indices of the items for which
/// the predicate holds, in order.
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Positions<I, P> {
    base: I,
    predicate: P,
}

debug_without_closures!(Positions<I, P> { base } where I: std::fmt::Debug);

impl<I, P> Positions<I, P> {
    pub(super) fn new(base: I, predicate: P) -> Self {
        Positions { base, predicate }
    }
}

impl<I, P> ParallelIterator for Positions<I, P>
where
    I: IndexedParallelIterator,
    P: Fn(I::Item) -> bool + Sync + Send,
{
    type Item = usize;

    fn with_producer<CB: ProducerCallback<usize>>(self, callback: CB) -> CB::Output {
        let predicate = self.predicate;
        FilterMap::new(self.base.enumerate(), move |(index, item)| {
            predicate(item).then_some(index)
        })
        .with_producer(callback)
    }
}
