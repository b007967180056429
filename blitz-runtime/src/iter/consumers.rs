//! The consumers of parallel iterators that fold to one value: `for_each`, `sum`, `count`,
//! `min`/`max` and their `_by`/`_by_key` forms, `reduce`, and the searches.
//!
//! Each is a [`Leaf`] (what one piece does, as a sequential iterator) and a `combine` (how two
//! adjacent pieces' results join, left first), run by [`run`] on the engine. Leaves are types
//! rather than closures because a piece's iterator type is only known inside the producer
//! callback, and closures cannot be generic.

use std::cmp::Ordering;
use std::iter::{Product, Sum};
use std::marker::PhantomData;

use super::{ParallelIterator, ProducerCallback};
use crate::loops::search::{AnyHit, FirstHit, LastHit, scan, scan_last};
use crate::loops::{NeverStop, ParallelSource, Stop, drive};

/// What a consumer does with one piece.
pub(super) trait Leaf<T>: Sync {
    /// The piece's result.
    type Output: Send;

    /// Runs the piece: its `len` source items start at `offset` in the whole source.
    fn run<I: Iterator<Item = T>>(&self, items: I, offset: usize, len: usize) -> Self::Output;
}

/// Runs `iter` on the engine: `leaf` on every piece, `combine` on adjacent results, `stop` to
/// skip pieces.
pub(super) fn run<I, L, C, S>(iter: I, leaf: L, stop: &S, combine: C) -> L::Output
where
    I: ParallelIterator,
    L: Leaf<I::Item>,
    C: Fn(L::Output, L::Output) -> L::Output + Sync,
    S: Stop,
{
    return iter.with_producer(Run {
        leaf,
        stop,
        combine,
    });

    struct Run<'s, L, S, C> {
        leaf: L,
        stop: &'s S,
        combine: C,
    }

    impl<T, L, S, C> ProducerCallback<T> for Run<'_, L, S, C>
    where
        L: Leaf<T>,
        S: Stop,
        C: Fn(L::Output, L::Output) -> L::Output + Sync,
    {
        type Output = L::Output;

        fn call<P>(self, producer: P) -> L::Output
        where
            P: ParallelSource + IntoIterator<Item = T>,
        {
            let leaf = |piece: P, offset| {
                let len = piece.par_len();
                self.leaf.run(piece.into_iter(), offset, len)
            };
            drive(producer, 0, self.stop, &leaf, &self.combine)
        }
    }
}

/// A leaf from a closure over the piece's iterator, for consumers whose leaf does not depend
/// on the iterator's type beyond its items: `FoldLeaf(|items| ...)` cannot be written
/// generically, so each consumer below spells its leaf as a small type.
macro_rules! leaf {
    ($name:ident<$($param:ident),*> ($($field:ident: $fty:ty),*) for $item:ident -> $out:ty
        where [$($bound:tt)*]
        |$self_:ident, $items:ident, $offset:ident, $len:ident| $body:expr) => {
        struct $name<$($param),*> { $($field: $fty),* }

        impl<$item, $($param),*> Leaf<$item> for $name<$($param),*>
        where
            $($bound)*
        {
            type Output = $out;

            #[allow(unused_variables)]
            fn run<It: Iterator<Item = $item>>(&$self_, $items: It, $offset: usize, $len: usize) -> $out {
                $body
            }
        }
    };
}

leaf!(ForEach<F>(op: F) for T -> () where [F: Fn(T) + Sync, T: Send]
    |self, items, offset, len| items.for_each(&self.op));

pub(super) fn for_each<I, F>(iter: I, op: F)
where
    I: ParallelIterator,
    F: Fn(I::Item) + Sync + Send,
{
    run(iter, ForEach { op }, &NeverStop, |(), ()| ())
}

leaf!(SumLeaf<S>(marker: PhantomData<fn() -> S>) for T -> S where [S: Send + Sum<T>]
    |self, items, offset, len| items.sum());

pub(super) fn sum<I, S>(iter: I) -> S
where
    I: ParallelIterator,
    S: Send + Sum<I::Item> + Sum<S>,
{
    let leaf = SumLeaf {
        marker: PhantomData,
    };
    run(iter, leaf, &NeverStop, |a: S, b: S| {
        [a, b].into_iter().sum()
    })
}

leaf!(ProductLeaf<S>(marker: PhantomData<fn() -> S>) for T -> S where [S: Send + Product<T>]
    |self, items, offset, len| items.product());

pub(super) fn product<I, P>(iter: I) -> P
where
    I: ParallelIterator,
    P: Send + Product<I::Item> + Product<P>,
{
    let leaf = ProductLeaf {
        marker: PhantomData,
    };
    run(iter, leaf, &NeverStop, |a: P, b: P| {
        [a, b].into_iter().product()
    })
}

leaf!(CountLeaf<>() for T -> usize where [] |self, items, offset, len| items.count());

/// Checked where `std`'s `count` wraps in release builds: pieces of a range longer than a
/// `usize` counts (`0..=u64::MAX`) add up past `usize::MAX`.
pub(super) fn count<I: ParallelIterator>(iter: I) -> usize {
    run(iter, CountLeaf {}, &NeverStop, |a: usize, b| {
        a.checked_add(b)
            .unwrap_or_else(|| panic!("blitz: `count` of more items than a `usize` can count"))
    })
}

/// The better of two optional values: `b` if `better(&b, &a)`, else `a`.
fn pick<T>(a: Option<T>, b: Option<T>, better: impl Fn(&T, &T) -> bool) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if better(&b, &a) { b } else { a }),
        (a, None) => a,
        (None, b) => b,
    }
}

leaf!(MinBy<F>(compare: F) for T -> Option<T>
    where [F: Fn(&T, &T) -> Ordering + Sync, T: Send]
    |self, items, offset, len| best_by(items, |best, item| (self.compare)(best, item) == Ordering::Greater));

/// A piece's best item: the first, replaced by each later one for which `replace(&best, &item)`
/// holds. The same choices as `Iterator::min_by` (replace when `best > item`) and `max_by`
/// (when `best <= item`), but written as a branch: `std`'s loop compiles to a branch-free
/// select on floats, a dependency chain through every item, where the branch is predicted
/// (the best item changes rarely): 4M `f64`s, `partial_cmp`, one thread, 6.6 ms -> 4.7 ms
/// on random input, 6.7 -> 6.2 ms on descending input, where it changes at every item.
fn best_by<T>(mut items: impl Iterator<Item = T>, replace: impl Fn(&T, &T) -> bool) -> Option<T> {
    let mut best = items.next()?;
    for item in items {
        if replace(&best, &item) {
            best = item;
        }
    }
    Some(best)
}

/// The first least item, as `Iterator::min_by`.
pub(super) fn min_by<I, F>(iter: I, compare: F) -> Option<I::Item>
where
    I: ParallelIterator,
    F: Fn(&I::Item, &I::Item) -> Ordering + Sync + Send,
{
    let combine = |a, b| pick(a, b, |b, a| compare(b, a) == Ordering::Less);
    run(iter, MinBy { compare: &compare }, &NeverStop, combine)
}

leaf!(MaxBy<F>(compare: F) for T -> Option<T>
    where [F: Fn(&T, &T) -> Ordering + Sync, T: Send]
    |self, items, offset, len| best_by(items, |best, item| (self.compare)(best, item) != Ordering::Greater));

/// The last greatest item, as `Iterator::max_by`.
pub(super) fn max_by<I, F>(iter: I, compare: F) -> Option<I::Item>
where
    I: ParallelIterator,
    F: Fn(&I::Item, &I::Item) -> Ordering + Sync + Send,
{
    let combine = |a, b| pick(a, b, |b, a| compare(b, a) != Ordering::Less);
    run(iter, MaxBy { compare: &compare }, &NeverStop, combine)
}

/// The leaf of `min_by_key` (`MAX = false`) and `max_by_key`: keeps each item with its key, so
/// that every key is computed once.
struct ByKey<F, const MAX: bool> {
    key: F,
}

impl<T, K, F, const MAX: bool> Leaf<T> for ByKey<F, MAX>
where
    F: Fn(&T) -> K + Sync,
    K: Ord + Send,
    T: Send,
{
    type Output = Option<(K, T)>;

    fn run<I: Iterator<Item = T>>(&self, items: I, _offset: usize, _len: usize) -> Self::Output {
        let keyed = items.map(|item| ((self.key)(&item), item));
        if MAX {
            keyed.max_by(|a, b| a.0.cmp(&b.0))
        } else {
            keyed.min_by(|a, b| a.0.cmp(&b.0))
        }
    }
}

/// The first item of least key (`MAX = false`, as `Iterator::min_by_key`), or the last of
/// greatest key (as `Iterator::max_by_key`).
fn by_key<I, K, F, const MAX: bool>(iter: I, key: F) -> Option<I::Item>
where
    I: ParallelIterator,
    K: Ord + Send,
    F: Fn(&I::Item) -> K + Sync + Send,
{
    let better = |b: &(K, I::Item), a: &(K, I::Item)| if MAX { b.0 >= a.0 } else { b.0 < a.0 };
    let combine = |a, b| pick(a, b, better);
    run(iter, ByKey::<_, MAX> { key: &key }, &NeverStop, combine).map(|(_, item)| item)
}

pub(super) fn min_by_key<I, K, F>(iter: I, key: F) -> Option<I::Item>
where
    I: ParallelIterator,
    K: Ord + Send,
    F: Fn(&I::Item) -> K + Sync + Send,
{
    by_key::<_, _, _, false>(iter, key)
}

pub(super) fn max_by_key<I, K, F>(iter: I, key: F) -> Option<I::Item>
where
    I: ParallelIterator,
    K: Ord + Send,
    F: Fn(&I::Item) -> K + Sync + Send,
{
    by_key::<_, _, _, true>(iter, key)
}

leaf!(Reduce<ID, OP>(identity: ID, op: OP) for T -> T
    where [ID: Fn() -> T + Sync, OP: Fn(T, T) -> T + Sync, T: Send]
    |self, items, offset, len| items.fold((self.identity)(), &self.op));

pub(super) fn reduce<I, ID, OP>(iter: I, identity: ID, op: OP) -> I::Item
where
    I: ParallelIterator,
    OP: Fn(I::Item, I::Item) -> I::Item + Sync + Send,
    ID: Fn() -> I::Item + Sync + Send,
{
    let leaf = Reduce {
        identity: &identity,
        op: &op,
    };
    run(iter, leaf, &NeverStop, &op)
}

leaf!(ReduceWith<OP>(op: OP) for T -> Option<T>
    where [OP: Fn(T, T) -> T + Sync, T: Send]
    |self, items, offset, len| items.reduce(&self.op));

pub(super) fn reduce_with<I, OP>(iter: I, op: OP) -> Option<I::Item>
where
    I: ParallelIterator,
    OP: Fn(I::Item, I::Item) -> I::Item + Sync + Send,
{
    let combine = |a, b| match (a, b) {
        (Some(a), Some(b)) => Some(op(a, b)),
        (a, None) => a,
        (None, b) => b,
    };
    run(iter, ReduceWith { op: &op }, &NeverStop, combine)
}

/// The leaf of the searches: `check(index_in_piece, item)` finds the answer in a piece;
/// `LAST` looks for the last one instead of the first. Records a hit with the stop rule.
struct Search<'s, F, S, const LAST: bool> {
    check: F,
    stop: &'s S,
}

/// How a stop rule records a hit in the piece at `offset`.
trait RecordHit: Stop {
    fn record(&self, offset: usize);
}

impl RecordHit for AnyHit {
    fn record(&self, _offset: usize) {
        self.hit();
    }
}

impl RecordHit for FirstHit {
    fn record(&self, offset: usize) {
        self.hit(offset);
    }
}

impl RecordHit for LastHit {
    fn record(&self, offset: usize) {
        self.hit(offset);
    }
}

impl<T, R, F, S, const LAST: bool> Leaf<T> for Search<'_, F, S, LAST>
where
    F: Fn(usize, usize, T) -> Option<R> + Sync,
    S: RecordHit,
    R: Send,
{
    type Output = Option<R>;

    fn run<It: Iterator<Item = T>>(&self, items: It, offset: usize, len: usize) -> Option<R> {
        let check = |index, item| (self.check)(offset, index, item);
        let answer = if LAST {
            scan_last(items, offset, len, self.stop, check, || {
                self.stop.record(offset)
            })
        } else {
            scan(items, offset, self.stop, check)
        };
        if answer.is_some() {
            self.stop.record(offset);
        }
        answer
    }
}

/// Runs a search; `check(piece_offset, index_in_piece, item)` is the answer for one item.
fn search<I, R, F, S, const LAST: bool>(iter: I, stop: S, check: F) -> Option<R>
where
    I: ParallelIterator,
    F: Fn(usize, usize, I::Item) -> Option<R> + Sync,
    S: RecordHit,
    R: Send,
{
    let leaf = Search::<F, S, LAST> { check, stop: &stop };
    // First and any: the left answer wins; last: the right one.
    run(
        iter,
        leaf,
        &stop,
        |a, b| if LAST { b.or(a) } else { a.or(b) },
    )
}

pub(super) fn any<I, P>(iter: I, predicate: P) -> bool
where
    I: ParallelIterator,
    P: Fn(I::Item) -> bool + Sync + Send,
{
    search::<_, _, _, _, false>(iter, AnyHit::default(), |_, _, item| {
        predicate(item).then_some(())
    })
    .is_some()
}

pub(super) fn find_any<I, P>(iter: I, predicate: P) -> Option<I::Item>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    search::<_, _, _, _, false>(iter, AnyHit::default(), |_, _, item| {
        predicate(&item).then_some(item)
    })
}

pub(super) fn find_first<I, P>(iter: I, predicate: P) -> Option<I::Item>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    search::<_, _, _, _, false>(iter, FirstHit::default(), |_, _, item| {
        predicate(&item).then_some(item)
    })
}

pub(super) fn find_last<I, P>(iter: I, predicate: P) -> Option<I::Item>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    search::<_, _, _, _, true>(iter, LastHit::default(), |_, _, item| {
        predicate(&item).then_some(item)
    })
}

pub(super) fn position_any<I, P>(iter: I, predicate: P) -> Option<usize>
where
    I: ParallelIterator,
    P: Fn(I::Item) -> bool + Sync + Send,
{
    search::<_, _, _, _, false>(iter, AnyHit::default(), |offset, index, item| {
        predicate(item).then_some(offset.saturating_add(index))
    })
}

pub(super) fn position_first<I, P>(iter: I, predicate: P) -> Option<usize>
where
    I: ParallelIterator,
    P: Fn(I::Item) -> bool + Sync + Send,
{
    search::<_, _, _, _, false>(iter, FirstHit::default(), |offset, index, item| {
        predicate(item).then_some(offset.saturating_add(index))
    })
}

pub(super) fn position_last<I, P>(iter: I, predicate: P) -> Option<usize>
where
    I: ParallelIterator,
    P: Fn(I::Item) -> bool + Sync + Send,
{
    search::<_, _, _, _, true>(iter, LastHit::default(), |offset, index, item| {
        predicate(item).then_some(offset.saturating_add(index))
    })
}
