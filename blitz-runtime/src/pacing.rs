//! Request pacing: an idle worker that keeps finding jobs too small to pay for their steal asks
//! its peers for work less often.
//!
//! An idle worker raises every peer's request flag in each idle round (`Registry::request_work`),
//! and a busy peer answers at its next fork point by publishing its oldest private fork. That
//! is what spreads a computation, but it splits *anything* the owner is running, however
//! small. A call tree of a microsecond or two, run many times in a row inside the pool (a
//! small recursive sum in a loop, say), was split at the root every time: the steal, the
//! thief's cache misses on the stolen half and the owner's wait for it cost more than the
//! half saved, and on 2 workers the loop ran 1.3-2.5x slower than on one.
//!
//! So the thief judges what it gets. A job it took from a deque while idle that ran for less
//! than [`TINY_JOB`] puts its requests on pause for a while ([`RequestPacing::job_ran`]),
//! doubling from [`FIRST_PAUSE`] to at most [`LONGEST_PAUSE`] while the jobs it finds stay that
//! small; one job that runs longer ends the pause and resets it. During a pause the thief still
//! steals whatever is published, but neither its idle rounds nor its steals ask for more (a
//! steal normally asks the victim for a refill, `REQUEST_REFILL`, which would keep the same
//! tiny call trees split). Its idle rounds during a pause do not count towards sleep
//! (`Sleep::paused_round`): a worker moves towards sleep only in rounds that asked, so none
//! goes to sleep without having asked for the work in its peers' private frames, and a thief
//! that would have been split a tiny job a moment later does not fall asleep meanwhile, to
//! be woken by a futex call on the owner's path. A pause is short, so this keeps a worker
//! awake at most `LONGEST_PAUSE` longer. On a pool with a CPU per worker a paused round spins
//! instead of yielding (see `Sleep::paused_round` for why). Jobs from outside the pool (the
//! injector) do not count: their size says nothing about the forks a request would split.
//!
//! What a pause can cost: a peer that switches from tiny call trees to a large one is split
//! at most `LONGEST_PAUSE` late (about 100 us on x86-64), and only if it did not publish
//! the large one's first forks eagerly by itself (a new call tree does, see
//! `Worker::eager_budget`).

use std::cell::Cell;

use crate::join::timestamp;

/// A job that ran for less than this (in [`timestamp`] units) did not pay for its steal: 2^14
/// ticks, 4-6 us on x86-64. The steal, the promotion that offered the job and the join that
/// waits for it cost the thief and the owner one to a few microseconds between them, and a
/// split job's halves each carry part of that, so the time a stolen job takes is no good
/// measure of the work in it until it is several times that cost. Measured on the loop of
/// 1023-node tree sums (1.5 us each) on 2 workers: with 2^12 ticks most stolen halves ran
/// longer than the bound and the loop still split 2-3 times per tree (3.2-3.6 us per tree);
/// with 2^13, 1.4-1.8 times (2.2-3.4 us); with 2^14, 0.15-0.25 times (2.0 us).
#[cfg(all(target_arch = "x86_64", not(miri)))]
pub(crate) const TINY_JOB: u64 = 1 << 14;
#[cfg(not(any(target_arch = "x86_64", miri)))]
pub(crate) const TINY_JOB: u64 = 5_000;
/// Under Miri, which interprets about a thousand times slower: 5 ms.
#[cfg(miri)]
pub(crate) const TINY_JOB: u64 = 5_000_000;

/// The first pause after a tiny job: as long as a tiny job, so a thief that got unlucky once
/// asks again almost at once.
pub(crate) const FIRST_PAUSE: u64 = TINY_JOB;

/// The longest pause: 16 tiny jobs (about 100 us on x86-64). A peer running tiny call trees
/// back to back is split about once per this interval, which keeps the cost of those splits to
/// a few percent of its time.
pub(crate) const LONGEST_PAUSE: u64 = TINY_JOB << 4;

/// When an idle worker may raise its peers' request flags (see the module docs). Owned by one
/// worker: plain `Cell`s.
pub(crate) struct RequestPacing {
    /// No requests (except before sleeping) until [`timestamp`] reaches this.
    quiet_until: Cell<u64>,
    /// The pause that the next tiny job starts.
    next_pause: Cell<u64>,
    /// How many jobs `job_ran` has judged (for tests of which jobs count).
    #[cfg(test)]
    pub(crate) jobs_judged: Cell<usize>,
}

impl RequestPacing {
    pub(crate) fn new() -> RequestPacing {
        RequestPacing {
            quiet_until: Cell::new(0),
            next_pause: Cell::new(FIRST_PAUSE),
            #[cfg(test)]
            jobs_judged: Cell::new(0),
        }
    }

    /// A job found while idle, started at `started`, just returned: pause our requests if it
    /// was tiny, end the pause if it was not.
    #[inline]
    pub(crate) fn job_ran(&self, started: u64) {
        #[cfg(test)]
        self.jobs_judged.set(self.jobs_judged.get() + 1);
        self.job_ran_until(started, timestamp());
    }

    /// True if our requests are not on pause.
    #[cfg(not(loom))]
    #[inline]
    pub(crate) fn requests_due(&self) -> bool {
        self.requests_due_at(timestamp())
    }

    /// Never paused under loom: the models explore the sleep protocol's interleavings, where
    /// a pause would only add rounds that spin on the clock.
    #[cfg(loom)]
    pub(crate) fn requests_due(&self) -> bool {
        true
    }

    fn job_ran_until(&self, started: u64, now: u64) {
        if now.wrapping_sub(started) < TINY_JOB {
            let pause = self.next_pause.get();
            self.quiet_until.set(now.wrapping_add(pause));
            self.next_pause.set((pause * 2).min(LONGEST_PAUSE));
        } else {
            self.quiet_until.set(now);
            self.next_pause.set(FIRST_PAUSE);
        }
    }

    // Under loom, requests are never paused (see `requests_due`): only the tests call it.
    #[cfg_attr(loom, allow(dead_code))]
    fn requests_due_at(&self, now: u64) -> bool {
        // A signed distance: a timestamp that goes backwards (a migration between cores with
        // skewed counters) or wraps ends the pause early at worst, never makes it endless.
        let ahead = self.quiet_until.get().wrapping_sub(now) as i64;
        ahead <= 0 || ahead as u64 > LONGEST_PAUSE
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    const T0: u64 = 1 << 40;

    #[test]
    fn a_tiny_job_pauses_requests_and_a_long_one_resumes_them() {
        let pacing = RequestPacing::new();
        assert!(pacing.requests_due_at(T0));
        pacing.job_ran_until(T0, T0 + TINY_JOB - 1);
        let end = T0 + TINY_JOB - 1;
        assert!(!pacing.requests_due_at(end));
        assert!(!pacing.requests_due_at(end + FIRST_PAUSE - 1));
        assert!(pacing.requests_due_at(end + FIRST_PAUSE));
        // A second tiny job in a row pauses twice as long.
        pacing.job_ran_until(end, end + 1);
        assert!(!pacing.requests_due_at(end + 1 + 2 * FIRST_PAUSE - 1));
        assert!(pacing.requests_due_at(end + 1 + 2 * FIRST_PAUSE));
        // A job that is not tiny ends the pause at once and resets it.
        pacing.job_ran_until(end + 2, end + 2 + TINY_JOB);
        assert!(pacing.requests_due_at(end + 2 + TINY_JOB));
        pacing.job_ran_until(T0 * 2, T0 * 2);
        assert!(pacing.requests_due_at(T0 * 2 + FIRST_PAUSE));
    }

    #[test]
    fn pauses_double_up_to_the_longest() {
        let pacing = RequestPacing::new();
        let mut now = T0;
        for _ in 0..64 {
            pacing.job_ran_until(now, now);
            now += 1;
        }
        let end = now - 1;
        assert!(!pacing.requests_due_at(end + LONGEST_PAUSE - 1));
        assert!(pacing.requests_due_at(end + LONGEST_PAUSE));
    }

    #[test]
    fn a_clock_that_goes_backwards_ends_the_pause() {
        let pacing = RequestPacing::new();
        pacing.job_ran_until(T0, T0);
        assert!(!pacing.requests_due_at(T0));
        // Read on a core whose counter lags by more than any pause.
        assert!(pacing.requests_due_at(T0 - 4 * LONGEST_PAUSE));
        // And a counter that wrapped around.
        pacing.job_ran_until(u64::MAX - 1, u64::MAX);
        assert!(!pacing.requests_due_at(u64::MAX));
        assert!(pacing.requests_due_at(FIRST_PAUSE * 2));
    }
}
