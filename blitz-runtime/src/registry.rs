//! The registry: the shared state of one pool (the workers' deques and request flags, the
//! injector, the sleep manager). The per-thread [`Worker`] context, which finds and runs work
//! on it, is in [`worker`]; what a worker offers of its own pending forks, and when, is in
//! [`promotion`]. (The worker threads, their main loop and the pool's handlers are in
//! `threads`.)

use std::ptr;
use std::sync::Arc;

use crate::broadcast::BroadcastQueue;
use crate::deque::Deque;
use crate::injector::Injector;
use crate::job::{JobHeader, JobRef, StackJob};
use crate::latch::{CoreLatch, LatchRef, OnceLatch, ParkLatch};
use crate::scope_fifo::SpawnFifoQueue;
use crate::sleep::Sleep;
use crate::sync::{AtomicUsize, Ordering};
use crate::threads::{ExitTally, Handlers, StartGate};
use crate::watch::OutsideWatch;

use crossbeam_utils::CachePadded;

mod promotion;
mod worker;

#[cfg(all(test, not(loom)))]
pub(crate) use promotion::REQUEST_DEFERRED;
use promotion::WorkRequest;
pub(crate) use promotion::{REQUEST_NONE, REQUEST_RAISED, REQUEST_REFILL, request_is_fresh};
pub use worker::Worker;

/// Per-worker state that other threads reach through the registry.
struct ThreadInfo {
    /// The worker's deque: it pushes and pops, everyone else steals.
    deque: Deque<JobHeader>,
    /// Set when the pool terminates; the worker's main loop waits on it.
    terminate: CoreLatch,
    /// Raised by idle peers: "promote a private frame so we can steal it" (one of the
    /// `REQUEST_*` states), with the time it was raised. A hint only: if it is missed, work
    /// still completes, just with less parallelism. Padded: it is read at every fork by its
    /// owner and written by others only while they are idle.
    work_wanted: CachePadded<WorkRequest>,
    /// Broadcast jobs for this worker: anyone pushes, only the worker takes.
    broadcasts: BroadcastQueue,
}

/// The shared state of one thread pool.
pub(crate) struct Registry {
    thread_infos: Box<[ThreadInfo]>,
    pub(crate) sleep: Sleep,
    injector: Injector<JobRef>,
    /// The pool terminates when this drops to zero: one count for the `ThreadPool` handle,
    /// one per pending `spawn`ed job.
    terminate_count: AtomicUsize,
    handlers: Handlers,
    /// Which worker stays awake for the next call from outside, and until when.
    #[cfg_attr(loom, allow(dead_code))]
    outside_watch: OutsideWatch,
    /// The bodies of `spawn_fifo` tasks, oldest first.
    fifo_spawns: SpawnFifoQueue,
    /// Where new workers wait for the build to finish starting them all.
    start_gate: StartGate,
    /// How many workers have finished, for a dropped pool's wait (see `release_workers`).
    exit_tally: ExitTally,
}

impl Registry {
    /// A registry for `num_threads` workers. It starts no threads: see
    /// `ThreadPoolBuilder::build`, which spawns them and runs
    /// [`main_loop`](crate::threads::main_loop) on each.
    pub(crate) fn new(num_threads: usize, handlers: Handlers) -> Arc<Registry> {
        assert!(num_threads > 0, "a registry needs at least one worker");
        Arc::new(Registry {
            thread_infos: (0..num_threads)
                .map(|_| ThreadInfo {
                    deque: Deque::new(),
                    terminate: CoreLatch::new(),
                    work_wanted: CachePadded::new(WorkRequest::new()),
                    broadcasts: BroadcastQueue::new(),
                })
                .collect(),
            sleep: Sleep::new(
                num_threads,
                std::thread::available_parallelism().map_or(1, usize::from),
            ),
            injector: Injector::new(),
            terminate_count: AtomicUsize::new(1),
            handlers,
            outside_watch: OutsideWatch::new(),
            fifo_spawns: SpawnFifoQueue::new(),
            start_gate: StartGate::new(),
            exit_tally: ExitTally::new(),
        })
    }

    /// Where new workers wait for the build to finish starting them all.
    pub(crate) fn start_gate(&self) -> &StartGate {
        &self.start_gate
    }

    /// The count of workers that have finished.
    pub(crate) fn exit_tally(&self) -> &ExitTally {
        &self.exit_tally
    }

    /// The queue of this pool's `spawn_fifo` bodies.
    pub(crate) fn fifo_spawns(&self) -> &SpawnFifoQueue {
        &self.fifo_spawns
    }

    pub(crate) fn num_threads(&self) -> usize {
        self.thread_infos.len()
    }

    /// Runs `op` on a worker of this pool: directly if the current thread is one, otherwise by
    /// injecting it and waiting.
    pub(crate) fn in_worker<OP, R>(self: &Arc<Self>, op: OP) -> R
    where
        OP: FnOnce(&Worker) -> R + Send,
        R: Send,
    {
        match Worker::current() {
            // SAFETY: `current` points to this thread's live worker.
            Some(worker) if ptr::eq(&*worker.registry, &**self) => op(worker),
            Some(worker) => self.in_worker_cross(worker, op),
            None => self.in_worker_cold(op),
        }
    }

    /// From a thread outside every pool: inject `op` and block until a worker has run it.
    #[cold]
    fn in_worker_cold<OP, R>(self: &Arc<Self>, op: OP) -> R
    where
        OP: FnOnce(&Worker) -> R + Send,
        R: Send,
    {
        let latch = ParkLatch::new();
        let job = StackJob::new(op, LatchRef::new(&latch));
        // Neither wait below unwinds, and both return only once the latch is set.
        // SAFETY: so `job` stays in this frame until its latch is set.
        let job_ref = unsafe { job.as_job_ref() };
        if self.inject(job_ref) {
            latch.wait_blocking();
        } else {
            // Our job has been taken once the injector is empty (or only holds later jobs,
            // which this misses: it then yields, as when nobody has taken ours).
            latch.wait(|| !self.has_injected_jobs());
        }
        // SAFETY: the latch is set.
        unsafe { job.take_result() }
    }

    /// From a worker of *another* pool: inject `op` here and keep the current worker busy with
    /// its own pool's work until it completes.
    #[cold]
    fn in_worker_cross<OP, R>(self: &Arc<Self>, current: &Worker, op: OP) -> R
    where
        OP: FnOnce(&Worker) -> R + Send,
        R: Send,
    {
        let job = StackJob::new(op, OnceLatch::cross(current));
        // SAFETY: `job` stays in this frame until its latch is set (`wait_until` returns only
        // then and does not unwind: jobs it runs catch their own panics).
        self.inject(unsafe { job.as_job_ref() });
        // The wait runs our own pool's jobs meanwhile, our private forks among them: `op` may
        // wait for one of them (a sibling in the join this call sits in).
        current.publish_private_frames();
        current.wait_until(&job.latch);
        // SAFETY: the latch is set.
        unsafe { job.take_result() }
    }

    /// Queues a job from outside the pool and wakes a worker for it.
    /// True if it woke a sleeping worker for it (false: an awake worker will take it).
    pub(crate) fn inject(&self, job: JobRef) -> bool {
        debug_assert!(
            self.terminate_count.load(Ordering::Relaxed) > 0,
            "blitz: job injected into a terminated pool"
        );
        let queue_was_empty = self.injector.is_empty();
        self.injector.push(job);
        self.sleep.new_injected_jobs(1, queue_was_empty) > 0
    }

    pub(crate) fn has_injected_jobs(&self) -> bool {
        !self.injector.is_empty()
    }

    /// Queues a job: on the current thread's deque if it is a worker of this pool (cheap, and
    /// the job stays cache-warm), otherwise through the injector.
    pub(crate) fn inject_or_push(&self, job: JobRef) {
        match Worker::current() {
            Some(worker) if ptr::eq(&**worker.registry(), self) => worker.push_unjoined(job),
            _ => {
                self.inject(job);
            }
        }
    }

    /// Gives job `i` to worker `i`, for every worker, and wakes the sleepers among them (see
    /// [`crate::broadcast`](mod@crate::broadcast) for why the wake-up cannot be lost).
    pub(crate) fn inject_broadcast(&self, jobs: impl ExactSizeIterator<Item = JobRef>) {
        assert_eq!(
            jobs.len(),
            self.num_threads(),
            "blitz: a broadcast needs one job per worker"
        );
        for (info, job) in self.thread_infos.iter().zip(jobs) {
            info.broadcasts.push(job);
        }
        for index in 0..self.num_threads() {
            self.sleep.wake_specific_thread(index);
        }
    }

    /// The latch worker `target` waits on was set while it slept: wake it.
    pub(crate) fn notify_worker_latch_is_set(&self, target: usize) {
        self.sleep.notify_worker_latch_is_set(target);
    }

    /// Keeps the pool alive for one more pending job (see `terminate`).
    ///
    /// # Panics
    ///
    /// If the pool has terminated: the job could never run (see [`Registry::accept_work`]).
    pub(crate) fn increment_terminate_count(&self) {
        // Relaxed throughout: a caller that holds a count (the pool handle, a running spawned
        // job) keeps it above zero; one that does not is a worker of this pool past its
        // terminate latch (an exit handler), and that latch's acquire ordered it after the
        // decrement to zero, so it reads zero (or nothing older). Zero is final. A CAS, not an
        // add: two exit handlers adding at once would each revive the count for the other.
        let mut count = self.terminate_count.load(Ordering::Relaxed);
        loop {
            if count == 0 {
                shut_down_pool_rejects("spawn");
            }
            assert!(count != usize::MAX, "blitz: terminate count overflow");
            match self.terminate_count.compare_exchange_weak(
                count,
                count + 1,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return,
                Err(current) => count = current,
            }
        }
    }

    /// Checks that work submitted now can still run: panics if the pool has terminated, which
    /// the only threads that can still reach it, its workers' exit handlers, see (see
    /// `increment_terminate_count` for why the load cannot be stale).
    pub(crate) fn accept_work(&self, what: &str) {
        // Relaxed: see `increment_terminate_count`.
        if self.terminate_count.load(Ordering::Relaxed) == 0 {
            shut_down_pool_rejects(what);
        }
    }

    /// [`accept_work`](Self::accept_work) for work that needs every worker (a broadcast):
    /// also panics on the workers of a failed build, whose missing workers would never run
    /// their part (see [`StartGate`]).
    pub(crate) fn accept_broadcast(&self, what: &str) {
        self.accept_work(what);
        if self.start_gate.failed() {
            panic!(
                "blitz: {what} refused: this pool's build failed before every worker was \
                 started, so the missing workers could never run their part"
            );
        }
    }

    /// Drops one count; at zero, tells every worker to exit once it is idle.
    pub(crate) fn terminate(&self) {
        // AcqRel: whoever drops the last count sees everything done under the other counts.
        if self.terminate_count.fetch_sub(1, Ordering::AcqRel) == 1 {
            for (index, info) in self.thread_infos.iter().enumerate() {
                // SAFETY: the latch lives in the registry, which `&self` keeps alive.
                if unsafe { CoreLatch::set(&info.terminate) } {
                    self.notify_worker_latch_is_set(index);
                }
            }
        }
    }

    /// The callbacks taken from the builder.
    pub(crate) fn handlers(&self) -> &Handlers {
        &self.handlers
    }

    /// The latch worker `index`'s main loop waits on: set when the pool terminates.
    pub(crate) fn terminate_latch(&self, index: usize) -> &CoreLatch {
        &self.thread_infos[index].terminate
    }

    /// An idle worker asks every peer to promote a private frame (see the module docs).
    fn request_work(&self, from: usize) {
        for (index, info) in self.thread_infos.iter().enumerate() {
            if index != from {
                self.raise_request(info);
            }
        }
    }

    /// Raises one worker's request flag, unless a request is already pending there.
    fn raise_request(&self, info: &ThreadInfo) {
        // Relaxed: a hint (see `ThreadInfo::work_wanted`). Read first so that idle rounds do not
        // keep invalidating the busy owner's cache line.
        if info.work_wanted.state.load(Ordering::Relaxed) == REQUEST_NONE {
            info.work_wanted.raise(REQUEST_RAISED);
        }
    }

    /// A thief took a job from this worker's deque: ask it to keep one on offer for every peer
    /// (see `REQUEST_REFILL`). A deferred request stays deferred: there is nothing to refill
    /// with until the owner records a fork, which then answers it.
    fn request_refill(&self, info: &ThreadInfo) {
        // Acquire, so that a refill keeps the stamp of the request it turns (see
        // `WorkRequest::turn_into_refill`); the state itself is a hint, as in `raise_request`.
        match info.work_wanted.state.load(Ordering::Acquire) {
            REQUEST_NONE => info.work_wanted.raise(REQUEST_REFILL),
            REQUEST_RAISED => info.work_wanted.turn_into_refill(),
            _ => {}
        }
    }

    /// The number of workers currently blocked in the sleep protocol.
    pub(crate) fn sleeping_threads(&self) -> usize {
        self.sleep.counters().sleeping_threads()
    }
}

/// Rejects work submitted to a pool that has terminated (from a worker's exit handler): its
/// workers are exiting, so it would never run.
#[cold]
#[track_caller]
fn shut_down_pool_rejects(what: &str) -> ! {
    panic!(
        "blitz: {what} on a thread pool that is shutting down: work submitted from an exit \
         handler would never run"
    )
}

#[cfg(all(test, loom))]
pub(crate) mod loom_tests;

#[cfg(all(test, not(loom)))]
mod tests;
