//! The adaptors that turn each item into one new item: `map`, `map_with`, `map_init`,
//! `inspect`, `update`, `copied`, `cloned`.

use super::adaptors::{debug_without_closures, forward_source, indexed_like_base};
use super::{IndexedParallelIterator, ParallelIterator, ProducerCallback};
use crate::loops::ParallelSource;

/// The iterator of [`ParallelIterator::map`].
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Map<I, F> {
    base: I,
    map: F,
}

debug_without_closures!(Map<I, F> { base } where I: std::fmt::Debug);

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
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct MapWith<I, T, F> {
    base: I,
    init: T,
    map: F,
}

debug_without_closures!(MapWith<I, T, F> { base, init } where I: std::fmt::Debug, T: std::fmt::Debug);

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

/// The sequential side of a `map_with` or `map_init` piece.
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

/// The iterator of [`ParallelIterator::map_init`].
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct MapInit<I, INIT, F> {
    base: I,
    init: INIT,
    map: F,
}

debug_without_closures!(MapInit<I, INIT, F> { base } where I: std::fmt::Debug);

impl<I, INIT, F> MapInit<I, INIT, F> {
    pub(super) fn new(base: I, init: INIT, map: F) -> Self {
        MapInit { base, init, map }
    }
}

impl<I, INIT, T, F, R> ParallelIterator for MapInit<I, INIT, F>
where
    I: ParallelIterator,
    INIT: Fn() -> T + Sync + Send,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
    R: Send,
{
    type Item = R;

    fn with_producer<CB: ProducerCallback<R>>(self, callback: CB) -> CB::Output {
        let MapInit { base, init, map } = self;
        return base.with_producer(Callback {
            callback,
            init: &init,
            map: &map,
        });

        struct Callback<'f, CB, INIT, F> {
            callback: CB,
            init: &'f INIT,
            map: &'f F,
        }

        impl<'f, U, T, R, CB, INIT, F> ProducerCallback<U> for Callback<'f, CB, INIT, F>
        where
            CB: ProducerCallback<R>,
            INIT: Fn() -> T + Sync,
            F: Fn(&mut T, U) -> R + Sync,
        {
            type Output = CB::Output;

            fn call<P>(self, base: P) -> CB::Output
            where
                P: ParallelSource + IntoIterator<Item = U>,
            {
                self.callback.call(MapInitProducer {
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

indexed_like_base!(impl<I, INIT, T, F, R> for MapInit<I, INIT, F> where I: IndexedParallelIterator, INIT: Fn() -> T + Sync + Send, F: Fn(&mut T, I::Item) -> R + Sync + Send, R: Send);

/// A piece of a `map_init`: the value is made when the piece starts running, so a split
/// costs nothing and every piece runs with its own.
struct MapInitProducer<'f, P, INIT, F> {
    base: P,
    init: &'f INIT,
    map: &'f F,
}

forward_source!(MapInitProducer<'f, P, INIT, F> { init, map } where P: ParallelSource, INIT: Sync, F: Sync);

impl<'f, P, INIT, T, F, R> IntoIterator for MapInitProducer<'f, P, INIT, F>
where
    P: IntoIterator,
    INIT: Fn() -> T,
    F: Fn(&mut T, P::Item) -> R,
{
    type Item = R;
    type IntoIter = MapWithIter<'f, P::IntoIter, T, F>;

    fn into_iter(self) -> Self::IntoIter {
        MapWithIter {
            base: self.base.into_iter(),
            state: (self.init)(),
            map: self.map,
        }
    }
}

/// The iterator of [`ParallelIterator::inspect`]: a [`Map`] that hands each item back.
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Inspect<I, F> {
    base: I,
    inspect: F,
}

debug_without_closures!(Inspect<I, F> { base } where I: std::fmt::Debug);

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

/// The iterator of [`ParallelIterator::update`]: a [`Map`] that changes each item in place.
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Update<I, F> {
    base: I,
    update: F,
}

debug_without_closures!(Update<I, F> { base } where I: std::fmt::Debug);

impl<I, F> Update<I, F> {
    pub(super) fn new(base: I, update: F) -> Self {
        Update { base, update }
    }
}

impl<I, F> ParallelIterator for Update<I, F>
where
    I: ParallelIterator,
    F: Fn(&mut I::Item) + Sync + Send,
{
    type Item = I::Item;

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let update = self.update;
        Map::new(self.base, move |mut item| {
            update(&mut item);
            item
        })
        .with_producer(callback)
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

indexed_like_base!(impl<I, F> for Update<I, F> where I: IndexedParallelIterator, F: Fn(&mut I::Item) + Sync + Send);

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
