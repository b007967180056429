//! When idle workers go to sleep, and who wakes them (seeds 001 and 002, with ERRATA 1 fixed).
//!
//! # The counters
//!
//! One `u64` ([`AtomicCounters`]) holds, so that they can be read and updated together:
//!
//! | bits  | field            | meaning                                              |
//! |-------|------------------|------------------------------------------------------|
//! | 0-15  | sleeping threads | workers blocked (or about to block) on their condvar |
//! | 16-31 | inactive threads | workers looking for work (includes sleeping ones)    |
//! | 32-63 | JEC              | jobs event counter                                   |
//!
//! # The jobs event counter (JEC)
//!
//! Its parity is a mode: **even = sleepy** (some worker announced it is about to sleep and no
//! job was posted since), **odd = active**. The two sides move it in opposite directions:
//!
//! * a worker *announcing sleepy* increments it only if it is active (odd -> even) and records
//!   the value it leaves (its snapshot);
//! * a *poster* of new work increments it only if it is sleepy (even -> odd).
//!
//! Before blocking, the sleeper registers itself with a CAS that also checks the JEC still
//! equals its snapshot. So a job posted after the announcement either changed the JEC (the
//! CAS fails and the worker searches again) or was posted after the registration (the poster
//! sees `sleeping > 0` and wakes someone). The reference design incremented "if even" on *both*
//! sides, which leaves the counter odd forever after the first toggle: the snapshot check never
//! fires and a worker can sleep while a job sits in a peer's deque (ERRATA 1). The test
//! `errata_1_post_between_announce_and_sleep_prevents_sleep` replays that interleaving.
//!
//! # Fences
//!
//! The jobs of a worker's own forks, pushed to its deque, need no fence: a sleeper can miss
//! such a job only in a store-buffer race with a concurrent announcement, and then the job is
//! not lost, because its owner pops it back at its join (the price is parallelism until the
//! owner's next push, whose wake check then sees the sleeper). Jobs *injected* from outside
//! have no owner to fall back on, so there both sides use a SeqCst fence (#1 in
//! [`Sleep::new_injected_jobs`] after the push, #2 in [`Sleep::sleep`] after registering as
//! asleep): of two threads that each store then fence then load, at least one sees the other's
//! store. A job that a worker spawns (`spawn`, a scope's task) onto its own deque is neither
//! kind: the worker may run on for long or block outside the pool (on a channel, say) without a
//! join that would pop it, so it is posted with fence #1 too ([`Sleep::new_unjoined_jobs`]);
//! it pairs with the fence of the steal that a peer makes after announcing that it is sleepy.
//! (Under Miri's weak-memory emulation, a worker that spawned a job and then spun until it
//! started waited forever in about one run in fifty, its only peer asleep.) The rest of an
//! injected batch that a worker moves onto its own deque is posted the same way, since the
//! worker is about to run the batch's first job and may never come back for the rest. Fence #3, in
//! [`Sleep::work_found`], pairs with #1 for a worker that the poster of an injected job counted
//! as awake and idle but that took another job meanwhile.

mod counters;

use crossbeam_utils::CachePadded;

use crate::latch::CoreLatch;
use crate::sync::{self, Condvar, Mutex, Ordering, fence};

pub(crate) use counters::{AtomicCounters, Counters, JobsEventCounter, MAX_THREADS};

/// Idle rounds (each a yield) before a worker announces that it is sleepy.
#[cfg(not(loom))]
pub(crate) const ROUNDS_UNTIL_SLEEPY: u32 = 32;
/// The round from which a sleepy worker tries to block: round 32 announces (and yields),
/// round 33 is one more yield, blocking starts at round 34 (seed 001's schedule).
#[cfg(not(loom))]
pub(crate) const ROUNDS_UNTIL_SLEEPING: u32 = ROUNDS_UNTIL_SLEEPY + 2;
// Under loom every yield is a scheduling point to explore; the protocol's logic does not depend
// on how many plain yield rounds come first.
#[cfg(loom)]
pub(crate) const ROUNDS_UNTIL_SLEEPY: u32 = 0;
#[cfg(loom)]
pub(crate) const ROUNDS_UNTIL_SLEEPING: u32 = ROUNDS_UNTIL_SLEEPY + 1;

/// How many idle workers per CPU may be in their searching (yielding) rounds at once; beyond
/// that, an idle worker announces sleepiness at once (see [`Sleep::no_work_found`]).
///
/// Yielding workers take turns on the CPUs, so in a pool larger than the machine they delay
/// the worker that a just-set latch or a just-published job waits for. A bound of one per CPU
/// is too tight the other way: the worker that is needed next is then more often asleep, and a
/// futex wake-up costs more than a few turns. Measured on 2 CPUs with a 512-link chain of
/// `join(leaf, rest)` whose leaves sleep 400 us, wall time at 32 / 64 workers: no bound
/// 17-19 / 21-25 ms, 1 per CPU 17-19 / 13-15 ms, 2 per CPU 13-15 / 10-12 ms, 3-4 per CPU
/// 12.5-14 / 9.5-11.5 ms, 8-12 per CPU 13-14 / 9.5-10.5 ms. Most of the difference is in the
/// chain's unwinding, where each link's join waits for the next one's worker to run: its
/// median step went from 18-30 us to 5 us. A pool no larger than the machine never reaches
/// the bound.
const SEARCHERS_PER_CPU: usize = 4;

/// How many sleepers one batch publication, or one thief that finds a backlog, wakes.
const WAKE_FANOUT: usize = 2;

/// How many spin-loop hints a paused round spins for when every worker has a CPU of its own
/// (see `Sleep::paused_round`): a microsecond or less, so a job published meanwhile is seen
/// about as soon as after a yield.
const PAUSED_ROUND_SPINS: u32 = 32;

/// One idle round's pause: hand the CPU to another thread.
#[cfg(not(loom))]
fn idle_yield() {
    std::thread::yield_now();
}
/// Under loom a yield forces a context switch, which would hide interleavings behind extra
/// preemptions; the protocol's correctness never depends on the yields, so rounds just count.
#[cfg(loom)]
fn idle_yield() {}

/// A worker's private progress through the idle rounds.
#[derive(Debug)]
pub(crate) struct IdleState {
    worker_index: usize,
    /// Idle rounds so far.
    rounds: u32,
    /// The JEC this worker left when it announced sleepiness.
    jobs_counter: JobsEventCounter,
}

impl IdleState {
    /// Back to round 0 (we found work or were woken).
    fn wake_fully(&mut self) {
        self.rounds = 0;
        self.jobs_counter = JobsEventCounter::INVALID;
    }

    /// Back to the announcement round (new jobs appeared while we were getting sleepy).
    fn wake_partly(&mut self) {
        self.rounds = ROUNDS_UNTIL_SLEEPY;
        self.jobs_counter = JobsEventCounter::INVALID;
    }
}

/// What a sleeping worker blocks on. Cache-padded: each worker's is written by its wakers.
struct WorkerSleepState {
    /// True while the worker is blocked; cleared by the waker (under the lock).
    is_blocked: Mutex<bool>,
    condvar: Condvar,
}

/// The sleep manager of one pool.
pub(crate) struct Sleep {
    counters: AtomicCounters,
    worker_sleep_states: Box<[CachePadded<WorkerSleepState>]>,
    /// How many idle workers may be in their searching rounds at once: [`SEARCHERS_PER_CPU`]
    /// per CPU the process can run on.
    max_searching: usize,
    /// The pool has no more workers than CPUs: a worker whose requests are paused spins
    /// instead of yielding (see `paused_round`).
    spin_when_paused: bool,
}

impl Sleep {
    /// The sleep manager of a pool of `num_threads` workers on a machine with `num_cpus` CPUs.
    pub(crate) fn new(num_threads: usize, num_cpus: usize) -> Self {
        assert!(num_threads <= MAX_THREADS);
        Sleep {
            counters: AtomicCounters::new(),
            max_searching: SEARCHERS_PER_CPU * num_cpus.max(1),
            spin_when_paused: num_threads <= num_cpus,
            worker_sleep_states: (0..num_threads)
                .map(|_| {
                    CachePadded::new(WorkerSleepState {
                        is_blocked: Mutex::new(false),
                        condvar: Condvar::new(),
                    })
                })
                .collect(),
        }
    }

    /// A snapshot of the counters (diagnostics and tests).
    pub(crate) fn counters(&self) -> Counters {
        self.counters.load()
    }

    /// The worker found no work and starts its idle rounds.
    pub(crate) fn start_looking(&self, worker_index: usize) -> IdleState {
        self.counters.add_inactive_thread();
        IdleState {
            worker_index,
            rounds: 0,
            jobs_counter: JobsEventCounter::INVALID,
        }
    }

    /// The worker found work (or the latch it waited on was set) and is active again.
    ///
    /// A worker that took an injected job, or whose latch was set, wakes nobody as a rule
    /// (seed 001 and rayon wake up to two sleepers here, "so that work spreads"): every job is
    /// posted through `new_jobs`, which already wakes as many sleepers as the jobs need, and a
    /// futex wake-up here would sit between finding a job and starting it. Measured on 2
    /// workers, after 100 ms idle: a job from outside started 24 us after its submission with
    /// that wake-up, 9 us without it. (A published batch, whose post wakes at most two
    /// sleepers, cascades too: a thief that steals from a deque with jobs left wakes more, see
    /// [`Sleep::backlog_found`].)
    ///
    /// The exceptions, when others sleep:
    ///
    /// * `job_from_a_deque`: it took a job from a deque (a peer's, or its own). Work is being
    ///   handed out inside the pool, and more may come soon (a chain of spawns or of
    ///   `join(leaf, rest)` publishes its next link as each link starts): it wakes up to
    ///   `WAKE_FANOUT` sleepers, as rayon does, so that workers are searching when the next
    ///   piece comes instead of being woken for it then (the searching-worker bound, see
    ///   `SEARCHERS_PER_CPU`, sends the surplus back to sleep soon). On 2 CPUs, a chain of
    ///   512 spawned tasks whose leaves sleep 400 us took 5.1-5.6 ms on 64 workers when a
    ///   thief woke nobody or only one sleeper, 4.6-4.9 ms with two (rayon 4.7-5.0 ms): with
    ///   one, each link still waited for a wake-up. Not for a job from the injector: that is
    ///   the latency of a call from outside, which a futex call here would delay.
    /// * if this worker was the last awake idle one: a poster of an injected job that found
    ///   this worker awake and idle woke nobody for its job (see `post_jobs`), but the worker
    ///   may have taken another one. It checks the injector (`injected_pending`) and wakes one
    ///   sleeper for what is there. Two calls into an idle pool at once, whose jobs wait for
    ///   each other, stalled without this: the second job sat in the injector while its worker
    ///   slept.
    pub(crate) fn work_found(
        &self,
        job_from_a_deque: bool,
        injected_pending: impl FnOnce() -> bool,
    ) {
        let old = self.counters.sub_inactive_thread();
        if old.sleeping_threads() == 0 {
            return;
        }
        if job_from_a_deque {
            // The woken workers search the injector too.
            self.wake_any_threads(old.sleeping_threads().min(WAKE_FANOUT));
            return;
        }
        if old.awake_but_idle_threads() != 1 {
            return;
        }
        // Fence #3: pairs with fence #1 in `new_injected_jobs`. The poster pushed, fenced and
        // read the counters; we updated the counters, fence and read the injector: either it
        // saw our update (we were no longer idle, so it woke a sleeper) or we see its job.
        fence(Ordering::SeqCst);
        if injected_pending() {
            self.wake_any_threads(1);
        }
    }

    /// One idle round without work: yield, announce sleepiness, or sleep, depending on how
    /// long the worker has been idle (the progressive sleep of seed 001).
    ///
    /// `latch` is what the worker is waiting for (a job's latch, or its termination latch);
    /// setting it wakes the worker. `has_injected_jobs` re-checks the injector (and the
    /// worker's broadcast queue) after the worker registered as asleep, while it holds its
    /// sleep mutex.
    ///
    /// `keep_awake` is asked, only when the worker is about to announce sleepiness, whether it
    /// should stay in the yielding rounds instead (see `Worker::outside_caller_expected`).
    // Under loom `ROUNDS_UNTIL_SLEEPY` is 0, so the searching rounds' branch never runs.
    #[cfg_attr(loom, allow(clippy::absurd_extreme_comparisons))]
    pub(crate) fn no_work_found(
        &self,
        idle_state: &mut IdleState,
        latch: &CoreLatch,
        keep_awake: impl FnOnce() -> bool,
        has_injected_jobs: impl FnOnce() -> bool,
    ) {
        if idle_state.rounds == ROUNDS_UNTIL_SLEEPY && keep_awake() {
            // Stay at this round: yield, and ask again next round. Nothing is announced, so the
            // sleep protocol's state is that of a worker still searching.
            idle_yield();
        } else if idle_state.rounds < ROUNDS_UNTIL_SLEEPY {
            if self.counters.load().awake_but_idle_threads() > self.max_searching {
                // Too many idle workers are awake for the CPUs (see `SEARCHERS_PER_CPU`):
                // announce at the next round instead of yielding through the rest. The
                // protocol allows an announcement after any number of rounds (the loom
                // models use none), so this changes only when, not whether, work is seen.
                idle_state.rounds = ROUNDS_UNTIL_SLEEPY;
            } else {
                idle_state.rounds += 1;
            }
            idle_yield();
        } else if idle_state.rounds == ROUNDS_UNTIL_SLEEPY {
            idle_state.jobs_counter = self.announce_sleepy();
            idle_state.rounds += 1;
            idle_yield();
        } else if idle_state.rounds < ROUNDS_UNTIL_SLEEPING {
            idle_state.rounds += 1;
            idle_yield();
        } else {
            debug_assert_eq!(idle_state.rounds, ROUNDS_UNTIL_SLEEPING);
            self.sleep(idle_state, latch, has_injected_jobs);
        }
    }

    /// An idle round that does not count towards sleep: the worker found no work but keeps
    /// looking without asking its peers for more, during a short pause of its requests (see
    /// `crate::pacing`). A worker only moves towards sleep in rounds that asked.
    ///
    /// It spins rather than yields when the pool has a CPU per worker. A pause lasts up to a
    /// hundred microseconds, and a worker that calls `sched_yield` that often while it shares
    /// a CPU with a busy peer is charged for it by the kernel's scheduler (EEVDF moves a
    /// yielding task's virtual runtime ahead): when it is next woken onto that peer's CPU, it
    /// cannot preempt the peer and waits out the peer's time slice. Measured on 2 workers
    /// (Linux 6.18, 2 vCPUs, a fork whose first half spins until the second starts elsewhere,
    /// after 100 ms idle): the thief started 2.5-3.6 ms after the fork (a time slice) in most
    /// tries with yields, 18-25 us with spins. With more workers than CPUs a spinning worker
    /// would take time from busy ones, so those pools keep the yield.
    pub(crate) fn paused_round(&self) {
        if self.spin_when_paused {
            for _ in 0..PAUSED_ROUND_SPINS {
                std::hint::spin_loop();
            }
        } else {
            idle_yield();
        }
    }

    /// Moves the JEC from active to sleepy (odd -> even) if it is active, and returns the value
    /// it has afterwards: the snapshot the worker will compare against before blocking.
    fn announce_sleepy(&self) -> JobsEventCounter {
        self.counters
            .increment_jobs_event_counter_if(JobsEventCounter::is_active)
            .jobs_counter()
    }

    /// The nine steps of seed 001's round 34+, with ERRATA 1 fixed.
    fn sleep(
        &self,
        idle_state: &mut IdleState,
        latch: &CoreLatch,
        has_injected_jobs: impl FnOnce() -> bool,
    ) {
        let worker_index = idle_state.worker_index;

        // 1. UNSET -> SLEEPY. Fails only if the latch is already set: nothing to wait for.
        if !latch.get_sleepy() {
            return;
        }

        // 2. Take our lock: a waker that sees us blocked must not signal before we wait.
        let sleep_state = &self.worker_sleep_states[worker_index];
        let mut is_blocked = sync::lock(&sleep_state.is_blocked);
        debug_assert!(!*is_blocked);

        // 3. SLEEPY -> SLEEPING. Fails if the latch was set since step 1.
        if !latch.fall_asleep() {
            idle_state.wake_fully();
            return;
        }

        // 4 + 5. If the JEC moved since our announcement, jobs were posted that we may have
        // missed: back out and search again. Otherwise register as sleeping, in a CAS that fails
        // if the JEC (or anything) changed meanwhile.
        loop {
            let counters = self.counters.load();
            if counters.jobs_counter() != idle_state.jobs_counter {
                idle_state.wake_partly();
                latch.wake_up();
                return;
            }
            if self.counters.try_add_sleeping_thread(counters) {
                break;
            }
        }

        // 6. Fence #2: pairs with fence #1 in `new_injected_jobs`. Either the injector sees our
        // registration (and wakes us), or we see its job here.
        fence(Ordering::SeqCst);

        // 7. The double check for injected jobs (and broadcast jobs for this worker: their
        // pusher wakes us under our sleep mutex, which we hold from step 2 until we block).
        if has_injected_jobs() {
            // Nobody will decrement for us: we were never woken.
            self.counters.sub_sleeping_thread();
        } else {
            // 8. Block. The waker clears `is_blocked` and decrements the sleeping count.
            *is_blocked = true;
            while *is_blocked {
                is_blocked = sync::wait(&sleep_state.condvar, is_blocked);
            }
        }

        // 9. Awake: back to round 0, latch back to UNSET unless it was set.
        idle_state.wake_fully();
        latch.wake_up();
    }

    /// The latch that worker `target_worker_index` waits on was set while it was SLEEPING.
    pub(crate) fn notify_worker_latch_is_set(&self, target_worker_index: usize) {
        self.wake_specific_thread(target_worker_index);
    }

    /// Jobs were injected from outside the pool.
    /// Returns the number of sleepers it woke.
    pub(crate) fn new_injected_jobs(&self, num_jobs: usize, queue_was_empty: bool) -> usize {
        // Fence #1: the injected job (already pushed) must be visible to a worker that
        // registers as asleep after we read the counters; pairs with fence #2 in `sleep`.
        fence(Ordering::SeqCst);
        self.new_jobs(num_jobs, queue_was_empty)
    }

    /// Jobs were pushed onto a worker's own deque, jobs of its own forks: if a sleeper misses
    /// them, the worker's join pops them back (see the module docs, "Fences").
    pub(crate) fn new_internal_jobs(&self, num_jobs: usize, queue_was_empty: bool) {
        self.new_jobs(num_jobs, queue_was_empty);
    }

    /// Jobs were pushed onto a worker's own deque that no join of that worker pops back
    /// (`spawn`, a scope's tasks): posted like injected jobs, with fence #1.
    pub(crate) fn new_unjoined_jobs(&self, num_jobs: usize, queue_was_empty: bool) {
        // Fence #1: the pushed job must be visible to a peer that announces it is sleepy after
        // we read the counters. Its steals after the announcement fence too (`Deque::steal`),
        // so either we see the announcement (and flip the JEC, or wake it once it sleeps) or
        // its next steal sees the job.
        fence(Ordering::SeqCst);
        self.new_jobs(num_jobs, queue_was_empty);
    }

    /// A batch of jobs was published on a worker's deque at once: post them, but wake at
    /// most `WAKE_FANOUT` sleepers from here; thieves that find the rest wake more
    /// (`backlog_found`), so a big batch does not keep its publisher in futex calls.
    pub(crate) fn new_published_batch(&self, num_jobs: usize, queue_was_empty: bool) {
        self.post_jobs(num_jobs, queue_was_empty, WAKE_FANOUT);
    }

    /// A thief took a job from a deque that still holds more: wake up to `WAKE_FANOUT`
    /// sleepers for the rest.
    pub(crate) fn backlog_found(&self) {
        let num_sleepers = self.counters.load().sleeping_threads();
        if num_sleepers > 0 {
            self.wake_any_threads(num_sleepers.min(WAKE_FANOUT));
        }
    }

    /// The wake policy of seed 001: flip the JEC to active if it is sleepy, then wake as many
    /// sleepers as the new jobs need, counting workers that are idle but awake as already
    /// available when the queue was empty.
    fn new_jobs(&self, num_jobs: usize, queue_was_empty: bool) -> usize {
        self.post_jobs(num_jobs, queue_was_empty, usize::MAX)
    }

    /// `new_jobs`, waking at most `max_wake` sleepers.
    fn post_jobs(&self, num_jobs: usize, queue_was_empty: bool, max_wake: usize) -> usize {
        let counters = self
            .counters
            .increment_jobs_event_counter_if(JobsEventCounter::is_sleepy);
        let num_sleepers = counters.sleeping_threads();
        if num_sleepers == 0 {
            return 0;
        }
        // Idle workers that are awake take jobs posted to an empty queue without a wake-up.
        let needed = if queue_was_empty {
            num_jobs.saturating_sub(counters.awake_but_idle_threads())
        } else {
            num_jobs
        };
        self.wake_any_threads(needed.min(num_sleepers).min(max_wake))
    }

    /// Wakes up to `num_to_wake` blocked workers; returns how many it woke.
    fn wake_any_threads(&self, num_to_wake: usize) -> usize {
        let mut woken = 0;
        for index in 0..self.worker_sleep_states.len() {
            if woken == num_to_wake {
                break;
            }
            if self.wake_specific_thread(index) {
                woken += 1;
            }
        }
        woken
    }

    /// Wakes worker `index` if it is blocked. The *waker* decrements the sleeping count, under
    /// the sleeper's lock, so the count never includes a worker that is already awake and no
    /// two wakers can both count the same wake-up.
    pub(crate) fn wake_specific_thread(&self, index: usize) -> bool {
        let sleep_state = &self.worker_sleep_states[index];
        let mut is_blocked = sync::lock(&sleep_state.is_blocked);
        if *is_blocked {
            *is_blocked = false;
            sleep_state.condvar.notify_one();
            self.counters.sub_sleeping_thread();
            true
        } else {
            false
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests;
