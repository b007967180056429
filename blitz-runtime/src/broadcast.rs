//! Running an operation once on every worker: [`broadcast`] (rayon-core semantics).
//!
//! # How a job reaches one specific worker
//!
//! Deques and the injector hand a job to *whoever* takes it first, so they cannot target a
//! worker. Each worker therefore also has a [`BroadcastQueue`] that only it takes from: it
//! checks it in `find_work` right after its own deque, before stealing. The broadcaster puts
//! one stack job in every worker's queue, all counted by one [`CountLatch`], and then waits on
//! that latch like a joiner (running other work, its own broadcast job included).
//!
//! # Waking sleeping workers
//!
//! After queueing, the broadcaster calls `wake_specific_thread` for every worker. That cannot
//! lose a wake-up against a worker that is going to sleep: the sleeper holds its sleep mutex
//! from before its last check for work (step 7 of `Sleep::sleep`, which includes its broadcast
//! queue) until it blocks, and the waker takes the same mutex. Either the waker gets the mutex
//! first, and then the queued job happens-before the sleeper's check, which sees it; or the
//! sleeper is already blocked when the waker gets the mutex, and the waker wakes it. A worker
//! that is awake finds the job at its next `find_work`.

use std::collections::VecDeque;
use std::panic;

use crate::job::{JobRef, JobResult, StackJob};
use crate::join::with_worker;
use crate::latch::{CountLatch, Latch, LatchRef};
use crate::registry::Worker;
use crate::sync::{self, AtomicUsize, Mutex, Ordering};
use crate::unwind::drop_quietly;

/// What a broadcast operation learns about the worker running it.
///
/// ```
/// let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let seen = pool.broadcast(|ctx| (ctx.index(), ctx.num_threads(), ctx.worker().index()));
/// assert_eq!(seen, vec![(0, 2, 0), (1, 2, 1)]);
/// ```
#[derive(Debug)]
pub struct BroadcastContext<'a> {
    worker: &'a Worker,
}

impl<'a> BroadcastContext<'a> {
    pub(crate) fn new(worker: &'a Worker) -> Self {
        BroadcastContext { worker }
    }

    /// The index of the worker running this call, `0..num_threads()`.
    pub fn index(&self) -> usize {
        self.worker.index()
    }

    /// The number of workers in the pool, i.e. how many times the operation runs.
    pub fn num_threads(&self) -> usize {
        self.worker.num_threads()
    }

    /// The context of the worker running this call (to fork with [`Worker::join`]).
    pub fn worker(&self) -> &'a Worker {
        self.worker
    }
}

/// Runs `op` once on every worker of the current pool (the pool of the current worker thread,
/// or the global pool from outside every pool) and returns the results in worker-index order.
///
/// ```
/// let pool = blitz::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
/// let indices = pool.install(|| blitz::broadcast(|ctx| ctx.index()));
/// assert_eq!(indices, vec![0, 1, 2]);
/// ```
///
/// Each call runs on the worker it is meant for, so this is the way to initialise per-thread
/// state. A worker runs its call when it is next idle or waiting (a worker busy with a long job
/// gets to it afterwards).
///
/// # Panics
///
/// If any call panics, `broadcast` waits for all the others and then re-throws the panic of the
/// lowest-indexed worker that panicked. Called from a pool's exit handler on that pool (whose
/// workers are exiting), it panics at once instead of waiting for them forever.
pub fn broadcast<OP, R>(op: OP) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    with_worker(|worker| broadcast_in_worker(worker, &op))
}

/// [`broadcast`] from `owner`, on `owner`'s pool.
pub(crate) fn broadcast_in_worker<OP, R>(owner: &Worker, op: &OP) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    // Before anything is queued: from an exit handler, the other workers are gone.
    owner.registry().accept_broadcast("broadcast");
    let num_threads = owner.num_threads();
    let latch = CountLatch::new(Some(owner));
    let jobs: Vec<_> = (0..num_threads)
        .map(|_| {
            StackJob::new(
                |worker: &Worker| op(BroadcastContext { worker }),
                LatchRef::new(&latch),
            )
        })
        .collect();
    for _ in 0..num_threads {
        latch.increment();
    }
    let job_refs = jobs.iter().map(|job| {
        // SAFETY: `jobs` stays in place until `latch` (set by every job) reaches zero: we wait
        // for it below, and nothing between here and the wait can unwind.
        unsafe { job.as_job_ref() }
    });
    owner.registry().inject_broadcast(job_refs);
    // SAFETY: the owner's own count; `latch` lives in this frame until after the wait.
    unsafe { Latch::set(&latch) };
    latch.wait(Some(owner));
    let results = jobs.iter().map(|job| {
        // SAFETY: every job's latch reference was set (the count is zero), so each ran and
        // wrote its result before its decrement; each result is taken once.
        unsafe { job.take_job_result() }
    });
    let mut values = Vec::with_capacity(num_threads);
    let mut first_panic = None;
    for result in results {
        match result {
            JobResult::Ok(value) if first_panic.is_none() => values.push(value),
            JobResult::Panic(payload) if first_panic.is_none() => first_panic = Some(payload),
            other => other.discard(),
        }
    }
    if let Some(payload) = first_panic {
        // Discarded here rather than while the panic unwinds (see `drop_quietly`).
        values.into_iter().for_each(drop_quietly);
        panic::resume_unwind(payload);
    }
    values
}

/// The queue of broadcast jobs meant for one worker. Any thread pushes; only that worker pops.
pub(crate) struct BroadcastQueue {
    jobs: Mutex<VecDeque<JobRef>>,
    /// The queue's length, readable without the lock (a hint for `find_work`'s fast path).
    len: AtomicUsize,
}

impl BroadcastQueue {
    pub(crate) fn new() -> Self {
        BroadcastQueue {
            jobs: Mutex::new(VecDeque::new()),
            len: AtomicUsize::new(0),
        }
    }

    pub(crate) fn push(&self, job: JobRef) {
        let mut jobs = sync::lock(&self.jobs);
        jobs.push_back(job);
        // Relaxed: the job itself is handed over by the mutex. A reader that must not miss
        // the job (the sleeper's final check) is ordered after this store by the sleep mutex
        // (see the module docs), and any other reader merely retries later.
        self.len.store(jobs.len(), Ordering::Relaxed);
    }

    /// True if a job is (probably) queued; exact for readers ordered after the push.
    pub(crate) fn has_jobs(&self) -> bool {
        // Relaxed: see `push`.
        self.len.load(Ordering::Relaxed) != 0
    }

    /// Takes the oldest queued job.
    pub(crate) fn pop(&self) -> Option<JobRef> {
        if !self.has_jobs() {
            return None;
        }
        let mut jobs = sync::lock(&self.jobs);
        let job = jobs.pop_front();
        // Relaxed: as in `push`; written under the lock, so it matches the queue.
        self.len.store(jobs.len(), Ordering::Relaxed);
        job
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::ThreadPoolBuilder;

    #[test]
    fn broadcast_from_outside_and_nested() {
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        assert_eq!(pool.broadcast(|ctx| ctx.index() * 10), vec![0, 10]);
        // A broadcast from inside a broadcast call: every worker broadcasts in turn.
        let nested = pool.broadcast(|_| broadcast(|ctx| ctx.num_threads()));
        assert_eq!(nested, vec![vec![2, 2], vec![2, 2]]);
    }

    #[test]
    fn queue_is_fifo() {
        let q = BroadcastQueue::new();
        assert!(q.pop().is_none());
        let a = crate::job::HeapJob::new(|_: &Worker| {});
        let b = crate::job::HeapJob::new(|_: &Worker| {});
        // SAFETY: both are executed below, exactly once.
        let (a, b) = unsafe { (a.into_job_ref(), b.into_job_ref()) };
        q.push(a);
        q.push(b);
        assert!(q.has_jobs());
        assert_eq!(q.pop(), Some(a));
        assert_eq!(q.pop(), Some(b));
        assert!(!q.has_jobs());
        let pool = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        pool.install_with_worker(move |w| {
            w.execute(a);
            w.execute(b);
        });
    }
}
