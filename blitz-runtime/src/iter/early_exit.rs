//! The adaptors that may end before their base does: `while_some`, `take_any`, `skip_any`,
//! `take_any_while`, `skip_any_while`; and `panic_fuse`, which ends early on a panic.
//!
//! `while_some`, `take_any` and `take_any_while` stop through an [`UntilFlag`]: once one piece
//! has decided that no more items are wanted, every piece stops at its next item. Which items
//! the others yielded before that depends on the schedule, as in rayon: these adaptors promise
//! a count or a stopping point, not which items. `panic_fuse` raises its flag when a panic
//! unwinds through a piece.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::adaptors::{FilterMap, debug_without_closures};
use super::until_flag::UntilFlag;
use super::{ParallelIterator, ProducerCallback};

/// The iterator of [`ParallelIterator::while_some`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct WhileSome<I> {
    base: I,
}

impl<I> WhileSome<I> {
    pub(super) fn new(base: I) -> Self {
        WhileSome { base }
    }
}

impl<I, T> ParallelIterator for WhileSome<I>
where
    I: ParallelIterator<Item = Option<T>>,
    T: Send,
{
    type Item = T;

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        let none_seen = AtomicBool::new(false);
        let items = UntilFlag {
            base: self.base,
            flag: &none_seen,
            raise_on_unwind: false,
        };
        FilterMap::new(items, |item: Option<T>| {
            if item.is_none() {
                // Relaxed: a hint to stop, as in `UntilFlag`.
                none_seen.store(true, Ordering::Relaxed);
            }
            item
        })
        .with_producer(callback)
    }
}

/// The iterator of [`ParallelIterator::take_any`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct TakeAny<I> {
    base: I,
    n: usize,
}

impl<I> TakeAny<I> {
    pub(super) fn new(base: I, n: usize) -> Self {
        TakeAny { base, n }
    }
}

impl<I: ParallelIterator> ParallelIterator for TakeAny<I> {
    type Item = I::Item;

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let n = self.n;
        let taken = AtomicUsize::new(0);
        let enough = AtomicBool::new(n == 0);
        let items = UntilFlag {
            base: self.base,
            flag: &enough,
            raise_on_unwind: false,
        };
        FilterMap::new(items, |item| {
            // Relaxed: the count alone decides (each ticket is handed out once); the flag is
            // a hint for the other pieces to stop pulling items.
            let ticket = taken.fetch_add(1, Ordering::Relaxed);
            if ticket + 1 >= n {
                enough.store(true, Ordering::Relaxed);
            }
            (ticket < n).then_some(item)
        })
        .with_producer(callback)
    }
}

/// The iterator of [`ParallelIterator::skip_any`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct SkipAny<I> {
    base: I,
    n: usize,
}

impl<I> SkipAny<I> {
    pub(super) fn new(base: I, n: usize) -> Self {
        SkipAny { base, n }
    }
}

impl<I: ParallelIterator> ParallelIterator for SkipAny<I> {
    type Item = I::Item;

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let n = self.n;
        let skipped = AtomicUsize::new(0);
        FilterMap::new(self.base, |item| {
            // Relaxed: only the count matters. Once it has passed `n`, a load suffices, so
            // the items after the skipped ones do not all write the same cache line.
            if skipped.load(Ordering::Relaxed) >= n {
                return Some(item);
            }
            (skipped.fetch_add(1, Ordering::Relaxed) >= n).then_some(item)
        })
        .with_producer(callback)
    }
}

/// The iterator of [`ParallelIterator::take_any_while`].
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct TakeAnyWhile<I, P> {
    base: I,
    predicate: P,
}

debug_without_closures!(TakeAnyWhile<I, P> { base } where I: std::fmt::Debug);

impl<I, P> TakeAnyWhile<I, P> {
    pub(super) fn new(base: I, predicate: P) -> Self {
        TakeAnyWhile { base, predicate }
    }
}

impl<I, P> ParallelIterator for TakeAnyWhile<I, P>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    type Item = I::Item;

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let failed = AtomicBool::new(false);
        let predicate = self.predicate;
        let items = UntilFlag {
            base: self.base,
            flag: &failed,
            raise_on_unwind: false,
        };
        FilterMap::new(items, |item| {
            if predicate(&item) {
                Some(item)
            } else {
                // Relaxed: a hint to stop, as in `UntilFlag`.
                failed.store(true, Ordering::Relaxed);
                None
            }
        })
        .with_producer(callback)
    }
}

/// The iterator of [`ParallelIterator::skip_any_while`].
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct SkipAnyWhile<I, P> {
    base: I,
    predicate: P,
}

debug_without_closures!(SkipAnyWhile<I, P> { base } where I: std::fmt::Debug);

impl<I, P> SkipAnyWhile<I, P> {
    pub(super) fn new(base: I, predicate: P) -> Self {
        SkipAnyWhile { base, predicate }
    }
}

impl<I, P> ParallelIterator for SkipAnyWhile<I, P>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    type Item = I::Item;

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let failed = AtomicBool::new(false);
        let predicate = self.predicate;
        FilterMap::new(self.base, |item| {
            // Relaxed: once any piece has seen the predicate fail, skipping is over; a piece
            // that sees it late only skips items the predicate holds for, which is allowed.
            if failed.load(Ordering::Relaxed) {
                return Some(item);
            }
            if predicate(&item) {
                None
            } else {
                failed.store(true, Ordering::Relaxed);
                Some(item)
            }
        })
        .with_producer(callback)
    }
}

/// The iterator of [`ParallelIterator::panic_fuse`]: the items of its base until an item
/// panics.
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct PanicFuse<I> {
    base: I,
}

impl<I> PanicFuse<I> {
    pub(super) fn new(base: I) -> Self {
        PanicFuse { base }
    }
}

impl<I: ParallelIterator> ParallelIterator for PanicFuse<I> {
    type Item = I::Item;

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let panicked = AtomicBool::new(false);
        UntilFlag {
            base: self.base,
            flag: &panicked,
            raise_on_unwind: true,
        }
        .with_producer(callback)
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I: super::IndexedParallelIterator> super::IndexedParallelIterator for PanicFuse<I> {
    fn len(&self) -> usize {
        self.base.len()
    }
}
