//! The producers of two iterators at once, for the adaptors that combine two (`zip`, `chain`,
//! `interleave`): the producer of the first arrives in its callback, which then asks the
//! second for its own and hands both on.

use std::marker::PhantomData;

use super::{ParallelIterator, ProducerCallback};
use crate::loops::ParallelSource;

/// Receives the producers of two iterators (see [`with_producers`]).
pub(super) trait PairCallback<TA, TB> {
    /// What the callback returns.
    type Output;

    /// Runs with both producers.
    fn call<PA, PB>(self, a: PA, b: PB) -> Self::Output
    where
        PA: ParallelSource + IntoIterator<Item = TA>,
        PB: ParallelSource + IntoIterator<Item = TB>;
}

/// Hands the producers of `a` and `b` to `callback`.
pub(super) fn with_producers<A, B, CB>(a: A, b: B, callback: CB) -> CB::Output
where
    A: ParallelIterator,
    B: ParallelIterator,
    CB: PairCallback<A::Item, B::Item>,
{
    a.with_producer(First { callback, b })
}

/// Holds `b` while `a`'s producer arrives.
struct First<CB, B> {
    callback: CB,
    b: B,
}

impl<TA, CB, B> ProducerCallback<TA> for First<CB, B>
where
    B: ParallelIterator,
    CB: PairCallback<TA, B::Item>,
{
    type Output = CB::Output;

    fn call<PA>(self, a: PA) -> CB::Output
    where
        PA: ParallelSource + IntoIterator<Item = TA>,
    {
        self.b.with_producer(Second {
            callback: self.callback,
            a,
            item_a: PhantomData,
        })
    }
}

/// Holds `a`'s producer while `b`'s arrives.
struct Second<CB, PA, TA> {
    callback: CB,
    a: PA,
    item_a: PhantomData<fn() -> TA>,
}

impl<TA, TB, CB, PA> ProducerCallback<TB> for Second<CB, PA, TA>
where
    PA: ParallelSource + IntoIterator<Item = TA>,
    CB: PairCallback<TA, TB>,
{
    type Output = CB::Output;

    fn call<PB>(self, b: PB) -> CB::Output
    where
        PB: ParallelSource + IntoIterator<Item = TB>,
    {
        self.callback.call(self.a, b)
    }
}
