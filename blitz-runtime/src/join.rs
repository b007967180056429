//! Fork/join: `join(a, b)` runs `a` here while `b` waits in our deque for a thief.
//!
//! # Private forks, promoted on demand
//!
//! A fork records `b`'s stack job on the worker's private frame stack (`frames`) and runs `a`;
//! if no idle peer asked for work meanwhile, `b` is still private when `a` returns and runs
//! inline. Only forks that may be worth offering are recorded: the outermost few of the
//! worker's current path (the window), plus forks entered on record credit (see
//! `registry::RECORD_CREDIT`); the rest are two plain calls plus two loads (the
//! worker's cached decision to record, `Worker::join_records`, and the request flag).
//! Neither path has a fence, a shared write or a wake check. A peer's request makes the worker
//! promote its *oldest* private records onto its Chase-Lev deque, as many as the idle workers
//! need (see `registry`); a join whose `b` was promoted takes the hybrid path below. Requests
//! are answered at fork points, at join points (after `a`, before a private `b` runs) and in
//! waits.
//! The first forks of a new call tree are published at once, one per idle peer (at least
//! one), and so is the next fork after a coarse outermost one whose second job was stolen or
//! after one whose first closure ran long (`Worker::eager_budget`), so coarse joins run in
//! parallel even when a peer becomes idle only after the fork, and a call tree that starts on
//! a wide idle pool spreads without waiting for one request per leaf. A worker that answered a
//! request late (its fork and join points are far apart: long leaves) publishes every recorded
//! fork until one turns out short (`Worker::eager_until_unstolen`).
//!
//! # Hybrid join of a promoted fork (seed 004)
//!
//! After `a` returns, the joiner
//! 1. probes `b`'s latch: if a thief already finished `b`, take its result;
//! 2. otherwise pops its own deque: if it gets `b` back, nobody stole it and `b` runs inline,
//!    as a plain call;
//! 3. otherwise `b` was stolen and is still running: the joiner runs other work while it waits
//!    and, when there is none, sleeps on `b`'s latch (ERRATA 5), to be woken by the thief.
//!
//! # Panics
//!
//! Both closures always finish before `join` unwinds. If `a` panics, the joiner still waits for
//! `b` (running it itself if nobody stole it) and then re-throws `a`'s panic; if only `b`
//! panics, its panic is re-thrown after `a` returned. With two panics, `a`'s wins (it is first
//! in source order) and `b`'s payload is dropped. Whatever the losing side left (a value or a
//! payload) is dropped under `drop_quietly` before the winner's panic is re-thrown, so a
//! panicking `Drop` there neither replaces the panic nor aborts.

use std::marker::PhantomData;
use std::panic::{self, AssertUnwindSafe};

use crate::job::{JobResult, StackJob};
use crate::latch::{AsCoreLatch, Latch, OnceLatch};
use crate::pacing::TINY_JOB;
use crate::pool::global_registry;
use crate::registry::{Worker, request_is_fresh};
use crate::sync::{AtomicU8, Ordering};
use crate::unwind::drop_quietly;

/// What a fork point of generated code (`#[parallel]`) does: the answer of
/// [`Worker::fork_mode`]. `P` is the context of the plain arm (see
/// [`ForkContext::Plain`](crate::fork_context::ForkContext::Plain)).
#[doc(hidden)]
pub enum ForkMode<'w, P = WorkRequestPoll<'w>> {
    /// Fork through [`Worker::join`]: the fork is recorded, so it can be promoted while
    /// pending.
    Join(&'w Worker),
    /// Run the branches one after the other in the plain copy, which polls at its fork points
    /// through this handle: the worker's window of records is full, and those records (older
    /// forks of this worker) stay on offer.
    Plain(P),
    /// Run the branches one after the other in the fork-free copy: a one-worker pool, where
    /// nobody could take a fork.
    Serial,
}

/// The fork-point check of plain recursion (see [`Worker::fork_mode`]), as a handle to the
/// worker's request flag alone: generated code passes it down the plain copy of a recursive
/// function instead of `&Worker`, so a fork point costs one load through an argument
/// register. Tied to its worker's thread (`!Send`).
///
/// `S` tells two instances of the plain copy apart ([`FirstPlain`], [`SecondPlain`]): the
/// earlier branches of a plain fork run in the other one, the last branch in the same one
/// (see [`ForkContext::sibling`](crate::fork_context::ForkContext::sibling)).
#[doc(hidden)]
pub struct WorkRequestPoll<'w, S = FirstPlain> {
    flag: &'w AtomicU8,
    /// `*const ()`: the handle stays on its worker's thread. `S`: the instance.
    _instance: PhantomData<(*const (), S)>,
}

/// Which of the two instances of the plain copy a [`WorkRequestPoll`] runs.
#[doc(hidden)]
pub trait PlainInstance: Copy {
    /// The other instance: the one the earlier branches of a plain fork run in.
    type Other: PlainInstance<Other = Self>;
}

/// One of the two instances of the plain copy: the one a recorded fork's plain subtree
/// starts in.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub enum FirstPlain {}

/// The other instance of the plain copy.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub enum SecondPlain {}

impl PlainInstance for FirstPlain {
    type Other = SecondPlain;
}

impl PlainInstance for SecondPlain {
    type Other = FirstPlain;
}

// By hand: a derive would bound the marker `S`, and the generic methods below would then
// have to repeat that bound.
impl<S> Clone for WorkRequestPoll<'_, S> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}

impl<S> Copy for WorkRequestPoll<'_, S> {}

impl<'w, S> WorkRequestPoll<'w, S> {
    /// The same handle, for instance `T` of the plain copy.
    #[inline(always)]
    pub(crate) fn retag<T>(self) -> WorkRequestPoll<'w, T> {
        WorkRequestPoll {
            flag: self.flag,
            _instance: PhantomData,
        }
    }
}

impl<S> WorkRequestPoll<'_, S> {
    /// Answers an idle peer's request for work, if one is raised, by promoting the worker's
    /// oldest private fork. A request the worker cannot answer is deferred (see
    /// `registry::REQUEST_DEFERRED`), so later polls stay on the fast path.
    #[inline]
    pub fn poll(self) {
        // Relaxed: a hint (see `ThreadInfo::work_wanted`).
        if request_is_fresh(self.flag.load(Ordering::Relaxed)) {
            answer_request_of_current_worker::<()>(self.flag);
        }
    }

    /// A `fork_join!` inside the plain copy: like [`Worker::join`] at a fork that cannot be
    /// recorded, a poll and then both closures in order. As in the rest of a plain subtree, a
    /// panic in `a` propagates at once.
    #[inline]
    pub fn join<A, B, RA, RB>(self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce(Self) -> RA,
        B: FnOnce(Self) -> RB,
    {
        self.poll();
        (a(self), b(self))
    }
}

/// The out-of-line half of [`WorkRequestPoll::poll`]: `flag` was raised. The worker is looked
/// up here, not carried in the handle, to keep the plain copy's fast path to one argument.
///
/// Generic (over nothing) so that it is instantiated in the crate of the generated code that
/// polls: the poll then calls it directly. A call into another crate goes through the global
/// offset table, and in a loop the optimiser keeps that address in a callee-saved register,
/// which the plain copy then saved and restored at every call.
#[cold]
#[inline(never)]
#[allow(clippy::extra_unused_type_parameters)]
fn answer_request_of_current_worker<Local>(flag: &AtomicU8) {
    match Worker::current() {
        // The handle is `!Send`, so this is the worker it came from; checked all the same, as
        // answering for another worker would promote frames that are not ours to offer.
        Some(worker) if std::ptr::eq(worker.work_wanted_flag(), flag) => {
            worker.answer_work_request()
        }
        _ => debug_assert!(false, "blitz: a work-request poll away from its worker"),
    }
}

impl Worker {
    /// Runs `a` and `b`, potentially in parallel, and returns both results.
    ///
    /// `a` runs on this worker; `b` is offered to thieves and, if nobody takes it in time, runs
    /// here after `a`. Each closure gets the context of the worker that runs it, so a recursive
    /// computation passes the context down instead of looking it up at every fork.
    ///
    /// ```
    /// use blitz::Worker;
    ///
    /// fn sum(w: &Worker, v: &[u64]) -> u64 {
    ///     if v.len() <= 1024 {
    ///         return v.iter().sum();
    ///     }
    ///     let (l, r) = v.split_at(v.len() / 2);
    ///     let (a, b) = w.join(|w| sum(w, l), |w| sum(w, r));
    ///     a + b
    /// }
    ///
    /// let v: Vec<u64> = (0..100_000).collect();
    /// assert_eq!(blitz::with_worker(|w| sum(w, &v)), 100_000 * 99_999 / 2);
    /// ```
    #[inline]
    pub fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce(&Worker) -> RA,
        B: FnOnce(&Worker) -> RB + Send,
        RB: Send,
    {
        debug_assert_eq!(
            self.join_records(),
            self.join_records_now(),
            "blitz: a change to the worker's records did not refresh `join_records`"
        );
        if !self.join_records() {
            return self.join_plain(a, b);
        }
        self.join_recorded(a, b)
    }

    /// [`join`](Self::join) with its plain path inlined, for callers that are out of line
    /// themselves (the closure that [`join`](fn@crate::join) hands to `with_worker`): there the
    /// plain path is the body of the caller, and calling it would add a call per fork. The
    /// closures take no context: on the plain path nothing after `a` then needs the worker,
    /// which spares the caller a register kept across `a`.
    #[inline(always)]
    fn join_inline<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA,
        B: FnOnce() -> RB + Send,
        RB: Send,
    {
        debug_assert_eq!(self.join_records(), self.join_records_now());
        if !self.join_records() {
            if self.has_request_to_answer() {
                return self.run_plain_answering(|_| a(), |_| b());
            }
            return run_in_order(a, b);
        }
        self.join_recorded(|_| a(), |_| b())
    }

    /// A fork that is not recorded: two plain calls. On a one-worker pool `b` could only ever
    /// run here, after `a`; beyond the window with no credit, recent records there were
    /// wasted. A peer's request is answered with an older, recorded fork.
    ///
    /// Kept out of line, as [`join_recorded`](Self::join_recorded) is, so that both paths of
    /// `join` are tail calls and a recursive caller keeps no registers of its own: inlined,
    /// this path made `fn fib(w, n) { if n < 2 { return n } w.join(..) }` save four
    /// registers before its `n < 2` test, at every leaf. Out of line, the caller is small
    /// enough to be inlined into the closures here, so a leaf costs a compare. Measured on
    /// the suite's fib(35) with `Worker::join` at every call (three alternating runs): 1
    /// thread 50-51 -> 33 ms, 2 threads 25-27 -> 18 ms.
    #[inline(never)]
    fn join_plain<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce(&Worker) -> RA,
        B: FnOnce(&Worker) -> RB,
    {
        if self.has_request_to_answer() {
            return self.run_plain_answering(a, b);
        }
        run_in_order(|| a(self), || b(self))
    }

    /// A plain fork that first answers a peer's request (see
    /// [`poll_work_request`](Self::poll_work_request)). Out of line and reached by a tail
    /// call, so that the plain path keeps no register for it.
    #[cold]
    #[inline(never)]
    fn run_plain_answering<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce(&Worker) -> RA,
        B: FnOnce(&Worker) -> RB,
    {
        self.answer_work_request();
        run_in_order(|| a(self), || b(self))
    }

    /// [`join`](Self::join) for a fork whose second closure is known to be worth a
    /// publication (a loop's half that runs long, see `loops::engine::LONG_HALF`): recorded
    /// whatever the window and the credit, and published at once, so that an idle peer takes
    /// it without asking and waiting for this worker's next fork or join point (which a long
    /// first closure keeps it from).
    ///
    /// What is published is the oldest private record, as for every eager publication: this
    /// fork's, unless an older one of this worker is still private (a bigger piece of work).
    #[inline]
    pub(crate) fn join_published<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce(&Worker) -> RA,
        B: FnOnce(&Worker) -> RB + Send,
        RB: Send,
    {
        if self.is_alone() {
            // Nobody could take it: the plain path of `join`.
            return self.join(a, b);
        }
        self.arm_eager_publication();
        self.join_recorded(a, b)
    }

    /// What a fork point of generated code (`#[parallel]`) does here.
    ///
    /// [`ForkMode::Join`] where [`Worker::join`] records its fork: while the worker keeps
    /// fewer private records than its window (see `registry::record_window`), or beyond it on
    /// record credit (see `registry::RECORD_CREDIT`); the fork is recorded, so it can be
    /// promoted while pending. Otherwise, after answering a pending request (which may promote
    /// older records and so make room to record this fork after all), the subtree runs as
    /// plain recursion that polls at its fork points ([`ForkMode::Plain`]): the records above
    /// it are still on offer. [`ForkMode::Serial`] on a one-worker pool, where nobody could
    /// take a fork.
    ///
    /// The credit is for unbalanced recursion (see the book's chapter on promotion): a spine
    /// whose first calls hold most of the work (`f(9n/10) + f(n/10)`) is entered once, level
    /// after level, and holds the worker at its bottom while the levels' second calls wait;
    /// beyond the window, plain forks would lock those to the worker.
    #[doc(hidden)]
    #[inline]
    pub fn fork_mode(&self) -> ForkMode<'_> {
        debug_assert_eq!(self.join_records(), self.join_records_now());
        // A one-worker pool never records, so it never gets past here without being alone.
        if self.join_records() {
            return ForkMode::Join(self);
        }
        if self.is_alone() {
            return ForkMode::Serial;
        }
        self.poll_work_request();
        if self.join_records() {
            ForkMode::Join(self)
        } else if self.has_private_frames() {
            ForkMode::Plain(WorkRequestPoll {
                flag: self.work_wanted_flag(),
                _instance: PhantomData,
            })
        } else {
            ForkMode::Serial
        }
    }

    /// Answers an idle peer's request for work by promoting our oldest private fork, if one is
    /// pending. The check of the runtime's own plain forks and waits: one relaxed load of a
    /// flag only peers write, and only while they are idle. (Generated code polls through
    /// [`fork_mode`](Self::fork_mode) and a [`WorkRequestPoll`] instead.)
    #[inline]
    pub(crate) fn poll_work_request(&self) {
        if self.has_request_to_answer() {
            self.answer_work_request();
        }
    }

    /// True if an idle peer asked for work and this worker has a private fork to give.
    #[inline(always)]
    fn has_request_to_answer(&self) -> bool {
        // With nothing to promote, the request stays up (a peer is idle): checking for
        // private frames first keeps every later poll off the out-of-line path.
        self.work_wanted() && self.has_private_frames()
    }

    /// Runs `b` inline after `a` finished (or panicked): the join of a fork nobody else can
    /// reach. Both closures finish before a panic propagates; `a`'s panic wins.
    #[inline(always)]
    fn finish_inline<RA, RB>(
        &self,
        result_a: std::thread::Result<RA>,
        b: impl FnOnce(&Worker) -> RB,
    ) -> (RA, RB) {
        match result_a {
            Ok(value_a) => then_b(value_a, || b(self)),
            Err(payload) => run_b_then_resume(payload, || b(self)),
        }
    }

    /// A recorded fork: its job can be promoted while `a` runs.
    ///
    /// Kept out of line: inlined, its stack job and panic paths made the caller's frame large
    /// and made it save every callee-saved register, which hand-written recursion such as
    /// `fn fib(w, n) { w.join(|w| fib(w, n - 1), |w| fib(w, n - 2)) }` paid at every call,
    /// including the plain forks beyond the window that never come here. Measured on the
    /// suite's `blitz-raw` fib(35), which forks at every call: 1 thread 68.8 -> 54.3 ms,
    /// 2 threads 34.8 -> 30.1 ms. A recorded fork pays one call more, next to building and
    /// recording its job.
    #[inline(never)]
    fn join_recorded<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce(&Worker) -> RA,
        B: FnOnce(&Worker) -> RB + Send,
        RB: Send,
    {
        let job_b = StackJob::new(b, OnceLatch::new(self));
        // Every path below (panics included) runs `job_b` inline or sees its latch set before
        // leaving this frame, and `leave_recorded_fork` drops its record before that.
        // SAFETY: so `job_b` outlives every use of the `JobRef`, and runs at most once.
        let index = self.record_fork(unsafe { job_b.as_job_ref() });
        let eager = self.take_eager_publication();
        if eager {
            // Publish now (see `eager_budget`): this fork, or an older one still private,
            // which is worth more to a thief.
            self.promote_oldest_frame();
        } else {
            self.poll_work_request();
        }
        // Read only where a rule of `join_promoted` will need it: an eager fork. (The
        // outermost fork's rule times it from its promotion, see `COARSE_FORK`.)
        let fork = PromotedFork {
            eager,
            outermost: index == 0,
            started: if eager { timestamp() } else { 0 },
        };

        let result_a = panic::catch_unwind(AssertUnwindSafe(|| a(self)));

        if !self.leave_recorded_fork(index) {
            self.spend_record_credit();
            // A join point: a peer that asked while `a` ran gets our older records (this one
            // is no longer on offer: it runs next, here).
            self.poll_work_request();
            // Still private: nobody else can reach `job_b`.
            // SAFETY: private, so not run before and not reachable by any other thread.
            return self.finish_inline(result_a, |w| unsafe { job_b.run_inline(w) });
        }
        self.join_promoted(&job_b, result_a, fork)
    }

    /// The join of a fork whose second job was promoted to the deque: pop it back if nobody
    /// stole it, otherwise wait for the thief (running other work, then sleeping).
    ///
    /// `fork` says how it was published and when it started, which decide whether the next
    /// fork is published eagerly too (see `Worker::eager_budget`).
    #[cold]
    fn join_promoted<L, F, RA, RB>(
        &self,
        job_b: &StackJob<L, F, RB>,
        result_a: std::thread::Result<RA>,
        fork: PromotedFork,
    ) -> (RA, RB)
    where
        L: Latch + AsCoreLatch,
        F: FnOnce(&Worker) -> RB + Send,
        RB: Send,
    {
        // SAFETY: only used to recognise the job when we pop it; `job_b` is alive.
        let job_b_ref = unsafe { job_b.as_job_ref() };
        // Read before anything else runs here: a job run while we wait may record and promote
        // an outermost fork of its own.
        let offered_at = self.frames.outermost_promoted_at();
        let value_a = match result_a {
            Ok(value) => value,
            Err(payload) => {
                // `b` must finish before we unwind out of the frame that owns it: if it is
                // still on our deque, `wait_until` pops and runs it.
                self.wait_until(&job_b.latch);
                // Discarded here: left in `job_b`, it would be dropped while `a`'s panic
                // unwinds, where a panicking `Drop` aborts.
                // SAFETY: the latch is set.
                unsafe { job_b.take_job_result() }.discard();
                panic::resume_unwind(payload)
            }
        };
        while !job_b.latch.as_core_latch().probe() {
            match self.take_local_job() {
                Some(job) if job == job_b_ref => {
                    self.published_job_came_back();
                    // Not stolen after all: run it as a plain call. If it was published eagerly
                    // and `a` ran long, the peers were busy all that time and may become idle
                    // during `b`: publish its outermost fork too.
                    if fork.eager {
                        if fork.ran_for_at_least(LONG_FIRST_CLOSURE) {
                            self.arm_eager_publication();
                        } else {
                            self.stop_eager_publication();
                        }
                    }
                    // SAFETY: we popped its only `JobRef`: nobody else can reach it, it never ran.
                    return then_b(value_a, || unsafe { job_b.run_inline(self) });
                }
                // An older promoted frame of ours, or injected work a nested wait parked on
                // our deque.
                Some(job) => self.execute(job),
                None => {
                    // Stolen: help with other work, then sleep on the latch.
                    self.wait_until(&job_b.latch);
                    break;
                }
            }
        }
        if fork.eager && !fork.ran_for_at_least(LONG_FIRST_CLOSURE) {
            // Stolen, but the whole fork was short: publishing every fork splits work this
            // fine at a loss.
            self.stop_eager_publication();
        }
        if fork.outermost && timestamp().wrapping_sub(offered_at) >= COARSE_FORK {
            // Stolen: the thief is idle again (or about to be), so a coarse fork that follows
            // must not wait for its request. Not after a small one: a loop of small call
            // trees would then have each one split at its root, at a loss (see `COARSE_FORK`).
            self.arm_eager_publication();
        }
        // SAFETY: the latch is set.
        match unsafe { job_b.take_job_result() } {
            JobResult::Ok(value_b) => (value_a, value_b),
            JobResult::Panic(payload) => {
                // `a`'s value goes quietly, as in `finish_inline`.
                drop_quietly(value_a);
                panic::resume_unwind(payload)
            }
            JobResult::None => unreachable!("blitz: job result taken before the job ran"),
        }
    }
}

/// Runs `a` and then `b` on this thread: the body of a fork nobody else can reach. Both
/// closures finish before a panic propagates; `a`'s panic wins.
#[inline(always)]
fn run_in_order<RA, RB>(a: impl FnOnce() -> RA, b: impl FnOnce() -> RB) -> (RA, RB) {
    match panic::catch_unwind(AssertUnwindSafe(a)) {
        Ok(value_a) => then_b(value_a, b),
        Err(payload) => run_b_then_resume(payload, b),
    }
}

/// Runs `b` after `a` panicked with `payload`, then resumes that panic. `b`'s value or payload
/// is discarded without unwinding: `a`'s panic is the one that surfaces, whatever `b` left
/// behind.
///
/// Out of line and cold: inlined, the payload was kept in two callee-saved registers across
/// `b`, which every plain fork then saved and restored. Measured on the suite's fib(35) with
/// `Worker::join` at every call, three alternating runs: 1 thread 1.83-1.93 -> 1.66-1.77 of
/// sequential, 2 threads 0.92-0.96 -> 0.85-0.90.
#[cold]
#[inline(never)]
fn run_b_then_resume<RB>(payload: Box<dyn std::any::Any + Send>, b: impl FnOnce() -> RB) -> ! {
    match panic::catch_unwind(AssertUnwindSafe(b)) {
        Ok(value_b) => drop_quietly(value_b),
        Err(payload_b) => drop_quietly(payload_b),
    }
    panic::resume_unwind(payload)
}

/// Runs `b` on this thread after `a` returned `value_a`. If `b` panics, `value_a` is dropped
/// before the panic goes on, under `drop_quietly`: left in the frame, it would be dropped while
/// `b`'s panic unwinds, where a panicking `Drop` aborts.
#[inline(always)]
fn then_b<RA, RB>(value_a: RA, b: impl FnOnce() -> RB) -> (RA, RB) {
    if !std::mem::needs_drop::<RA>() {
        // Nothing to drop (decided at compile time): the plain call.
        return (value_a, b());
    }
    match panic::catch_unwind(AssertUnwindSafe(b)) {
        Ok(value_b) => (value_a, value_b),
        Err(payload) => {
            drop_quietly(value_a);
            panic::resume_unwind(payload)
        }
    }
}

/// What `join_promoted` needs to know of a recorded fork that was promoted.
#[derive(Clone, Copy)]
struct PromotedFork {
    /// Published eagerly, not on request.
    eager: bool,
    /// The worker's oldest pending record (index 0).
    outermost: bool,
    /// The [`timestamp`] at the fork, if it is `eager` (0 otherwise).
    started: u64,
}

impl PromotedFork {
    fn ran_for_at_least(self, ticks: u64) -> bool {
        timestamp().wrapping_sub(self.started) >= ticks
    }
}

/// How long an outermost fork whose second job was stolen must have taken, from the
/// promotion of its job to the end of its join (in [`timestamp`] units), for its thief's
/// coming idleness to arm eager publication of the next fork: two tiny jobs (see
/// [`TINY_JOB`]), about 10-12 us on x86-64. Below that the split hardly paid for itself: in a
/// loop over small call trees (a 1023-node tree sum, 1.5 us sequentially, run 1000 times in
/// one `install`), publishing each tree's root made 2 workers take 1.5-2.5x the time of one.
///
/// Timed from the promotion, which stamps it (`FrameStack::outermost_promoted_at`), not from
/// the fork: such a loop records its outermost fork about 11 times per tree, down each right
/// spine, and a clock read at each cost 7% of the tree (11 ns per read on a 1.8-us tree). A
/// promotion late in a long fork makes the fork look shorter, which at worst leaves the next
/// fork to wait for a request.
const COARSE_FORK: u64 = 2 * TINY_JOB;

/// How long the first closure of an eagerly published fork must have run (in [`timestamp`]
/// units) for its unstolen second job to arm eager publication again: about 20-30 us, long
/// enough that the push and fenced pop of a wasted publication (some tens of nanoseconds) stay
/// below 0.5% of the work they bet on.
#[cfg(all(target_arch = "x86_64", not(miri)))]
pub(crate) const LONG_FIRST_CLOSURE: u64 = 1 << 16;
#[cfg(not(any(target_arch = "x86_64", miri)))]
pub(crate) const LONG_FIRST_CLOSURE: u64 = 20_000;
/// Under Miri, which interprets a thousand times slower than native code: 100 ms.
#[cfg(miri)]
pub(crate) const LONG_FIRST_CLOSURE: u64 = 100_000_000;

/// A cheap, monotonic-enough timestamp for [`LONG_FIRST_CLOSURE`]: the time-stamp counter
/// (about 10 ns to read, where `Instant::now` takes about 25), in its ticks (1-4 GHz). A tick
/// count that goes backwards (a migration between cores with skewed counters) wraps to a large
/// difference, which at worst arms one eager publication too many.
#[cfg(all(target_arch = "x86_64", not(miri), not(loom)))]
#[inline]
pub(crate) fn timestamp() -> u64 {
    // SAFETY: `rdtsc` exists on every x86_64 processor and has no preconditions.
    unsafe { std::arch::x86_64::_rdtsc() }
}

/// Under loom, always 0: a model must be deterministic, and time plays no part in the
/// protocols it checks (no fork runs long, no request is answered late).
#[cfg(loom)]
pub(crate) fn timestamp() -> u64 {
    0
}

/// Elsewhere (and under Miri), nanoseconds since the first call.
#[cfg(not(any(all(target_arch = "x86_64", not(miri)), loom)))]
pub(crate) fn timestamp() -> u64 {
    static EPOCH: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    let epoch = *EPOCH.get_or_init(std::time::Instant::now);
    epoch.elapsed().as_nanos() as u64
}

/// Runs `a` and `b`, potentially in parallel, and returns both results (rayon's `join`).
///
/// On a worker thread this forks on that worker's pool; elsewhere it runs on the global pool
/// and the calling thread blocks until both are done.
///
/// ```
/// fn fib(n: u64) -> u64 {
///     if n < 12 {
///         return if n < 2 { n } else { fib(n - 1) + fib(n - 2) };
///     }
///     let (a, b) = blitz::join(|| fib(n - 1), || fib(n - 2));
///     a + b
/// }
/// assert_eq!(fib(25), 75025);
/// ```
///
/// # Panics
///
/// If either closure panics, `join` waits for the other one and then re-throws; if both panic,
/// the panic of `a` is the one that propagates.
///
/// Called outside every pool, `join` runs on the global pool, created on first use; if it
/// cannot be created (an invalid or too large `BLITZ_NUM_THREADS`, a thread the operating
/// system refuses to start), `join` panics with the build error. Build a pool with
/// [`ThreadPoolBuilder::build`](crate::ThreadPoolBuilder::build) and `install` into it to
/// handle that error instead.
pub fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    with_worker(|worker| worker.join_inline(a, b))
}

/// Where a closure of [`join_context`] runs, relative to the caller (rayon's `FnContext`).
#[derive(Debug, Clone, Copy)]
pub struct FnContext {
    migrated: bool,
}

impl FnContext {
    /// True if the closure runs on another thread than the one that called `join_context`:
    /// the second closure, taken by an idle worker; or either, when `join_context` was called
    /// outside every pool and handed its work to the global pool.
    pub fn migrated(&self) -> bool {
        self.migrated
    }
}

/// [`join`], telling each closure whether it runs on another thread than the caller (see
/// [`FnContext::migrated`]), as rayon's `join_context` does: for work that wants to split
/// further only where it was stolen, or to know whether thread-local state is the caller's.
///
/// ```
/// let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let (a, b) = pool.install(|| blitz::join_context(|ctx| ctx.migrated(), |_| 2));
/// assert_eq!((a, b), (false, 2));
/// ```
pub fn join_context<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    let outside = Worker::current().is_none();
    with_worker(move |worker| {
        let joiner = worker.index();
        worker.join(
            |_| a(FnContext { migrated: outside }),
            |thief| {
                b(FnContext {
                    migrated: outside || thief.index() != joiner,
                })
            },
        )
    })
}

/// Runs `op` with a worker context: the current thread's worker if it is one, otherwise a
/// worker of the global pool (the calling thread blocks until `op` returns).
///
/// This is the entry point of context-passing code: look the worker up once, then hand the
/// `&Worker` down to [`Worker::join`].
///
/// ```
/// let index = blitz::with_worker(|w| w.index());
/// assert!(index < blitz::current_num_threads());
/// ```
pub fn with_worker<OP, R>(op: OP) -> R
where
    OP: FnOnce(&Worker) -> R + Send,
    R: Send,
{
    match Worker::current() {
        Some(worker) => op(worker),
        None => global_registry().in_worker(op),
    }
}

#[cfg(all(test, not(loom)))]
mod tests;
