//! `yield_now` and `yield_local`: let a worker run pending work from inside a job, as rayon's
//! functions of those names do (for code that waits on something outside the pool, such as a
//! channel or a lock, and would otherwise keep its worker from helping).

use crate::registry::Worker;

/// What [`yield_now`] or [`yield_local`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Yield {
    /// It ran one pending job.
    Executed,
    /// There was no pending job to run.
    Idle,
}

/// Runs one pending job of the current worker's pool, if there is one: from this worker's own
/// deque, its broadcasts, a peer's deque or the pool's injector. `None` if the current thread
/// is not a worker of any pool.
///
/// ```
/// let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// assert_eq!(blitz::yield_now(), None);
/// let outcome = pool.install(blitz::yield_now);
/// assert!(outcome.is_some());
/// ```
pub fn yield_now() -> Option<Yield> {
    Worker::current().map(|worker| yield_on(worker, false))
}

/// Runs one job from the current worker's own deque, if there is one (not from peers or the
/// injector). `None` if the current thread is not a worker of any pool.
///
/// ```
/// let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// assert_eq!(pool.install(blitz::yield_local), Some(blitz::Yield::Idle));
/// ```
pub fn yield_local() -> Option<Yield> {
    Worker::current().map(|worker| yield_on(worker, true))
}

/// True if the current worker has work of its own pending: jobs in its deque, or forks it has
/// recorded and not yet run (which it offers to an idle peer that asks). `None` if the current
/// thread is not a worker of any pool.
///
/// On a pool of one thread a fork is a plain call, never recorded: the second closure of a
/// `join` is not pending while the first runs, and neither this nor [`yield_local`] sees it.
///
/// ```
/// assert_eq!(blitz::current_thread_has_pending_tasks(), None);
/// let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// assert_eq!(pool.install(blitz::current_thread_has_pending_tasks), Some(false));
/// ```
pub fn current_thread_has_pending_tasks() -> Option<bool> {
    Worker::current().map(Worker::has_pending_tasks)
}

pub(crate) fn yield_on(worker: &Worker, local_only: bool) -> Yield {
    if worker.run_one_pending_job(local_only) {
        Yield::Executed
    } else {
        Yield::Idle
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::*;
    use crate::{FnContext, ThreadPoolBuilder, join_context, spawn};

    /// Runs `test` on worker 0 of a pool of 2 while worker 1 is held in a job that waits for
    /// `test` to finish (or panic: the panic then propagates), so that nobody else takes
    /// worker 0's jobs. `test` starts only once worker 1 is in its job: before that, an idle
    /// worker 1 could steal what `test` spawns (one Miri seed saw it).
    fn with_peer_held(test: impl Fn() + Sync) {
        struct Release<'a>(&'a AtomicBool);
        impl Drop for Release<'_> {
            fn drop(&mut self) {
                self.0.store(true, Ordering::Release);
            }
        }
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let done = AtomicBool::new(false);
        let held = AtomicBool::new(false);
        pool.broadcast(|ctx| {
            if ctx.index() == 1 {
                held.store(true, Ordering::Release);
                while !done.load(Ordering::Acquire) {
                    std::thread::yield_now();
                }
            } else {
                let _release = Release(&done);
                while !held.load(Ordering::Acquire) {
                    std::thread::yield_now();
                }
                test();
            }
        });
    }

    #[test]
    fn outside_a_pool_there_is_nothing_to_yield_to() {
        assert_eq!(yield_now(), None);
        assert_eq!(yield_local(), None);
        assert_eq!(current_thread_has_pending_tasks(), None);
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        assert_eq!(pool.yield_now(), None);
        let other = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        assert_eq!(other.install(|| pool.yield_local()), None);
        assert!(other.install(|| pool.yield_now()).is_none());
    }

    #[test]
    fn yielding_runs_the_pending_job_and_then_finds_none() {
        with_peer_held(|| {
            assert_eq!(current_thread_has_pending_tasks(), Some(false));
            let ran = Arc::new(AtomicBool::new(false));
            let flag = Arc::clone(&ran);
            spawn(move || flag.store(true, Ordering::Release));
            assert_eq!(current_thread_has_pending_tasks(), Some(true));
            assert_eq!(yield_local(), Some(Yield::Executed));
            assert!(ran.load(Ordering::Acquire));
            assert_eq!(current_thread_has_pending_tasks(), Some(false));
            assert_eq!(yield_local(), Some(Yield::Idle));
            assert_eq!(yield_now(), Some(Yield::Idle));
        });
    }

    #[test]
    fn yield_now_reaches_a_job_queued_anywhere_in_the_pool() {
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let ran = Arc::new(AtomicBool::new(false));
        pool.install(|| {
            let flag = Arc::clone(&ran);
            spawn(move || flag.store(true, Ordering::Release));
            // Either this worker runs it or its peer does; yielding until then ends.
            while !ran.load(Ordering::Acquire) {
                let outcome = pool.yield_now();
                assert!(outcome.is_some());
                if outcome == Some(Yield::Executed) {
                    assert!(ran.load(Ordering::Acquire));
                }
            }
        });
    }

    #[test]
    fn a_first_closure_that_yields_runs_its_waiting_sibling() {
        // The first closure waits for the second, yielding: its sibling is a private fork of
        // this worker, which the yield publishes and then runs, newest first (rayon runs it
        // from the deque).
        with_peer_held(|| {
            let flag = AtomicBool::new(false);
            crate::join(
                || {
                    crate::join(
                        || {
                            assert_eq!(current_thread_has_pending_tasks(), Some(true));
                            assert_eq!(yield_local(), Some(Yield::Executed));
                            assert!(flag.load(Ordering::Acquire));
                        },
                        || flag.store(true, Ordering::Release),
                    )
                },
                || (),
            );
        });
    }

    #[test]
    fn a_wait_on_another_pool_runs_the_waiting_closures_sibling() {
        // The first closure waits, inside another pool, for the second: the worker's wait for
        // that call runs its own pool's jobs, the private sibling among them.
        let other = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        with_peer_held(|| {
            let flag = AtomicBool::new(false);
            crate::join(
                || {
                    crate::join(
                        || {
                            other.install(|| {
                                let deadline =
                                    std::time::Instant::now() + std::time::Duration::from_secs(60);
                                while !flag.load(Ordering::Acquire) {
                                    assert!(std::time::Instant::now() < deadline, "not run");
                                    std::thread::yield_now();
                                }
                            })
                        },
                        || flag.store(true, Ordering::Release),
                    )
                },
                || (),
            );
        });
    }

    #[test]
    fn join_context_says_which_closure_moved() {
        let ctx = |c: FnContext| c.migrated();
        // From outside every pool, both run on the global pool, away from the caller. (Not
        // under Miri: the global pool's threads outlive the test, which Miri reports.)
        if !cfg!(miri) {
            assert_eq!(join_context(ctx, ctx), (true, true));
        }
        with_peer_held(|| {
            // Nobody can take the second closure: both run here.
            assert_eq!(join_context(ctx, ctx), (false, false));
        });
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        pool.install(|| {
            let here = crate::current_thread_index();
            let (a, (b, b_thread)) =
                join_context(ctx, |c| (c.migrated(), crate::current_thread_index()));
            assert!(!a);
            assert_eq!(b, b_thread != here);
        });
    }
}
