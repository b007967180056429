//! The registry: the shared state of one pool (deques, injector, sleep manager) and the
//! per-thread [`Worker`] context. (The worker threads, their main loop and the pool's handlers
//! are in `threads`.)
//!
//! # Work-finding order (seed 001)
//!
//! 1. the worker's own deque (LIFO pop: freshest, cache-warm work);
//! 2. the worker's broadcast queue (jobs meant for this worker only, see [`crate::broadcast`]);
//! 3. the other workers' deques, starting from a random victim (FIFO steal: oldest, biggest);
//! 4. the injector (work from outside the pool).
//!
//! # Lazy promotion (private frames)
//!
//! A fork does not publish its second closure. `Worker::join` records the stack job of the
//! pending forks that may be worth offering on the worker's private frame stack
//! ([`FrameStack`]: plain `Cell`s, no atomics, no fences; see `record_window` and
//! `RECORD_CREDIT` for which forks) and runs both closures itself unless someone asks for work.
//! A worker that finds nothing to do raises the `work_wanted` flag of its peers, and a thief
//! that takes a job raises its victim's (`REQUEST_REFILL`); a worker that sees its flag at a
//! fork or join point (or while it waits) *promotes* its oldest private records, the ones
//! highest in its stack and so usually the largest pieces of work, by pushing them onto its
//! Chase-Lev deque, where the ordinary steal and sleep protocols take over. It promotes as many
//! as the idle workers need (`Worker::idle_share`), so one request can feed a whole pool.
//! Workers that go to sleep leave their request raised, so the first fork after a quiet period
//! publishes at once and wakes them. A worker whose last finds were too small to pay for their
//! steal pauses its requests for a while (see [`crate::pacing`]). The first forks of a new
//! call tree, one per idle peer, and a few forks after them (see [`Worker::eager_budget`]), are
//! published without being asked.

use std::cell::Cell;
use std::marker::PhantomData;
use std::ptr;
use std::sync::Arc;

use crate::broadcast::BroadcastQueue;
use crate::deque::{Deque, Steal};
use crate::frames::FrameStack;
use crate::injector::Injector;
use crate::job::{JobHeader, JobRef, StackJob};
use crate::join::timestamp;
use crate::latch::{AsCoreLatch, CoreLatch, LatchRef, OnceLatch, ParkLatch};
use crate::pacing::RequestPacing;
use crate::sleep::Sleep;
use crate::sync::{AtomicU8, AtomicUsize, Ordering};
use crate::threads::Handlers;

use crossbeam_utils::CachePadded;

/// How many private records a worker keeps before it stops recording forks (see
/// [`Worker::fork_mode`](crate::Worker::fork_mode); `Worker::join` may record beyond it on
/// credit, see [`RECORD_CREDIT`]). Forks beyond the window run as plain calls (in `#[parallel]`,
/// as plain recursion, one load per fork), which can offer nothing of their own, so the window
/// is what a worker deep in fine-grained recursion has on offer to idle peers: its outermost
/// `window` pending forks, re-recorded as promotions take them.
///
/// A recorded fork costs more than a plain one, and in a small call tree the window covers most
/// forks; a wide pool needs more frames on offer at once (`log2(num_threads)` levels hold one
/// piece per worker). So the window grows with the pool: `1 + log2(num_threads)`, rounded up
/// (2 on 2 workers, 7 on 64). Measured on 2 workers with a 1023-node tree joined at every node
/// and run back to back in the pool: a window of 2 took 1.43-1.48x the sequential time, 3 took
/// 1.72x, 6 took 2.42x; fib(35) did not change. On 32 and 64 workers with sleeping leaves, 6 and
/// 8 kept the same share of the workers busy.
/// A one-worker pool records nothing: nobody could take a recorded fork.
pub(crate) fn record_window(num_threads: usize) -> usize {
    if num_threads <= 1 {
        return 0;
    }
    1 + num_threads.next_power_of_two().trailing_zeros() as usize
}

use crate::unwind::AbortOnUnwind;
use crate::watch::OutsideWatch;

/// The most forks beyond the window that `Worker::join` records before it has seen one of them
/// wasted; a recorded fork left unpromoted spends one, a promotion earns
/// [`CREDIT_PER_PROMOTION`].
///
/// A fork beyond the window is worth recording only if it is entered once and stays pending a
/// long time: a chain of joins (`join(|w| rest(w), |_| leaf())`) enters every level once, in a
/// burst, and then sits at the bottom while idle peers ask for the levels above. A balanced tree
/// re-enters its deep levels millions of times, and recording each of those costs several times
/// a plain fork on a large tree (its job must be built in memory). Credit tells the two apart
/// without knowing the shape: records are spent only when they are left unpromoted, which a
/// chain's descent never does and a tree's leaves do at once.
const RECORD_CREDIT: usize = 1024;
/// The credit a promotion earns back: the records are in demand.
const CREDIT_PER_PROMOTION: usize = 64;

/// How much the refill reserve grows at each refill (see `Worker::refill_reserve`). Measured
/// with sleeping leaves on a chain of 512 joins over 64 workers: growth 2 kept 74% of the
/// workers busy, 4 kept 80% (publishing every record at once, 81%; rayon, which publishes
/// every fork, 80%). A fast ramp matters because the owner refills only at its fork and join
/// points, which a long leaf keeps it from for a whole leaf.
const REFILL_GROWTH: usize = 4;

/// `ThreadInfo::work_wanted`: no peer asks for work.
pub(crate) const REQUEST_NONE: u8 = 0;
/// `ThreadInfo::work_wanted`: an idle peer asks for work. Set only by peers, and only from
/// `REQUEST_NONE`.
pub(crate) const REQUEST_RAISED: u8 = 1;
/// `ThreadInfo::work_wanted`: a request the owner saw when it had no private frame to offer.
/// Still a request (the owner's recorded forks and waits answer it), but not one for the polls
/// of plain recursion: nothing forked there can be offered, and without this state every one
/// of its forks would take the out-of-line path while a peer sits idle.
pub(crate) const REQUEST_DEFERRED: u8 = 2;
/// `ThreadInfo::work_wanted`: a thief just took a job from the owner's deque. Our jobs are in
/// demand, and the thieves running them will want more the moment they finish, maybe while we
/// sit in a long leaf with no poll point: keep a job on offer for every peer (see
/// `Worker::refill_reserve`). Set only by thieves, from `REQUEST_NONE` or `REQUEST_RAISED`.
pub(crate) const REQUEST_REFILL: u8 = 3;

/// True for the request states that the polls of plain recursion answer (`REQUEST_RAISED`
/// and `REQUEST_REFILL`): one bit, so a poll stays one load and one test.
#[inline]
pub(crate) const fn request_is_fresh(state: u8) -> bool {
    state & 1 != 0
}

/// Per-worker state that other threads reach through the registry.
struct ThreadInfo {
    /// The worker's deque: it pushes and pops, everyone else steals.
    deque: Deque<JobHeader>,
    /// Set when the pool terminates; the worker's main loop waits on it.
    terminate: CoreLatch,
    /// Raised by idle peers: "promote a private frame so we can steal it" (one of the
    /// `REQUEST_*` states). A hint only: if it is missed, work still completes, just with less
    /// parallelism. Padded: it is read at every fork by its owner and written by others only
    /// while they are idle.
    work_wanted: CachePadded<AtomicU8>,
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
}

impl Registry {
    /// A registry for `num_threads` workers. It starts no threads: see
    /// `ThreadPoolBuilder::build`, which spawns them and runs [`main_loop`] on each.
    pub(crate) fn new(num_threads: usize, handlers: Handlers) -> Arc<Registry> {
        assert!(num_threads > 0, "a registry needs at least one worker");
        Arc::new(Registry {
            thread_infos: (0..num_threads)
                .map(|_| ThreadInfo {
                    deque: Deque::new(),
                    terminate: CoreLatch::new(),
                    work_wanted: CachePadded::new(AtomicU8::new(REQUEST_NONE)),
                    broadcasts: BroadcastQueue::new(),
                })
                .collect(),
            sleep: Sleep::new(num_threads),
            injector: Injector::new(),
            terminate_count: AtomicUsize::new(1),
            handlers,
            outside_watch: OutsideWatch::new(),
        })
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
            Some(worker) if ptr::eq(&**worker.registry(), self) => worker.push(job),
            _ => {
                self.inject(job);
            }
        }
    }

    /// Gives job `i` to worker `i`, for every worker, and wakes the sleepers among them (see
    /// [`crate::broadcast`] for why the wake-up cannot be lost).
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
        if info.work_wanted.load(Ordering::Relaxed) == REQUEST_NONE {
            info.work_wanted.store(REQUEST_RAISED, Ordering::Relaxed);
        }
    }

    /// A thief took a job from this worker's deque: ask it to keep one on offer for every peer
    /// (see `REQUEST_REFILL`). A deferred request stays deferred: there is nothing to refill
    /// with until the owner records a fork, which then answers it.
    fn request_refill(&self, info: &ThreadInfo) {
        // Relaxed: a hint, as in `raise_request`.
        let state = info.work_wanted.load(Ordering::Relaxed);
        if state == REQUEST_NONE || state == REQUEST_RAISED {
            info.work_wanted.store(REQUEST_REFILL, Ordering::Relaxed);
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

thread_local! {
    /// The worker running on this thread, if this thread is a pool worker.
    static CURRENT_WORKER: Cell<*const Worker> = const { Cell::new(ptr::null()) };
}

/// A worker thread's context: its index, its pool, its deque.
///
/// Generated code and the fast-path APIs receive a `&Worker` and pass it down the recursion,
/// so the thread-local lookup happens once per call tree rather than once per fork. A `&Worker`
/// cannot leave its thread (`Worker` is `!Sync`).
///
/// Get one with [`with_worker`](crate::with_worker),
/// [`ThreadPool::install_with_worker`](crate::ThreadPool::install_with_worker) or
/// [`Worker::with_current`]; fork with [`Worker::join`].
///
/// ```
/// use blitz::Worker;
///
/// fn count(w: &Worker, depth: u32) -> u64 {
///     if depth == 0 {
///         return 1;
///     }
///     let (a, b) = w.join(|w| count(w, depth - 1), |w| count(w, depth - 1));
///     a + b
/// }
/// assert_eq!(blitz::with_worker(|w| count(w, 10)), 1024);
/// ```
pub struct Worker {
    index: usize,
    registry: Arc<Registry>,
    /// The owner's side of `registry.thread_infos[index].deque`, cached to save the bounds
    /// check and two loads per push/pop. Valid as long as `registry` is.
    deque: *const Deque<JobHeader>,
    /// `registry.thread_infos[index].work_wanted`, cached like `deque`.
    work_wanted: *const AtomicU8,
    /// The records of this worker's pending forks, for promotion on request (see
    /// [`FrameStack`]).
    pub(crate) frames: FrameStack,
    /// The private records this worker keeps before it stops recording (see
    /// [`record_window`]).
    record_window: usize,
    /// How many of the next recorded forks are published at once instead of waiting for a
    /// request (see `join::Worker::join_recorded`). A peer may become idle just *after* a
    /// coarse fork, when the owner will not reach another fork point for a long time, so a
    /// request would come too late; publishing costs a deque push and a fenced pop, wasted
    /// whenever the owner pops the job back, so it is done only where peers are likely to
    /// become idle, or already are, during the fork's first closure:
    ///
    /// * when the worker starts a job at depth 0 (a new call tree): the idle workers' share
    ///   (`idle_share`, at least one). A call tree that starts on a sleeping wide pool then
    ///   publishes its first forks as it descends, one per idle peer, and each thief does the
    ///   same with its share of the rest, so the pool fills in a few steps instead of one
    ///   request per leaf of the owner;
    /// * at least the idle workers' share when a loop decides to share its items (after its
    ///   probe, or at once for a loop known to have expensive items; see `loops::engine`);
    /// * at least one when an outermost join found its second job stolen and was not small
    ///   (the thief is about to be idle; see `join::COARSE_FORK`), and when an eagerly
    ///   published job came back unstolen after a long first closure (peers were busy that
    ///   long, and may become idle during what follows).
    ///
    /// Spent by each fork published eagerly.
    eager_budget: Cell<usize>,
    /// How many jobs to keep on our deque when a thief asks for a refill (`REQUEST_REFILL`).
    /// Grown by [`REFILL_GROWTH`] at every refill: while thieves keep taking our jobs (a chain
    /// of joins whose second closures are long leaves, say), the reserve soon covers every
    /// pending record, as if each fork had been published. Halved, down to one per peer, when a
    /// published job comes back unstolen: the reserve was more than the thieves wanted.
    refill_reserve: Cell<usize>,
    /// How many more forks `Worker::join` may record beyond the window (see
    /// [`RECORD_CREDIT`]).
    record_credit: Cell<usize>,
    /// Whether the next `Worker::join` records its fork: not alone, and within the window or
    /// with record credit left. Derived from `alone`, `frames`, `record_window` and
    /// `record_credit`, and refreshed by every method that changes one of them (all of them
    /// on the recorded path, never on a plain fork), so that a plain fork decides with one
    /// load instead of five.
    join_records: Cell<bool>,
    /// The pool has no other worker: nobody can ever take a forked job, so forks are plain
    /// calls (jobs from outside still arrive through the injector).
    alone: bool,
    /// When this worker, idle, may ask its peers for work: paused after jobs too small to pay
    /// for their steal (see [`crate::pacing`]).
    pacing: RequestPacing,
    /// Victim selection (xorshift64*).
    rng: Cell<u64>,
    /// `!Sync` (and `!Send`): a worker context belongs to its thread.
    _not_sync: PhantomData<*const ()>,
}

impl std::fmt::Debug for Worker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Worker")
            .field("index", &self.index)
            .field("num_threads", &self.num_threads())
            .finish()
    }
}

impl Worker {
    pub(crate) fn new(registry: Arc<Registry>, index: usize) -> Worker {
        let deque: *const Deque<JobHeader> = &registry.thread_infos[index].deque;
        let work_wanted: *const AtomicU8 = &*registry.thread_infos[index].work_wanted;
        let num_threads = registry.num_threads();
        let alone = num_threads == 1;
        Worker {
            index,
            registry,
            deque,
            work_wanted,
            frames: FrameStack::new(),
            record_window: record_window(num_threads),
            refill_reserve: Cell::new(num_threads - 1),
            record_credit: Cell::new(RECORD_CREDIT),
            join_records: Cell::new(!alone),
            eager_budget: Cell::new(0),
            alone,
            pacing: RequestPacing::new(),
            // Any non-zero seed works; distinct per worker so victims differ.
            rng: Cell::new(0x9E37_79B9_7F4A_7C15 ^ ((index as u64 + 1) << 17)),
            _not_sync: PhantomData,
        }
    }

    /// The worker running on the current thread, if it is a pool worker.
    ///
    /// The `'static` is confined to crate-internal callers, which use the reference only within
    /// calls that run inside the worker's main loop (where the worker is alive).
    #[inline]
    pub(crate) fn current() -> Option<&'static Worker> {
        let worker = CURRENT_WORKER.with(Cell::get);
        // SAFETY: the pointer is set by `main_loop` to a worker that lives on that thread's
        // stack for as long as the pointer is set, and only that thread can read it.
        unsafe { worker.as_ref() }
    }

    /// Makes `worker` the current thread's worker, until [`Worker::leave_thread`]. Only a
    /// worker's main loop calls this, on its own thread, for a worker that lives on its stack
    /// until after `leave_thread`.
    pub(crate) fn enter_thread(worker: &Worker) {
        CURRENT_WORKER.with(|current| {
            debug_assert!(current.get().is_null());
            current.set(worker);
        });
    }

    /// Ends [`Worker::enter_thread`]: the thread is no longer a worker.
    pub(crate) fn leave_thread() {
        CURRENT_WORKER.with(|current| current.set(ptr::null()));
    }

    /// Calls `f` with the worker running on the current thread, or `None` outside a pool.
    ///
    /// ```
    /// let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let index = pool.install(|| blitz::Worker::with_current(|w| w.map(|w| w.index())));
    /// assert!(index.unwrap() < 2);
    /// assert!(blitz::Worker::with_current(|w| w.is_none()));
    /// ```
    pub fn with_current<R>(f: impl FnOnce(Option<&Worker>) -> R) -> R {
        f(Worker::current())
    }

    /// This worker's index in its pool, `0..num_threads`.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The number of workers in this worker's pool.
    pub fn num_threads(&self) -> usize {
        self.registry.num_threads()
    }

    pub(crate) fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    fn deque(&self) -> &Deque<JobHeader> {
        // SAFETY: points into `self.registry`, which `self` keeps alive.
        unsafe { &*self.deque }
    }

    /// The capacity of this worker's deque buffer (for tests of its shrinking).
    #[cfg(all(test, not(loom)))]
    pub(crate) fn deque_capacity(&self) -> usize {
        self.deque().capacity()
    }

    /// Pushes a job onto this worker's deque and lets the sleep manager wake a thief.
    #[inline]
    pub(crate) fn push(&self, job: JobRef) {
        let deque = self.deque();
        let queue_was_empty = deque.is_empty();
        // SAFETY: this thread owns the deque (`Worker` is `!Send`/`!Sync` and there is one per
        // worker thread).
        unsafe { deque.push(job.as_ptr()) };
        self.registry.sleep.new_internal_jobs(1, queue_was_empty);
    }

    /// Whether a fork entered now is within the window (see [`record_window`]): fewer private
    /// records than the window are pending.
    #[inline]
    pub(crate) fn fork_is_recordable(&self) -> bool {
        self.frames.private() < self.record_window
    }

    /// The private records this worker keeps (see [`record_window`]).
    #[cfg(all(test, not(loom)))]
    pub(crate) fn record_window(&self) -> usize {
        self.record_window
    }

    /// Records the job of a fork just entered; returns its index for
    /// [`leave_recorded_fork`](Self::leave_recorded_fork). Index 0 is an outermost fork: no
    /// other recorded fork is pending below it.
    #[inline]
    pub(crate) fn record_fork(&self, job: JobRef) -> usize {
        let index = self.frames.record(job);
        self.refresh_join_records();
        index
    }

    /// Leaves the recorded fork at `index`; true if its job was promoted, i.e. may be on the
    /// deque or stolen, false if it is still private.
    #[inline]
    pub(crate) fn leave_recorded_fork(&self, index: usize) -> bool {
        let promoted = self.frames.leave(index);
        self.refresh_join_records();
        promoted
    }

    /// True if the next `Worker::join` records its fork (see `join_records`).
    #[inline]
    pub(crate) fn join_records(&self) -> bool {
        self.join_records.get()
    }

    /// What `join_records` is derived from, evaluated now.
    #[inline]
    pub(crate) fn join_records_now(&self) -> bool {
        !self.alone && (self.fork_is_recordable() || self.record_credit.get() > 0)
    }

    /// Recomputes `join_records` after a change to what it is derived from.
    #[inline]
    fn refresh_join_records(&self) {
        self.join_records.set(self.join_records_now());
    }

    /// A recorded fork was left unpromoted: its record was wasted.
    #[inline]
    pub(crate) fn spend_record_credit(&self) {
        self.record_credit
            .set(self.record_credit.get().saturating_sub(1));
        self.refresh_join_records();
    }

    /// A recorded fork was promoted: recording beyond the window paid off.
    #[inline]
    fn earn_record_credit(&self) {
        self.record_credit
            .set((self.record_credit.get() + CREDIT_PER_PROMOTION).min(RECORD_CREDIT));
        self.refresh_join_records();
    }

    /// True if a recorded fork is still private (could be promoted).
    #[inline]
    pub(crate) fn has_private_frames(&self) -> bool {
        self.frames.private() > 0
    }

    /// Takes one unit of the eager budget (see `eager_budget`): true if the fork just recorded
    /// is to be published at once.
    #[inline]
    pub(crate) fn take_eager_publication(&self) -> bool {
        let budget = self.eager_budget.get();
        if budget == 0 {
            return false;
        }
        self.eager_budget.set(budget - 1);
        true
    }

    /// How many of the next recorded forks will be published at once (for tests).
    #[cfg(all(test, not(loom)))]
    pub(crate) fn eager_budget(&self) -> usize {
        self.eager_budget.get()
    }

    /// Arms eager publication for at least the idle workers' share of the next recorded forks
    /// (see `eager_budget`): the caller is about to fork work it knows is worth sharing.
    #[inline]
    pub(crate) fn arm_eager_share(&self) {
        self.eager_budget
            .set(self.eager_budget.get().max(self.idle_share()));
    }

    /// Arms eager publication for at least the next recorded fork (see `eager_budget`).
    #[inline]
    pub(crate) fn arm_eager_publication(&self) {
        self.eager_budget.set(self.eager_budget.get().max(1));
    }

    /// True if this worker is its pool's only one.
    #[inline]
    pub(crate) fn is_alone(&self) -> bool {
        self.alone
    }

    /// This worker's request flag (see `ThreadInfo::work_wanted`).
    #[inline]
    pub(crate) fn work_wanted_flag(&self) -> &AtomicU8 {
        // SAFETY: points into `self.registry`, which outlives `self` (see `work_wanted`).
        unsafe { &*self.work_wanted }
    }

    /// True if an idle peer asked us for work (raised or deferred).
    #[inline]
    pub(crate) fn work_wanted(&self) -> bool {
        // Relaxed: a hint; see `ThreadInfo::work_wanted`.
        self.work_wanted_flag().load(Ordering::Relaxed) != REQUEST_NONE
    }

    /// Pushes the oldest private frame onto our deque, where idle peers can steal it (and
    /// where `push` wakes a sleeping one). False if every pending frame is already public.
    #[cold]
    #[inline(never)]
    pub(crate) fn promote_oldest_frame(&self) -> bool {
        match self.frames.promote_oldest() {
            Some(job) => {
                self.earn_record_credit();
                self.push(job);
                true
            }
            None => false,
        }
    }

    /// Like `promote_oldest_frame`, but wakes nobody: for a batch, whose wake-ups the caller
    /// posts once.
    fn promote_oldest_frame_quietly(&self) -> bool {
        match self.frames.promote_oldest() {
            Some(job) => {
                self.earn_record_credit();
                // SAFETY: owner thread (see `push`).
                unsafe { self.deque().push(job.as_ptr()) };
                true
            }
            None => false,
        }
    }

    /// True if some peer is idle but awake (looking for work, not asleep): work shared now
    /// is taken without anyone being woken.
    #[inline]
    pub(crate) fn has_idle_awake_peer(&self) -> bool {
        self.registry.sleep.counters().awake_but_idle_threads() > 0
    }

    /// How many jobs the idle workers could use from this worker's deque: the idle workers
    /// shared out among the busy ones (at least one: a peer asked).
    fn idle_share(&self) -> usize {
        let idle = self.registry.sleep.counters().inactive_threads();
        let busy = self.num_threads().saturating_sub(idle).max(1);
        idle.div_ceil(busy).max(1)
    }

    /// The refill reserve to keep on our deque now, after a steal; grows it for the next
    /// refill (see `refill_reserve`).
    fn take_refill_reserve(&self) -> usize {
        let reserve = self.refill_reserve.get();
        self.refill_reserve
            .set(reserve.saturating_mul(REFILL_GROWTH));
        reserve
    }

    /// Answers a peer's request for work: promotes our oldest private frames until our deque
    /// holds as many jobs as peers want: the refill reserve after a steal, otherwise the idle
    /// workers' share. If our private frames
    /// run out first, the request stays, deferred to our next recorded fork (see
    /// `REQUEST_DEFERRED`): while peers wait, every fork we record is published.
    #[cold]
    #[inline(never)]
    pub(crate) fn answer_work_request(&self) {
        let wanted = match self.work_wanted_flag().load(Ordering::Relaxed) {
            REQUEST_REFILL => self.take_refill_reserve(),
            _ => self.idle_share(),
        };
        // Pushed quietly and posted as one batch: one wake-up per job from here would keep us
        // in futex calls while thieves could be waking each other (see
        // `Sleep::new_published_batch`).
        let already_offered = self.deque().len();
        let mut offered = already_offered;
        while offered < wanted && self.promote_oldest_frame_quietly() {
            offered += 1;
        }
        if offered > already_offered {
            self.registry
                .sleep
                .new_published_batch(offered - already_offered, already_offered == 0);
        }
        // Relaxed: consuming a hint; a peer that is still idle raises it again. A request or
        // refill that a peer stores between our load and this store is lost; an idle peer
        // repeats its request in its next idle round, and a lost refill costs the reserve one
        // poll interval. No job is ever lost: only how soon it is offered.
        let state = if offered >= wanted {
            REQUEST_NONE
        } else {
            REQUEST_DEFERRED
        };
        self.work_wanted_flag().store(state, Ordering::Relaxed);
    }

    /// A job we published came back to us unstolen: we offered more than thieves took, so
    /// halve the refill reserve (not below one job per peer).
    #[inline]
    pub(crate) fn published_job_came_back(&self) {
        let floor = self.num_threads() - 1;
        self.refill_reserve
            .set((self.refill_reserve.get() / 2).max(floor));
    }

    /// Pops the newest job from this worker's own deque.
    #[inline]
    pub(crate) fn take_local_job(&self) -> Option<JobRef> {
        // SAFETY: owner thread (see `push`). Pointers in the deque are live, unexecuted jobs.
        unsafe { self.deque().pop().map(|p| JobRef::new(p)) }
    }

    /// Runs a job found in a deque or the injector.
    #[inline]
    pub(crate) fn execute(&self, job: JobRef) {
        if self.frames.len() == 0 {
            // A new call tree: its first forks are published at once, one per idle peer (see
            // `eager_budget`).
            self.eager_budget.set(self.idle_share());
        }
        // SAFETY: every job handed out by a deque or the injector is executed exactly once: the
        // deque and injector give each item to exactly one taker.
        unsafe { job.execute(self) }
    }

    /// The next xorshift64* value.
    fn next_random(&self) -> u64 {
        let mut x = self.rng.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng.set(x);
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Steals one job from another worker, trying every victim once from a random start.
    fn steal(&self) -> Option<JobRef> {
        let num_threads = self.num_threads();
        if num_threads <= 1 {
            return None;
        }
        let start = (self.next_random() % num_threads as u64) as usize;
        let victims = (start..num_threads).chain(0..start);
        for victim in victims.filter(|&v| v != self.index) {
            let info = &self.registry.thread_infos[victim];
            loop {
                match info.deque.steal() {
                    Steal::Success(p) => {
                        // Ask the victim for the next job now, so that it is on offer by the
                        // time we (or a peer) run dry, not one poll interval later; unless the
                        // jobs we found lately were too small to be worth it.
                        if self.pacing.requests_due() {
                            self.registry.request_refill(info);
                        }
                        // More jobs wait there: a batch posted with few wake-ups, or a
                        // backlog the sleepers should share (see `Sleep::backlog_found`).
                        if !info.deque.is_empty() {
                            self.registry.sleep.backlog_found();
                        }
                        // SAFETY: deques hold live, unexecuted jobs.
                        return Some(unsafe { JobRef::new(p) });
                    }
                    Steal::Empty => break,
                    Steal::Retry => std::hint::spin_loop(),
                }
            }
        }
        None
    }

    /// Takes injected jobs: runs the oldest, pushes the rest onto our deque for thieves.
    fn take_injected_job(&self) -> Option<JobRef> {
        let mut batch = self.registry.injector.take_all().into_iter();
        let first = batch.next()?;
        let mut pushed = 0;
        for job in batch {
            // SAFETY: owner thread.
            unsafe { self.deque().push(job.as_ptr()) };
            pushed += 1;
        }
        if pushed > 0 {
            self.registry.sleep.new_internal_jobs(pushed, true);
        }
        Some(first)
    }

    /// Takes the oldest broadcast job meant for this worker.
    fn take_broadcast_job(&self) -> Option<JobRef> {
        self.registry.thread_infos[self.index].broadcasts.pop()
    }

    /// True if a broadcast job for this worker is queued (exact for callers ordered after the
    /// push by the sleep mutex; see [`crate::broadcast`]).
    fn has_broadcast_jobs(&self) -> bool {
        self.registry.thread_infos[self.index].broadcasts.has_jobs()
    }

    /// Any job, in the order of seed 001 plus broadcasts: own deque, own broadcast queue,
    /// peers' deques, injector. The flag is true for a job from the injector.
    fn find_work(&self) -> Option<(JobRef, bool)> {
        self.take_local_job()
            .or_else(|| self.take_broadcast_job())
            .or_else(|| self.steal())
            .map(|job| (job, false))
            .or_else(|| self.take_injected_job().map(|job| (job, true)))
    }

    /// A job from the injector (from a thread outside the pool, or a `spawn` or `install` from
    /// another pool's worker) just returned: see [`OutsideWatch`].
    fn outside_job_done(&self) {
        #[cfg(not(loom))]
        self.registry.outside_watch.job_done();
    }

    /// True if this worker, about to announce that it is sleepy, should keep yielding instead:
    /// it watches for the next call from outside (see [`OutsideWatch`]). Never under loom
    /// (time plays no part in the models, and staying in the yielding rounds is always allowed).
    fn outside_caller_expected(&self) -> bool {
        #[cfg(not(loom))]
        return self.registry.outside_watch.keep_awake(self.index);
        #[cfg(loom)]
        false
    }

    /// Runs other work until `latch` is set: spins through the idle rounds (running anything it
    /// finds), then sleeps until woken. Does not unwind: jobs catch their own panics.
    #[inline]
    pub(crate) fn wait_until<L: AsCoreLatch + ?Sized>(&self, latch: &L) {
        let latch = latch.as_core_latch();
        if !latch.probe() {
            self.wait_until_cold(latch);
        }
    }

    #[cold]
    fn wait_until_cold(&self, latch: &CoreLatch) {
        // The caller's frame holds what `latch` guards (a stack job, a scope): an unwind out of
        // here would free it while the thread that sets the latch still uses it.
        let abort = AbortOnUnwind::new(
            "a panic escaped a job run by a waiting worker (a bug in the runtime: jobs catch \
             their own panics)",
        );
        self.wait_until_loop(latch);
        abort.disarm();
    }

    #[inline(always)]
    fn wait_until_loop(&self, latch: &CoreLatch) {
        'outer: while !latch.probe() {
            // While we wait, our private frames further down the stack are the only work we
            // could offer a peer that asks.
            self.poll_work_request();
            // Our own deque first: no need to announce ourselves idle for that.
            if let Some(job) = self.take_local_job() {
                self.execute(job);
                continue;
            }
            let sleep = &self.registry.sleep;
            let mut idle_state = sleep.start_looking(self.index);
            while !latch.probe() {
                if let Some((job, injected)) = self.find_work() {
                    sleep.work_found();
                    let started = timestamp();
                    self.execute(job);
                    self.pacing.job_ran(started);
                    if injected {
                        self.outside_job_done();
                    }
                    // The job may have left work in our deque: look there first again.
                    continue 'outer;
                }
                if !self.pacing.requests_due() {
                    // The jobs we found lately were too small to be worth asking for more
                    // (see `crate::pacing`): keep looking, without asking and without moving
                    // towards sleep, until the short pause ends.
                    sleep.paused_round();
                    continue;
                }
                self.registry.request_work(self.index);
                sleep.no_work_found(
                    &mut idle_state,
                    latch,
                    || self.outside_caller_expected(),
                    || self.registry.has_injected_jobs() || self.has_broadcast_jobs(),
                );
            }
            // What we waited for happened: we are active again.
            sleep.work_found();
            return;
        }
    }
}

#[cfg(all(test, loom))]
pub(crate) mod loom_tests;
