//! Lazy promotion: what a worker offers of its pending forks, and when.
//!
//! A fork does not publish its second closure. `Worker::join` records the stack job of the
//! pending forks that may be worth offering on the worker's private frame stack
//! ([`FrameStack`](crate::frames::FrameStack): plain `Cell`s, no atomics, no fences; see `record_window` and
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
//! published without being asked, and so is every recorded fork of a worker that answered a
//! request late (see [`LATE_ANSWER`]) until one turns out short.

use super::Worker;
use crate::job::JobRef;
use crate::join::{LONG_FIRST_CLOSURE, timestamp};
use crate::sync::{AtomicU8, AtomicU64, Ordering, fence};

/// A worker's request flag (one of the `REQUEST_*` states) and when it was raised: one cache
/// line, which idle peers write and the owner reads at every fork.
pub(crate) struct WorkRequest {
    pub(crate) state: AtomicU8,
    /// The [`timestamp`] of the peer that took `state` from `REQUEST_NONE` to a request.
    raised_at: AtomicU64,
}

impl WorkRequest {
    pub(crate) fn new() -> WorkRequest {
        WorkRequest {
            state: AtomicU8::new(REQUEST_NONE),
            raised_at: AtomicU64::new(0),
        }
    }

    /// Raises the request (to `REQUEST_RAISED` or `REQUEST_REFILL`) from `REQUEST_NONE`, and
    /// stamps it now.
    pub(crate) fn raise(&self, state: u8) {
        self.raise_stamped(state, timestamp());
    }

    /// [`raise`](Self::raise) with the stamp given.
    pub(crate) fn raise_stamped(&self, state: u8, stamp: u64) {
        // Relaxed: published by the release store below.
        self.raised_at.store(stamp, Ordering::Relaxed);
        // Release: an owner that sees the request and then fences (`fresh_stamp`) sees this
        // stamp or a later one, not the stamp of an older request, which would make this one
        // look late.
        self.state.store(state, Ordering::Release);
    }

    /// Turns a raised request into a refill request (see `REQUEST_REFILL`), keeping its stamp:
    /// the peers have been asking since then. Release, so that an owner that sees the refill
    /// sees that stamp, as for `raise` (the caller read `REQUEST_RAISED` with acquire).
    pub(crate) fn turn_into_refill(&self) {
        self.state.store(REQUEST_REFILL, Ordering::Release);
    }

    /// The request's state, read by its owner; with the stamp if the request is fresh (see
    /// [`request_is_fresh`]).
    pub(crate) fn state_and_fresh_stamp(&self) -> (u8, Option<u64>) {
        // Relaxed: the fence below orders the stamp's load when it is needed.
        let state = self.state.load(Ordering::Relaxed);
        if !request_is_fresh(state) {
            return (state, None);
        }
        // Acquire: pairs with the release store of `raise_stamped` (or `turn_into_refill`)
        // that wrote `state`.
        fence(Ordering::Acquire);
        (state, Some(self.raised_at.load(Ordering::Relaxed)))
    }
}

/// How long after its request was raised an answer is late (in [`timestamp`] units): the
/// owner's fork and join points are that far apart, and the peers that asked starved
/// meanwhile. The owner then publishes its forks at once until one turns out short
/// (`Worker::eager_until_unstolen`). About 20-30 us, as `LONG_FIRST_CLOSURE`: a publication
/// costs some tens of nanoseconds, and fine-grained recursion answers within a microsecond.
const LATE_ANSWER: u64 = LONG_FIRST_CLOSURE;

/// How many private records a worker keeps before it stops recording forks (see
/// [`Worker::fork_mode`](crate::Worker::fork_mode); forks may be recorded beyond it on
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
///
/// The window is kept while records pay off: beyond its first record it is drawn on
/// [`WINDOW_CREDIT`], which each record left unpromoted spends and each promotion earns back.
/// Without credit the window is one record, the outermost pending fork (see
/// [`Worker::fork_is_recordable`]).
/// In a loop over small call trees whose halves an idle peer takes now and then, most
/// records of the window were left unpromoted: about 45 per 1023-node tree, in its right
/// spines, where a fork's second closure runs after its record was left and records again.
/// Measured on 2 workers with a 1023-node tree run 1000 times in one call (per tree): window 2,
/// 4.1-4.7 us and 32-46 records left per tree; window 1, 3.1-3.4 us and 11 records, the
/// sequential code 2.6-2.9 us.
pub(crate) fn record_window(num_threads: usize) -> usize {
    if num_threads <= 1 {
        return 0;
    }
    1 + num_threads.next_power_of_two().trailing_zeros() as usize
}

/// The most forks beyond the window that `Worker::join` and `#[parallel]` fork points record
/// before the worker has seen one of them wasted; a recorded fork left unpromoted spends one,
/// a promotion a peer asked for earns [`CREDIT_PER_PROMOTION`].
///
/// A fork beyond the window is worth recording only if it is entered once and stays pending a
/// long time: a chain of joins (`join(|w| rest(w), |_| leaf())`) enters every level once, in a
/// burst, and then sits at the bottom while idle peers ask for the levels above. A balanced tree
/// re-enters its deep levels millions of times, and recording each of those costs several times
/// a plain fork on a large tree (its job must be built in memory). Credit tells the two apart
/// without knowing the shape: records are spent only when they are left unpromoted, which a
/// chain's descent never does and a tree's leaves do at once.
pub(super) const RECORD_CREDIT: usize = 1024;
/// The credit a promotion earns back: the records are in demand.
const CREDIT_PER_PROMOTION: usize = 64;

/// The records beyond the first of the window (see [`record_window`]) that a worker makes
/// without seeing its records promoted; a record left unpromoted spends one, a promotion earns
/// [`WINDOW_CREDIT_PER_PROMOTION`]. So the window stays wide where peers take records often
/// (wide pools whose workers run long leaves), and a worker whose records are nearly all
/// wasted (fine-grained recursion, where an idle peer takes a half now and then) keeps one.
/// Separate from [`RECORD_CREDIT`], which earns faster: a chain of `Worker::join`s needs that
/// credit to be there when it starts, whatever fine-grained work ran on the worker before.
pub(super) const WINDOW_CREDIT: usize = 256;
/// The window credit a promotion earns back. Measured on 2 workers (a 1023-node tree run 1000
/// times in one call, and fib(35) forking at every call) and on 8 to 64 workers with sleeping
/// leaves: 1, 8 and 64 gave the same fib and scaling figures; the tree took 3.2-4.1 us with 1,
/// 3.2-3.5 with 8, 3.7-3.8 with 64, against 4.2-5.8 with the window always wide.
const WINDOW_CREDIT_PER_PROMOTION: usize = 8;

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

impl Worker {
    /// Whether a fork entered now is within the window (see [`record_window`]): fewer private
    /// records than the window are pending. Beyond its first record, the window is drawn on
    /// [`WINDOW_CREDIT`].
    #[inline]
    pub(crate) fn fork_is_recordable(&self) -> bool {
        let window = if self.window_credit.get() > 0 {
            self.record_window
        } else {
            self.record_window.min(1)
        };
        self.frames.private() < window
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
        self.window_credit
            .set(self.window_credit.get().saturating_sub(1));
        self.refresh_join_records();
    }

    /// Spends all record credit: tests of the window alone.
    #[cfg(all(test, not(loom)))]
    pub(crate) fn forget_record_credit(&self) {
        self.record_credit.set(0);
        self.refresh_join_records();
    }

    /// A recorded fork was promoted: the window paid off, and unless the promotion was an eager
    /// publication (`asked` false), so did recording beyond the window. An eager publication
    /// earns no record credit: it is offered unasked, at the root of every call tree that starts while peers
    /// are idle, and a small tree called again and again from outside the pool then spent
    /// what its stolen root earned on deep records nobody took (a 1023-node tree: 1.95-1.99
    /// of the sequential time on 2 workers where it took 1.76 with the window alone).
    #[inline]
    fn earn_credit(&self, asked: bool) {
        if asked {
            self.record_credit
                .set((self.record_credit.get() + CREDIT_PER_PROMOTION).min(RECORD_CREDIT));
        }
        self.window_credit
            .set((self.window_credit.get() + WINDOW_CREDIT_PER_PROMOTION).min(WINDOW_CREDIT));
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
            return self.eager_until_unstolen.get();
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

    /// An eagerly published job came back unstolen after a short first closure: this worker's
    /// forks are not far apart after all, so it stops publishing them all (see
    /// `eager_until_unstolen`).
    #[inline]
    pub(crate) fn stop_eager_publication(&self) {
        self.eager_until_unstolen.set(false);
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
        &self.work_request().state
    }

    /// This worker's request flag and its stamp.
    #[inline]
    fn work_request(&self) -> &WorkRequest {
        // SAFETY: points into `self.registry`, which outlives `self` (see `work_wanted`).
        unsafe { &*self.work_wanted }
    }

    /// True if an idle peer asked us for work (raised or deferred).
    #[inline]
    pub(crate) fn work_wanted(&self) -> bool {
        // Relaxed: a hint; see `ThreadInfo::work_wanted`.
        self.work_wanted_flag().load(Ordering::Relaxed) != REQUEST_NONE
    }

    /// Makes this worker ignore late answers (see `ignore_late_answers`).
    #[cfg(all(test, not(loom)))]
    pub(crate) fn ignore_late_answers(&self) {
        self.ignore_late_answers.set(true);
    }

    #[cfg(test)]
    fn ignores_late_answers(&self) -> bool {
        self.ignore_late_answers.get()
    }

    #[cfg(not(test))]
    #[inline(always)]
    fn ignores_late_answers(&self) -> bool {
        false
    }

    /// Raises this worker's own request flag, stamped now, as an idle peer would.
    #[cfg(test)]
    pub(crate) fn raise_work_request(&self) {
        self.work_request().raise(REQUEST_RAISED);
    }

    /// This worker is busy again after idling: a request peers raised meanwhile counts as
    /// raised now. How late an answer is measures the stretches between our fork and join
    /// points while we are busy, not the time we spent idle ourselves.
    pub(super) fn restamp_work_request(&self) {
        let request = self.work_request();
        if request_is_fresh(request.state.load(Ordering::Relaxed)) {
            // Relaxed: a hint; a peer's `raise` racing with this store leaves either stamp,
            // both from the last moment.
            request.raised_at.store(timestamp(), Ordering::Relaxed);
        }
    }

    /// Pushes the oldest private frame onto our deque, where idle peers can steal it (and
    /// where `push` wakes a sleeping one), unasked (an eager publication). False if every
    /// pending frame is already public.
    #[cold]
    #[inline(never)]
    pub(crate) fn promote_oldest_frame(&self) -> bool {
        match self.frames.promote_oldest() {
            Some(job) => {
                self.earn_credit(false);
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
                self.earn_credit(true);
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
    pub(super) fn idle_share(&self) -> usize {
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
        let (state, stamp) = self.work_request().state_and_fresh_stamp();
        // Signed: the stamp is another core's, and an answer within the counters' skew would
        // otherwise wrap to a huge wait.
        if stamp.is_some_and(|raised_at| {
            timestamp().wrapping_sub(raised_at) as i64 >= LATE_ANSWER as i64
        }) && !self.ignores_late_answers()
        {
            self.eager_until_unstolen.set(true);
        }
        let wanted = match state {
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

    /// Publishes every private frame, oldest first, and posts them as one batch: for a worker
    /// about to run pending work in place of its current job (`yield_now`, a wait on another
    /// pool), whose own private forks are then among the jobs it and its peers can run. A
    /// first closure that waits for its sibling (`join(|| while !flag { yield_now(); }, ||
    /// flag.set())`) finds the sibling on its deque, newest first, as in rayon. Returns how
    /// many it published.
    #[cold]
    pub(crate) fn publish_private_frames(&self) -> usize {
        let already_offered = self.deque().len();
        let mut published = 0;
        while self.promote_oldest_frame_quietly() {
            published += 1;
        }
        if published > 0 {
            self.registry
                .sleep
                .new_published_batch(published, already_offered == 0);
        }
        published
    }

    /// A job we published came back to us unstolen: we offered more than thieves took, so
    /// halve the refill reserve (not below one job per peer).
    #[inline]
    pub(crate) fn published_job_came_back(&self) {
        let floor = self.num_threads() - 1;
        self.refill_reserve
            .set((self.refill_reserve.get() / 2).max(floor));
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::Arc;
    use loom::thread;

    /// A peer raises a new request over the stale stamp of an answered one, then turns it
    /// into a refill: an owner that sees either request reads the new stamp, so an answer
    /// that comes at once never looks late.
    #[test]
    fn a_fresh_request_carries_its_own_stamp() {
        const STALE: u64 = 1;
        const NEW: u64 = 2;
        loom::model(|| {
            let request = Arc::new(WorkRequest::new());
            request.raise_stamped(REQUEST_RAISED, STALE);
            request.state.store(REQUEST_NONE, Ordering::Relaxed);
            let peer = {
                let request = Arc::clone(&request);
                thread::spawn(move || {
                    request.raise_stamped(REQUEST_RAISED, NEW);
                    if request.state.load(Ordering::Acquire) == REQUEST_RAISED {
                        request.turn_into_refill();
                    }
                })
            };
            let (state, stamp) = request.state_and_fresh_stamp();
            match state {
                REQUEST_NONE => assert_eq!(stamp, None),
                _ => assert_eq!(stamp, Some(NEW), "state {state}: the stale stamp"),
            }
            peer.join().unwrap();
        });
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::registry::Registry;

    /// A request answered long after it was raised makes the owner publish each recorded
    /// fork at once (`eager_until_unstolen`), until a published fork comes back unstolen
    /// after a short first closure; one answered at once changes nothing. Driven on a worker
    /// of a two-worker registry with no threads, so the only requests are the planted ones
    /// and every published job comes back.
    #[test]
    fn a_late_answer_publishes_forks_until_a_short_one_comes_back() {
        let worker = Worker::new(Registry::new(2, Default::default()), 0);
        let w = &worker;
        let published = |w: &Worker| !w.has_private_frames();
        assert_eq!(w.eager_budget(), 0);
        w.join(|w| assert!(!published(w), "nothing armed"), |_| ());

        // Asked just now: answered at once, not late (unless this thread was preempted in
        // between, or runs under a sanitizer: then the fork below is published, comes back
        // short, and ends the mode).
        let asked = timestamp();
        w.join(
            |w| {
                w.work_request().raise(REQUEST_RAISED);
                w.poll_work_request();
                assert!(published(w), "the request promoted the fork");
            },
            |_| (),
        );
        let prompt = (timestamp().wrapping_sub(asked) as i64) < LATE_ANSWER as i64;
        w.join(
            |w| assert!(!(prompt && published(w)), "a prompt answer"),
            |_| (),
        );

        // Asked long ago: a late answer.
        let long_ago = timestamp().wrapping_sub(2 * LATE_ANSWER);
        w.join(
            |w| {
                w.work_request().raise_stamped(REQUEST_RAISED, long_ago);
                w.poll_work_request();
            },
            |_| (),
        );
        // Published while their first closures run long.
        let run_long = || {
            let long = if cfg!(miri) { 300 } else { 2 };
            std::thread::sleep(std::time::Duration::from_millis(long));
        };
        for _ in 0..2 {
            w.join(
                |w| {
                    assert!(published(w), "after a late answer");
                    run_long();
                },
                |_| (),
            );
        }
        // One more, short: it comes back, and the worker stops publishing. A fork whose first
        // closure is judged long all the same (this thread preempted, or moved to a core whose
        // counter reads behind, between the fork's stamp and its join) arms the next one: then
        // the next short one ends the mode.
        for tries in 1.. {
            w.join(
                |w| assert!(published(w), "still after a late answer"),
                |_| (),
            );
            if !w.eager_until_unstolen.get() {
                break;
            }
            assert!(tries < 100, "no short fork ended the mode");
        }
        w.join(|w| assert!(!published(w), "after a short one"), |_| ());
        assert_eq!(w.work_wanted_flag().load(Ordering::Relaxed), REQUEST_NONE);
    }
}
