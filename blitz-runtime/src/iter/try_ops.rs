//! `try_for_each` and `try_reduce`: fallible consumers that stop at the first failure.
//!
//! `std::ops::Try` is unstable, so [`Try`] is this crate's own (sealed) version of it,
//! implemented for `Result`, `Option` and `ControlFlow`. A failure raises the search's
//! [`AnyHit`] flag: pieces not yet started are skipped and running ones stop at their next
//! look at it, so the work after a failure is bounded by what was already running.

use std::ops::ControlFlow;

use super::ParallelIterator;
use super::consumers::{Leaf, run};
use crate::loops::Stop;
use crate::loops::search::{AnyHit, CHECK_INTERVAL};

mod sealed {
    pub trait Sealed {}
}

/// A value that is either an output to go on with or a failure to stop at: `Result<T, E>`,
/// `Option<T>` and `ControlFlow<B, C>` (the stable stand-in for `std::ops::Try`).
///
/// ```
/// use blitz::prelude::*;
/// use std::ops::ControlFlow;
///
/// // Stop at the first item over 100, reporting it.
/// let found = (0..1000u32).into_par_iter().try_for_each(|x| {
///     if x > 100 { ControlFlow::Break(x) } else { ControlFlow::Continue(()) }
/// });
/// assert!(matches!(found, ControlFlow::Break(x) if x > 100));
/// ```
pub trait Try: sealed::Sealed {
    /// What a success carries.
    type Output;
    /// What a failure carries.
    type Residual;

    /// A success.
    fn from_output(output: Self::Output) -> Self;
    /// A failure.
    fn from_residual(residual: Self::Residual) -> Self;
    /// Success or failure.
    fn branch(self) -> ControlFlow<Self::Residual, Self::Output>;
}

impl<T, E> sealed::Sealed for Result<T, E> {}

impl<T, E> Try for Result<T, E> {
    type Output = T;
    type Residual = E;

    fn from_output(output: T) -> Self {
        Ok(output)
    }

    fn from_residual(residual: E) -> Self {
        Err(residual)
    }

    fn branch(self) -> ControlFlow<E, T> {
        match self {
            Ok(output) => ControlFlow::Continue(output),
            Err(residual) => ControlFlow::Break(residual),
        }
    }
}

impl<T> sealed::Sealed for Option<T> {}

impl<T> Try for Option<T> {
    type Output = T;
    type Residual = ();

    fn from_output(output: T) -> Self {
        Some(output)
    }

    fn from_residual((): ()) -> Self {
        None
    }

    fn branch(self) -> ControlFlow<(), T> {
        match self {
            Some(output) => ControlFlow::Continue(output),
            None => ControlFlow::Break(()),
        }
    }
}

impl<B, C> sealed::Sealed for ControlFlow<B, C> {}

impl<B, C> Try for ControlFlow<B, C> {
    type Output = C;
    type Residual = B;

    fn from_output(output: C) -> Self {
        ControlFlow::Continue(output)
    }

    fn from_residual(residual: B) -> Self {
        ControlFlow::Break(residual)
    }

    fn branch(self) -> ControlFlow<B, C> {
        self
    }
}

/// Folds a piece with the fallible `step`, stopping at the first failure or when `stop`
/// says another piece failed (then the result is a success that will be discarded).
fn try_fold_piece<T, A, R>(
    items: impl Iterator<Item = T>,
    mut acc: A,
    stop: &AnyHit,
    mut step: impl FnMut(A, T) -> R,
) -> ControlFlow<R::Residual, A>
where
    R: Try<Output = A>,
{
    let mut since_look = 0;
    for item in items {
        match step(acc, item).branch() {
            ControlFlow::Continue(next) => acc = next,
            ControlFlow::Break(residual) => {
                stop.hit();
                return ControlFlow::Break(residual);
            }
        }
        since_look += 1;
        if since_look == CHECK_INTERVAL {
            since_look = 0;
            if stop.skip(0, 1) {
                break;
            }
        }
    }
    ControlFlow::Continue(acc)
}

/// The leaf of `try_for_each`.
struct TryForEach<'s, F> {
    op: F,
    stop: &'s AnyHit,
}

impl<T, R, F> Leaf<T> for TryForEach<'_, F>
where
    F: Fn(T) -> R + Sync,
    R: Try<Output = ()> + Send,
{
    type Output = R;

    fn run<I: Iterator<Item = T>>(&self, items: I, _offset: usize, _len: usize) -> R {
        match try_fold_piece(items, (), self.stop, |(), item| (self.op)(item)) {
            ControlFlow::Continue(()) => R::from_output(()),
            ControlFlow::Break(residual) => R::from_residual(residual),
        }
    }
}

/// The first failure of two adjacent results (left first), or a success.
fn first_failure<R: Try<Output = ()>>(a: R, b: R) -> R {
    match a.branch() {
        ControlFlow::Break(residual) => R::from_residual(residual),
        ControlFlow::Continue(()) => b,
    }
}

pub(super) fn try_for_each<I, OP, R>(iter: I, op: OP) -> R
where
    I: ParallelIterator,
    OP: Fn(I::Item) -> R + Sync + Send,
    R: Try<Output = ()> + Send,
{
    let stop = AnyHit::default();
    let leaf = TryForEach { op, stop: &stop };
    run(iter, leaf, &stop, first_failure)
}

/// The leaf of `try_reduce`.
struct TryReduce<'s, ID, OP> {
    identity: &'s ID,
    op: &'s OP,
    stop: &'s AnyHit,
}

impl<T, R, ID, OP> Leaf<R> for TryReduce<'_, ID, OP>
where
    ID: Fn() -> T + Sync,
    OP: Fn(T, T) -> R + Sync,
    R: Try<Output = T> + Send,
{
    type Output = R;

    fn run<I: Iterator<Item = R>>(&self, items: I, _offset: usize, _len: usize) -> R {
        let step = |acc, item: R| match item.branch() {
            ControlFlow::Continue(value) => (self.op)(acc, value),
            ControlFlow::Break(residual) => R::from_residual(residual),
        };
        match try_fold_piece(items, (self.identity)(), self.stop, step) {
            ControlFlow::Continue(acc) => R::from_output(acc),
            ControlFlow::Break(residual) => R::from_residual(residual),
        }
    }
}

pub(super) fn try_reduce<I, T, ID, OP>(iter: I, identity: ID, op: OP) -> I::Item
where
    I: ParallelIterator,
    I::Item: Try<Output = T>,
    OP: Fn(T, T) -> I::Item + Sync + Send,
    ID: Fn() -> T + Sync + Send,
    T: Send,
{
    let stop = AnyHit::default();
    let leaf = TryReduce {
        identity: &identity,
        op: &op,
        stop: &stop,
    };
    run(iter, leaf, &stop, |a, b| combine_reduced(a, b, &op, &stop))
}

/// Combines two pieces' results of `try_reduce` (or `try_reduce_with`): the first failure of
/// the two, or `op` of both values, which stops the search if it fails.
fn combine_reduced<R, T, OP>(a: R, b: R, op: &OP, stop: &AnyHit) -> R
where
    R: Try<Output = T>,
    OP: Fn(T, T) -> R,
{
    match (a.branch(), b.branch()) {
        (ControlFlow::Break(residual), _) | (_, ControlFlow::Break(residual)) => {
            R::from_residual(residual)
        }
        (ControlFlow::Continue(a), ControlFlow::Continue(b)) => match op(a, b).branch() {
            ControlFlow::Continue(value) => R::from_output(value),
            ControlFlow::Break(residual) => {
                stop.hit();
                R::from_residual(residual)
            }
        },
    }
}

/// The leaf of `try_reduce_with`: a piece's items combined from its first, `None` if it has
/// none.
struct TryReduceWith<'s, OP> {
    op: &'s OP,
    stop: &'s AnyHit,
}

impl<T, R, OP> Leaf<R> for TryReduceWith<'_, OP>
where
    OP: Fn(T, T) -> R + Sync,
    R: Try<Output = T> + Send,
{
    type Output = Option<R>;

    fn run<I: Iterator<Item = R>>(&self, mut items: I, _offset: usize, _len: usize) -> Option<R> {
        let first = match items.next()?.branch() {
            ControlFlow::Continue(value) => value,
            ControlFlow::Break(residual) => {
                self.stop.hit();
                return Some(R::from_residual(residual));
            }
        };
        let step = |acc, item: R| match item.branch() {
            ControlFlow::Continue(value) => (self.op)(acc, value),
            ControlFlow::Break(residual) => R::from_residual(residual),
        };
        Some(match try_fold_piece(items, first, self.stop, step) {
            ControlFlow::Continue(acc) => R::from_output(acc),
            ControlFlow::Break(residual) => R::from_residual(residual),
        })
    }
}

/// `ParallelIterator::try_reduce_with`: `try_reduce` without an identity, `None` if there are
/// no items.
pub(super) fn try_reduce_with<I, T, OP>(iter: I, op: OP) -> Option<I::Item>
where
    I: ParallelIterator,
    I::Item: Try<Output = T>,
    OP: Fn(T, T) -> I::Item + Sync + Send,
    T: Send,
{
    let stop = AnyHit::default();
    let leaf = TryReduceWith {
        op: &op,
        stop: &stop,
    };
    let combine = |a: Option<I::Item>, b: Option<I::Item>| match (a, b) {
        (None, only) | (only, None) => only,
        (Some(a), Some(b)) => Some(combine_reduced(a, b, &op, &stop)),
    };
    run(iter, leaf, &stop, combine)
}
