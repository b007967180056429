//! The per-thread [`Worker`] context: the worker's own deque, stealing from peers and the
//! injector, and waiting on a latch while running other jobs. (What a worker offers of its
//! own pending forks, and when, is in [`promotion`](super::promotion).)
//!
//! # Work-finding order (seed 001)
//!
//! 1. the worker's own deque (LIFO pop: freshest, cache-warm work);
//! 2. the worker's broadcast queue (jobs meant for this worker only, see
//!    [`crate::broadcast`](mod@crate::broadcast));
//! 3. the other workers' deques, starting from a random victim (FIFO steal: oldest, biggest);
//! 4. the injector (work from outside the pool).

use std::cell::Cell;
use std::marker::PhantomData;
use std::ptr;
use std::sync::Arc;

use crate::deque::{Deque, Steal};
use crate::frames::FrameStack;
use crate::job::{JobHeader, JobRef};
use crate::join::timestamp;
use crate::latch::{AsCoreLatch, CoreLatch};
use crate::pacing::RequestPacing;
use crate::unwind::AbortOnUnwind;

use super::Registry;
use super::promotion::WorkRequest;
use super::promotion::{RECORD_CREDIT, WINDOW_CREDIT, record_window};

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
    pub(super) index: usize,
    pub(super) registry: Arc<Registry>,
    /// The owner's side of `registry.thread_infos[index].deque`, cached to save the bounds
    /// check and two loads per push/pop. Valid as long as `registry` is.
    pub(super) deque: *const Deque<JobHeader>,
    /// `registry.thread_infos[index].work_wanted`, cached like `deque`.
    pub(super) work_wanted: *const WorkRequest,
    /// The records of this worker's pending forks, for promotion on request (see
    /// [`FrameStack`]).
    pub(crate) frames: FrameStack,
    /// The private records this worker keeps before it stops recording (see
    /// [`record_window`]).
    pub(super) record_window: usize,
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
    pub(super) eager_budget: Cell<usize>,
    /// Publish every recorded fork, whatever `eager_budget`, until one turns out short: set
    /// when this worker answered a request long after it was raised (see `LATE_ANSWER`), i.e.
    /// when its stretches between fork and join points are so long that peers starve while
    /// they wait for an answer; cleared when an eagerly published fork comes back unstolen
    /// after a short first closure, or is stolen but joined soon (see `join_promoted`).
    pub(super) eager_until_unstolen: Cell<bool>,
    /// Tests that assert which forks are published set this, so that a late answer (a test
    /// thread preempted, or slowed down by a sanitizer, between raising a request and
    /// answering it) cannot switch `eager_until_unstolen` on under them.
    #[cfg(test)]
    pub(super) ignore_late_answers: Cell<bool>,
    /// How many jobs to keep on our deque when a thief asks for a refill (`REQUEST_REFILL`).
    /// Grown by `promotion::REFILL_GROWTH` at every refill: while thieves keep taking our jobs
    /// (a chain of joins whose second closures are long leaves, say), the reserve soon covers
    /// every pending record, as if each fork had been published. Halved, down to one per peer,
    /// when a published job comes back unstolen: the reserve was more than the thieves wanted.
    pub(super) refill_reserve: Cell<usize>,
    /// How many more forks `Worker::join` may record beyond the window (see
    /// [`RECORD_CREDIT`]).
    pub(super) record_credit: Cell<usize>,
    /// How many more records beyond its first the window may take (see [`WINDOW_CREDIT`]).
    pub(super) window_credit: Cell<usize>,
    /// Whether the next `Worker::join` records its fork: not alone, and within the window or
    /// with record credit left. Derived from `alone`, `frames`, `record_window`,
    /// `window_credit` and `record_credit`, and refreshed by every method that changes one of
    /// them (all of them on the recorded path, never on a plain fork), so that a plain fork
    /// decides with one load instead of six.
    pub(super) join_records: Cell<bool>,
    /// The pool has no other worker: nobody can ever take a forked job, so forks are plain
    /// calls (jobs from outside still arrive through the injector).
    pub(super) alone: bool,
    /// When this worker, idle, may ask its peers for work: paused after jobs too small to pay
    /// for their steal (see [`crate::pacing`]).
    pub(super) pacing: RequestPacing,
    /// Victim selection (xorshift64*).
    pub(super) rng: Cell<u64>,
    /// `!Sync` (and `!Send`): a worker context belongs to its thread.
    pub(super) _not_sync: PhantomData<*const ()>,
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
        let work_wanted: *const WorkRequest = &*registry.thread_infos[index].work_wanted;
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
            window_credit: Cell::new(WINDOW_CREDIT),
            join_records: Cell::new(!alone),
            eager_budget: Cell::new(0),
            eager_until_unstolen: Cell::new(false),
            #[cfg(test)]
            ignore_late_answers: Cell::new(false),
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

    pub(super) fn deque(&self) -> &Deque<JobHeader> {
        // SAFETY: points into `self.registry`, which `self` keeps alive.
        unsafe { &*self.deque }
    }

    /// True if jobs wait in our deque or we hold private forks (see
    /// [`crate::current_thread_has_pending_tasks`]).
    pub(crate) fn has_pending_tasks(&self) -> bool {
        !self.deque().is_empty() || self.has_private_frames()
    }

    /// The capacity of this worker's deque buffer (for tests of its shrinking).
    #[cfg(all(test, not(loom)))]
    pub(crate) fn deque_capacity(&self) -> usize {
        self.deque().capacity()
    }

    /// Pushes the job of one of our forks onto our deque and lets the sleep manager wake a
    /// thief (our join pops it back if nobody takes it; see `push_unjoined` for other jobs).
    #[inline]
    pub(crate) fn push(&self, job: JobRef) {
        let queue_was_empty = self.push_quietly(job);
        self.registry.sleep.new_internal_jobs(1, queue_was_empty);
    }

    /// Pushes a job that no join of ours pops back (a `spawn`, a scope's task) onto our deque,
    /// and posts it as such (see `Sleep::new_unjoined_jobs`): a peer heading to sleep must not
    /// miss it while we run on or block outside the pool.
    pub(crate) fn push_unjoined(&self, job: JobRef) {
        let queue_was_empty = self.push_quietly(job);
        self.registry.sleep.new_unjoined_jobs(1, queue_was_empty);
    }

    /// Pushes `job` onto our deque without posting it; returns whether the deque was empty.
    fn push_quietly(&self, job: JobRef) -> bool {
        let deque = self.deque();
        let queue_was_empty = deque.is_empty();
        // SAFETY: this thread owns the deque (`Worker` is `!Send`/`!Sync` and there is one per
        // worker thread).
        unsafe { deque.push(job.as_ptr()) };
        queue_was_empty
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
    ///
    /// The rest go on newest first, so that the oldest is at the bottom, where we pop: we run
    /// the batch in the order it came in, and a thief takes from the newest end. Pushed oldest
    /// first, we ran every job of a batch but the first newest first, and under a steady
    /// stream of work from outside the oldest waited behind all that came after it.
    fn take_injected_job(&self) -> Option<JobRef> {
        let mut batch = self.registry.injector.take_all().into_iter();
        let first = batch.next()?;
        let mut pushed = 0;
        for job in batch.rev() {
            // SAFETY: owner thread.
            unsafe { self.deque().push(job.as_ptr()) };
            pushed += 1;
        }
        if pushed > 0 {
            // Posted as injected jobs, not as our own: they have no join of ours to pop them
            // back if a peer going to sleep misses them, so the post takes fence #1; and idle
            // workers are not counted as takers, since we are one of them, about to run
            // `first`. (Posted as our own, the second of a pair of calls from outside sat on
            // our deque while the other worker slept, until `first` was done: a stall, or a
            // deadlock if `first` waits for it.)
            self.registry.sleep.new_injected_jobs(pushed, false);
        }
        Some(first)
    }

    /// Takes the oldest broadcast job meant for this worker.
    pub(super) fn take_broadcast_job(&self) -> Option<JobRef> {
        self.registry.thread_infos[self.index].broadcasts.pop()
    }

    /// True if a broadcast job for this worker is queued (exact for callers ordered after the
    /// push by the sleep mutex; see [`crate::broadcast`](mod@crate::broadcast)).
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
    /// another pool's worker) just returned: see [`OutsideWatch`](crate::watch::OutsideWatch).
    fn outside_job_done(&self) {
        #[cfg(not(loom))]
        self.registry.outside_watch.job_done();
    }

    /// A job found while idle, started at `started` ([`timestamp`]), just returned; `injected`
    /// if it came from the injector.
    pub(super) fn found_job_done(&self, started: u64, injected: bool) {
        if injected {
            self.outside_job_done();
        } else if !self.alone {
            // Only a job from a deque says what asking peers for work brings: a call from
            // outside, however small, is not a peer's split fork (and a pause after it would
            // keep its worker spinning beside the caller; see `Sleep::paused_round`).
            self.pacing.job_ran(started);
        }
    }

    /// True if this worker, about to announce that it is sleepy, should keep yielding instead:
    /// it watches for the next call from outside (see
    /// [`OutsideWatch`](crate::watch::OutsideWatch)). Never under loom (time plays no part in
    /// the models, and staying in the yielding rounds is always allowed).
    fn outside_caller_expected(&self) -> bool {
        #[cfg(not(loom))]
        return self.registry.outside_watch.keep_awake(self.index);
        #[cfg(loom)]
        false
    }

    /// Runs one pending job, if there is one: from our own deque only when `local_only`,
    /// otherwise from anywhere `find_work` looks (see [`crate::yield_now`]). True if a job ran.
    pub(crate) fn run_one_pending_job(&self, local_only: bool) -> bool {
        // Our private forks are pending work too: a caller that yields may be waiting for
        // one of them (the second closure of the join it runs in).
        self.publish_private_frames();
        let found = if local_only {
            self.take_local_job().map(|job| (job, false))
        } else {
            self.find_work()
        };
        let Some((job, injected)) = found else {
            return false;
        };
        // A job's frame may be further up this stack, as for a waiting worker: an unwind
        // here would free it under a thread that still uses it. Jobs catch their own panics.
        let abort = AbortOnUnwind::new(
            "a panic escaped a job run by a yielding worker (a bug in the runtime: jobs catch \
             their own panics)",
        );
        self.execute(job);
        abort.disarm();
        if injected {
            self.outside_job_done();
        }
        true
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
                    sleep.work_found(!injected, || self.registry.has_injected_jobs());
                    self.restamp_work_request();
                    let started = timestamp();
                    self.execute(job);
                    self.found_job_done(started, injected);
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
            sleep.work_found(false, || self.registry.has_injected_jobs());
            self.restamp_work_request();
            return;
        }
    }
}
