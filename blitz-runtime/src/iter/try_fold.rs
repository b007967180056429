//! `try_fold` and `try_fold_with`: `fold` with a fallible step. Each piece stops at its own
//! first failure and yields it; the pieces are independent, as in rayon (a `try_reduce` or
//! `try_for_each` after it stops them all at a failure).

use std::ops::ControlFlow;

use super::adaptors::{Seed, SeedValue, debug_without_closures, forward_source};
use super::{ParallelIterator, ProducerCallback, Try};
use crate::loops::ParallelSource;

/// The iterator of [`ParallelIterator::try_fold`].
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct TryFold<I, ID, F> {
    base: I,
    identity: ID,
    fold_op: F,
}

debug_without_closures!(TryFold<I, ID, F> { base } where I: std::fmt::Debug);

impl<I, ID, F> TryFold<I, ID, F> {
    pub(super) fn new(base: I, identity: ID, fold_op: F) -> Self {
        TryFold {
            base,
            identity,
            fold_op,
        }
    }
}

impl<I, ID, F, T, R> ParallelIterator for TryFold<I, ID, F>
where
    I: ParallelIterator,
    ID: Fn() -> T + Sync + Send,
    F: Fn(T, I::Item) -> R + Sync + Send,
    R: Try<Output = T> + Send,
{
    type Item = R;

    fn with_producer<CB: ProducerCallback<R>>(self, callback: CB) -> CB::Output {
        let TryFold {
            base,
            identity,
            fold_op,
        } = self;
        base.with_producer(TryFoldCallback {
            callback,
            start: &identity,
            fold_op: &fold_op,
        })
    }
}

/// The iterator of [`ParallelIterator::try_fold_with`].
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct TryFoldWith<I, T, F> {
    base: I,
    init: T,
    fold_op: F,
}

debug_without_closures!(TryFoldWith<I, T, F> { base, init } where I: std::fmt::Debug, T: std::fmt::Debug);

impl<I, T, F> TryFoldWith<I, T, F> {
    pub(super) fn new(base: I, init: T, fold_op: F) -> Self {
        TryFoldWith {
            base,
            init,
            fold_op,
        }
    }
}

impl<I, T, F, R> ParallelIterator for TryFoldWith<I, T, F>
where
    I: ParallelIterator,
    T: Clone + Send,
    F: Fn(T, I::Item) -> R + Sync + Send,
    R: Try<Output = T> + Send,
{
    type Item = R;

    fn with_producer<CB: ProducerCallback<R>>(self, callback: CB) -> CB::Output {
        let TryFoldWith {
            base,
            init,
            fold_op,
        } = self;
        base.with_producer(TryFoldCallback {
            callback,
            start: SeedValue(init),
            fold_op: &fold_op,
        })
    }
}

/// The callback of `TryFold` and `TryFoldWith`: `start` makes each piece's accumulator.
struct TryFoldCallback<'f, CB, S, F> {
    callback: CB,
    start: S,
    fold_op: &'f F,
}

impl<'f, T, R, CB, S, F> ProducerCallback<T> for TryFoldCallback<'f, CB, S, F>
where
    CB: ProducerCallback<R>,
    S: Seed,
    F: Fn(S::Acc, T) -> R + Sync,
    R: Try<Output = S::Acc>,
{
    type Output = CB::Output;

    fn call<P>(self, base: P) -> CB::Output
    where
        P: ParallelSource + IntoIterator<Item = T>,
    {
        self.callback.call(TryFoldProducer {
            base,
            start: self.start,
            fold_op: self.fold_op,
        })
    }
}

/// Yields one item per piece: the piece's items folded until the first failure.
struct TryFoldProducer<'f, P, S, F> {
    base: P,
    start: S,
    fold_op: &'f F,
}

forward_source!(TryFoldProducer<'f, P, S, F> { start, fold_op } where P: ParallelSource, S: Seed, F: Sync);

impl<'f, P, S, F, R> IntoIterator for TryFoldProducer<'f, P, S, F>
where
    P: IntoIterator,
    S: Seed,
    F: Fn(S::Acc, P::Item) -> R,
    R: Try<Output = S::Acc>,
{
    type Item = R;
    type IntoIter = std::iter::Once<R>;

    fn into_iter(self) -> Self::IntoIter {
        let mut acc = self.start.seed();
        for item in self.base {
            match (self.fold_op)(acc, item).branch() {
                ControlFlow::Continue(next) => acc = next,
                ControlFlow::Break(residual) => return std::iter::once(R::from_residual(residual)),
            }
        }
        std::iter::once(R::from_output(acc))
    }
}
