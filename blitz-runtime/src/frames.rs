//! The private frame stack: a worker's record of its pending forks, so that it can offer the
//! oldest one to an idle peer that asks (lazy promotion; see `registry` and `join`).
//!
//! A recorded fork pushes its second job here and pops it when its first closure returns. The
//! stack is in the order of the worker's call stack, so index 0 is the outermost pending
//! recorded fork, the one highest on the stack and usually the biggest piece of work.
//!
//! # Invariants
//!
//! * `promoted <= len`. The records `0..promoted` are *public*: their jobs were pushed onto
//!   the worker's deque (in index order), where a thief may have taken them. The records
//!   `promoted..len` are *private*: nobody else can reach their jobs.
//! * Promotion always takes the oldest private record (`promoted`), so public records form a
//!   prefix and the deque holds them oldest-first, the order thieves steal in.
//!
//! Only the owning worker thread touches a `FrameStack` (it is `!Sync`), and no method hands
//! out a reference into the stack or calls out while it holds one, so the `UnsafeCell` below
//! is never borrowed twice.

use std::cell::{Cell, UnsafeCell};

use crate::job::JobRef;
use crate::join::timestamp;

/// How many records a worker has room for before the first growth. Recursive fork/join keeps
/// the stack about as deep as the recursion of recorded forks.
const INITIAL_CAPACITY: usize = 64;

/// A worker's records of its pending forks (see the module docs).
pub(crate) struct FrameStack {
    /// The jobs of the pending recorded forks, oldest first. Owner-only.
    jobs: UnsafeCell<Vec<JobRef>>,
    /// How many of the oldest records are public (see the invariants).
    promoted: Cell<usize>,
    /// The [`timestamp`] at which the outermost record (index 0) was last promoted. While that
    /// record is public it is the promotion of the pending outermost fork: a later record at
    /// index 0 can only be made after the fork has been left.
    outermost_promoted_at: Cell<u64>,
}

impl FrameStack {
    pub(crate) fn new() -> Self {
        FrameStack {
            jobs: UnsafeCell::new(Vec::with_capacity(INITIAL_CAPACITY)),
            promoted: Cell::new(0),
            outermost_promoted_at: Cell::new(0),
        }
    }

    /// The number of pending recorded forks.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        // SAFETY: owner-only, and no reference into the cell outlives a method (module docs).
        let jobs = unsafe { &*self.jobs.get() };
        jobs.len()
    }

    /// The number of private records: pending forks that could still be promoted.
    #[inline]
    pub(crate) fn private(&self) -> usize {
        self.len() - self.promoted.get()
    }

    /// Records the job of a fork that has just been entered; returns its index, which the
    /// fork passes to [`leave`](Self::leave).
    #[inline]
    pub(crate) fn record(&self, job: JobRef) -> usize {
        // SAFETY: owner-only, and no reference into the cell outlives a method (module docs).
        let jobs = unsafe { &mut *self.jobs.get() };
        let index = jobs.len();
        jobs.push(job);
        index
    }

    /// Leaves the recorded fork at `index` (after its first closure returned or panicked):
    /// drops its record and every younger one. True if its job was promoted, i.e. may be on
    /// the deque or stolen; false if it is still private.
    #[inline]
    pub(crate) fn leave(&self, index: usize) -> bool {
        // SAFETY: owner-only, and no reference into the cell outlives a method (module docs).
        let jobs = unsafe { &mut *self.jobs.get() };
        debug_assert!(
            index < jobs.len(),
            "blitz: left a fork that was not recorded"
        );
        jobs.truncate(index);
        if index < self.promoted.get() {
            // Everything younger is gone, so the public prefix ends here now.
            self.promoted.set(index);
            true
        } else {
            false
        }
    }

    /// Takes the oldest private record and marks it public: the caller must push the job onto
    /// the deque. `None` if every record is public.
    #[inline]
    pub(crate) fn promote_oldest(&self) -> Option<JobRef> {
        let oldest = self.promoted.get();
        // SAFETY: owner-only, and no reference into the cell outlives a method (module docs).
        let jobs = unsafe { &*self.jobs.get() };
        let job = jobs.get(oldest).copied()?;
        if oldest == 0 {
            // Read here, where a fork is being published (rare), not at every outermost fork:
            // a small call tree run in a loop records its outermost fork a dozen times per
            // call, down its right spine.
            self.outermost_promoted_at.set(timestamp());
        }
        self.promoted.set(oldest + 1);
        Some(job)
    }

    /// When the outermost record was last promoted (see `outermost_promoted_at`): for a
    /// pending outermost fork whose record is public, when its job was offered.
    #[inline]
    pub(crate) fn outermost_promoted_at(&self) -> u64 {
        self.outermost_promoted_at.get()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::job::HeapJob;
    use crate::registry::Worker;

    /// Distinct job references for bookkeeping tests; never executed (freed at the end).
    fn jobs(n: usize) -> Vec<JobRef> {
        (0..n)
            .map(|_| {
                // SAFETY: each job is executed exactly once, by `free`.
                unsafe { HeapJob::new(|_: &Worker| {}).into_job_ref() }
            })
            .collect()
    }

    fn free(jobs: Vec<JobRef>) {
        let registry = crate::registry::Registry::new(1, Default::default());
        let worker = Worker::new(registry, 0);
        for job in jobs {
            // SAFETY: created above, not executed before: executing frees it.
            unsafe { job.execute(&worker) };
        }
    }

    #[test]
    fn private_records_are_promoted_oldest_first() {
        let j = jobs(4);
        let frames = FrameStack::new();
        let indices: Vec<usize> = j.iter().map(|&job| frames.record(job)).collect();
        assert_eq!(indices, [0, 1, 2, 3]);
        assert_eq!(frames.private(), 4);
        assert_eq!(frames.promote_oldest(), Some(j[0]));
        assert_eq!(frames.promote_oldest(), Some(j[1]));
        assert_eq!(frames.private(), 2);
        // The youngest two are left while private.
        assert!(!frames.leave(3));
        assert!(!frames.leave(2));
        assert_eq!(frames.promote_oldest(), None, "everything left is public");
        // The promoted ones are left as public, youngest first.
        assert!(frames.leave(1));
        assert_eq!((frames.len(), frames.private()), (1, 0));
        assert!(frames.leave(0));
        assert_eq!(frames.len(), 0);
        free(j);
    }

    /// A fork recorded after a promotion sits above the public prefix and is private; leaving
    /// a public fork also drops younger records that a panic skipped.
    #[test]
    fn records_after_a_promotion_are_private() {
        let j = jobs(4);
        let frames = FrameStack::new();
        frames.record(j[0]);
        assert_eq!(frames.promote_oldest(), Some(j[0]));
        let b = frames.record(j[1]);
        let c = frames.record(j[2]);
        assert_eq!(frames.private(), 2);
        assert_eq!(frames.promote_oldest(), Some(j[1]));
        assert!(!frames.leave(c));
        let d = frames.record(j[3]);
        assert_eq!(d, 2);
        assert_eq!(frames.private(), 1);
        assert!(
            frames.leave(b),
            "promoted, and drops the record at 2 with it"
        );
        assert_eq!((frames.len(), frames.private()), (1, 0));
        assert!(frames.leave(0));
        free(j);
    }

    /// Only the promotion of the outermost record is stamped: deeper promotions leave the
    /// stamp of the pending outermost fork alone.
    #[test]
    fn the_outermost_promotion_is_stamped() {
        let j = jobs(3);
        let frames = FrameStack::new();
        assert_eq!(frames.outermost_promoted_at(), 0);
        frames.record(j[0]);
        frames.record(j[1]);
        let before = timestamp();
        assert_eq!(frames.promote_oldest(), Some(j[0]));
        let stamp = frames.outermost_promoted_at();
        assert!(
            stamp.wrapping_sub(before) as i64 >= 0,
            "stamped at the promotion"
        );
        assert_eq!(frames.promote_oldest(), Some(j[1]));
        assert_eq!(frames.outermost_promoted_at(), stamp, "a deeper promotion");
        assert!(frames.leave(0));
        // A new outermost record, promoted: a new stamp.
        frames.record(j[2]);
        while timestamp() == stamp {}
        assert_eq!(frames.promote_oldest(), Some(j[2]));
        assert_ne!(frames.outermost_promoted_at(), stamp);
        assert!(frames.leave(0));
        free(j);
    }

    #[test]
    fn grows_past_its_initial_capacity() {
        let j = jobs(3 * INITIAL_CAPACITY);
        let frames = FrameStack::new();
        for (i, &job) in j.iter().enumerate() {
            assert_eq!(frames.record(job), i);
        }
        for (i, &job) in j.iter().enumerate().take(INITIAL_CAPACITY + 1) {
            assert_eq!(frames.promote_oldest(), Some(job), "record {i}");
        }
        assert!(!frames.leave(INITIAL_CAPACITY + 1));
        assert!(frames.leave(INITIAL_CAPACITY));
        assert!(frames.leave(0));
        assert_eq!(frames.len(), 0);
        free(j);
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    //! Models of lazy promotion with the real fork and steal code: loom threads play the
    //! workers (`Worker::new` starts no OS thread), the owner forks through `Worker::join`
    //! and answers a request raised in its flag, a second worker idles in `wait_until`
    //! (stealing, raising requests and refills, sleeping).
    use std::sync::Arc;

    use loom::sync::Mutex;
    use loom::thread;

    use crate::latch::CoreLatch;
    use crate::registry::loom_tests::release;
    use crate::registry::{Registry, Worker};
    use crate::sync::Ordering;
    use crate::threads::Handlers;

    /// Runs `owner_side` on worker 0 while worker 1 idles (and steals) until it returns.
    fn with_thief(owner_side: impl FnOnce(&Worker)) {
        let registry = Registry::new(2, Handlers::default());
        let done = Arc::new(CoreLatch::new());
        let thief = {
            let registry = Arc::clone(&registry);
            let done = Arc::clone(&done);
            thread::spawn(move || {
                let worker = Worker::new(registry, 1);
                worker.wait_until(&*done);
            })
        };
        let owner = Worker::new(Arc::clone(&registry), 0);
        owner_side(&owner);
        release(&registry, &done, 1);
        thief.join().unwrap();
    }

    /// A recorded fork promoted on request while its first closure runs: its second job runs
    /// exactly once, on the thief or popped back by the owner, and the join returns both
    /// results. (Planting a `FrameStack::leave` that never reports a promotion, so the owner
    /// runs a published job inline while a thief may hold it, makes this model fail: the run
    /// crashes, the job running twice or after its frame returned.)
    #[test]
    fn promoted_frame_runs_once_stolen_or_popped_back() {
        loom::model(|| {
            with_thief(|owner| {
                let ran = loom::sync::atomic::AtomicUsize::new(0);
                let (a, b) = owner.join(
                    |w| {
                        w.raise_work_request();
                        w.poll_work_request();
                        assert!(!w.has_private_frames(), "the request promoted the fork");
                        1
                    },
                    |_| {
                        ran.fetch_add(1, Ordering::Relaxed);
                        2
                    },
                );
                assert_eq!((a, b), (1, 2));
                assert_eq!(ran.load(Ordering::Relaxed), 1);
            });
        });
    }

    /// A request answered deep in a recursion offers the *oldest* private fork: with two
    /// recorded forks pending and one job wanted, only the outer fork's second job can reach
    /// the thief; the inner one always runs on the owner. (Planting a `promote_oldest` that
    /// takes the newest record makes this model fail: the public records are no longer a
    /// prefix, so the owner misjudges which of its jobs were published, and the run crashes.)
    #[test]
    fn request_promotes_the_oldest_fork_first() {
        loom::model(|| {
            with_thief(|owner| {
                let ran_on = Mutex::new(Vec::new());
                owner.join(
                    |w| {
                        w.join(
                            |w| {
                                w.raise_work_request();
                                w.poll_work_request();
                            },
                            |w| ran_on.lock().unwrap().push(("inner", w.index())),
                        )
                    },
                    |w| ran_on.lock().unwrap().push(("outer", w.index())),
                );
                let ran_on = ran_on.into_inner().unwrap();
                assert_eq!(ran_on.len(), 2, "{ran_on:?}");
                assert!(ran_on.contains(&("inner", 0)), "{ran_on:?}");
            });
        });
    }
}
