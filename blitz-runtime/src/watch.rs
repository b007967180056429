//! The outside-caller watch: while calls come in from outside the pool again and again, one
//! worker stays awake between them, so that the next call does not have to wake a sleeping
//! thread.
//!
//! A thread outside the pool that calls `install` (or `join`, `scope`, `par_for!`) pushes its
//! job onto the injector and, if every worker sleeps, wakes one. On a 2-vCPU VM that wake-up
//! (a futex call that makes the kernel send an interrupt to an idle CPU) takes the caller 2 us
//! after 1 ms of idleness and about 11 us after 100 ms, and the woken worker starts some
//! microseconds later still. Programs that call in once per request or frame would pay it on
//! every call.
//!
//! So the worker that finishes a job from outside records the time ([`OutsideWatch::job_done`]).
//! If the job before it finished less than [`OUTSIDE_CALLER_WINDOW`] earlier, calls are coming
//! that often, and the window opens: for [`OUTSIDE_CALLER_WINDOW`] after this job, one idle
//! worker, the *watcher*, keeps yielding instead of announcing that it is sleepy
//! ([`OutsideWatch::keep_awake`]), and the next call finds an awake worker and no one to wake.
//! A lone call opens no window: keeping a worker awake after it would cost CPU for a call that
//! the window would not have caught last time either. So a pool that runs one job and then
//! idles spends no more CPU than without the watch, and the CPU a window costs is bounded by
//! the calls it serves: at most one window's length per call that came within a window.
//!
//! One watcher per pool, claimed with a CAS, so a wide pool that ran outside jobs on many
//! workers still spends at most one worker's window of CPU. The watcher releases its claim
//! when it sees the window closed; a watcher that finds work keeps its claim while it runs it
//! (nobody else watches meanwhile, which only costs latency).
//!
//! None of this takes part in the sleep protocol's correctness: staying in the yielding rounds
//! is what any worker still searching does, and going to sleep follows the protocol unchanged.
//! So every access is Relaxed: the times and the claim are hints, and no data is published
//! through them. Under loom the worker never asks (time plays no part in the models); the
//! claim itself has a loom model.

// Under loom, only the claim is used (by its model).
#![cfg_attr(loom, allow(dead_code))]

use std::time::{Duration, Instant};

use crate::sync::{AtomicU64, AtomicUsize, Ordering};

/// How close together calls from outside must come for the window to open, and how long it
/// stays open after the latest of them. Calls that come back within it (a loop calling
/// `install` every millisecond) find a worker awake. The price is CPU: up to this long, on one
/// worker, at the end of each run of such calls, so 2 ms per quiet period that follows one:
/// 0.02% of a core over a pool idling 10 s.
pub(crate) const OUTSIDE_CALLER_WINDOW: Duration = Duration::from_millis(2);

/// No worker watches (`OutsideWatch::watcher`).
const NO_WATCHER: usize = 0;

pub(crate) struct OutsideWatch {
    /// When the latest job from outside finished, in nanoseconds after `epoch`, plus one;
    /// 0 before the first.
    last_done: AtomicU64,
    /// Until when the window is open, in the same unit; 0 (in the past) until it first opens.
    open_until: AtomicU64,
    /// The watcher's index plus one, or [`NO_WATCHER`].
    watcher: AtomicUsize,
    epoch: Instant,
}

impl OutsideWatch {
    pub(crate) fn new() -> Self {
        OutsideWatch {
            last_done: AtomicU64::new(0),
            open_until: AtomicU64::new(0),
            watcher: AtomicUsize::new(NO_WATCHER),
            epoch: Instant::now(),
        }
    }

    /// Nanoseconds since `epoch`, plus one (so never 0).
    fn now(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX - 1) + 1
    }

    /// A job from outside the pool just finished: if the one before finished within the
    /// window's length, the window opens (again) until the window's length from now.
    pub(crate) fn job_done(&self) {
        self.job_done_at(self.now());
    }

    /// [`Self::job_done`] at time `now` (tests pass their own clock).
    fn job_done_at(&self, now: u64) {
        // Relaxed: hints (module docs). `fetch_max`, so that of two workers finishing at once,
        // the earlier time cannot overwrite the later one.
        let previous = self.last_done.fetch_max(now, Ordering::Relaxed);
        if previous != 0 && now.saturating_sub(previous) < Self::window_ns() {
            self.open_until
                .fetch_max(now.saturating_add(Self::window_ns()), Ordering::Relaxed);
        }
    }

    fn window_ns() -> u64 {
        OUTSIDE_CALLER_WINDOW.as_nanos() as u64
    }

    /// Asked by worker `index` when it is about to announce that it is sleepy: true if it
    /// should keep yielding instead, because the window is open and it is (or now becomes) the
    /// watcher. Gives up the claim once the window has closed.
    pub(crate) fn keep_awake(&self, index: usize) -> bool {
        self.keep_awake_at(index, self.now())
    }

    /// [`Self::keep_awake`] at time `now` (tests pass their own clock).
    fn keep_awake_at(&self, index: usize, now: u64) -> bool {
        // Relaxed: a hint (module docs).
        if now < self.open_until.load(Ordering::Relaxed) {
            self.claim(index)
        } else {
            self.release(index);
            false
        }
    }

    /// Makes worker `index` the watcher unless another worker is; true if it is the watcher.
    fn claim(&self, index: usize) -> bool {
        let me = index + 1;
        // Relaxed: the claim guards no data, only who spends CPU (module docs). One location,
        // so the CAS alone decides between two claimants.
        match self
            .watcher
            .compare_exchange(NO_WATCHER, me, Ordering::Relaxed, Ordering::Relaxed)
        {
            Ok(_) => true,
            Err(current) => current == me,
        }
    }

    /// Gives up worker `index`'s claim, if it holds it.
    fn release(&self, index: usize) {
        // Relaxed: as in `claim`. Fails, harmlessly, when another worker (or nobody) watches.
        let _ = self.watcher.compare_exchange(
            index + 1,
            NO_WATCHER,
            Ordering::Relaxed,
            Ordering::Relaxed,
        );
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn no_window_before_the_first_outside_job() {
        let watch = OutsideWatch::new();
        assert!(!watch.keep_awake(0));
        assert!(!watch.keep_awake(1));
    }

    const MS: u64 = 1_000_000;

    /// A lone call opens no window, nor does a call long after the one before it; a call
    /// within the window's length of the one before does, until the window's length after it.
    /// (Explicit times: under Miri real time runs too slowly for a test on the clock.)
    #[test]
    fn only_repeated_calls_open_the_window() {
        let watch = OutsideWatch::new();
        watch.job_done_at(MS);
        assert!(!watch.keep_awake_at(0, MS + 1), "one call: no window");
        watch.job_done_at(10 * MS);
        assert!(
            !watch.keep_awake_at(0, 10 * MS + 1),
            "a call long after the last: no window"
        );
        watch.job_done_at(11 * MS);
        assert!(
            watch.keep_awake_at(0, 11 * MS + 1),
            "a call right after the last: open"
        );
        assert!(watch.keep_awake_at(0, 12 * MS), "still open");
        assert!(
            !watch.keep_awake_at(0, 13 * MS),
            "closed 2 ms after the last call"
        );
    }

    /// One watcher at a time: the first worker to ask during the window; it stays the watcher
    /// while the window is open, and releases the claim once it has closed.
    #[test]
    fn one_watcher_during_the_window() {
        let watch = OutsideWatch::new();
        watch.job_done_at(MS);
        watch.job_done_at(2 * MS);
        assert!(watch.keep_awake_at(1, 2 * MS), "the first to ask watches");
        assert!(!watch.keep_awake_at(0, 2 * MS), "only one watcher");
        assert!(watch.keep_awake_at(1, 3 * MS), "the watcher keeps watching");
        assert!(!watch.keep_awake_at(0, 5 * MS), "closed: nobody watches");
        assert!(
            !watch.keep_awake_at(1, 5 * MS),
            "closed: the watcher releases its claim"
        );
        assert_eq!(watch.watcher.load(Ordering::Relaxed), NO_WATCHER);
        // New calls in quick succession open a new window; anyone may claim it.
        watch.job_done_at(6 * MS);
        watch.job_done_at(7 * MS);
        assert!(watch.keep_awake_at(0, 7 * MS));
        assert!(!watch.keep_awake_at(1, 7 * MS));
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::Arc;
    use loom::thread;

    /// Two workers claim at once: exactly one becomes the watcher; once it releases, the other
    /// can claim.
    #[test]
    fn one_watcher_claims() {
        loom::model(|| {
            let watch = Arc::new(OutsideWatch::new());
            let other = {
                let watch = Arc::clone(&watch);
                thread::spawn(move || watch.claim(1))
            };
            let mine = watch.claim(0);
            let theirs = other.join().unwrap();
            assert!(mine != theirs, "exactly one watcher: {mine} {theirs}");
            let (holder, waiter) = if mine { (0, 1) } else { (1, 0) };
            watch.release(waiter);
            assert!(
                !watch.claim(waiter),
                "a non-holder's release changes nothing"
            );
            watch.release(holder);
            assert!(watch.claim(waiter));
        });
    }
}
