//! Latches: one-shot "this has happened" signals that a thread can wait on.
//!
//! * [`CoreLatch`]: the 4-state latch of seed 001 (UNSET, SLEEPY, SLEEPING, SET). It is what a
//!   *worker* waits on: the sleep protocol moves it UNSET -> SLEEPY -> SLEEPING before the worker
//!   blocks on its condvar, and `set` reports whether the waiter got as far as SLEEPING, i.e.
//!   whether the setter must wake it. This closes the "tickle, then get sleepy" race: a setter
//!   that runs between the waiter's last check and its block sees SLEEPY or SLEEPING, and the
//!   waiter's CAS to SLEEPING fails if the setter came first.
//! * [`OnceLatch`]: job completion for fork/join. A `CoreLatch` plus who to wake: the worker that
//!   owns the job. The joiner spins through the progressive-sleep rounds (running other jobs if
//!   it finds any) and then blocks on it (ERRATA 5: a join never spins for the whole life of a
//!   long stolen job).
//! * [`CountLatch`]: set when a counter reaches zero (scopes wait on one).
//! * [`ParkLatch`]: for threads outside the pool, which have no sleep state in the registry: a
//!   brief spin, then the thread parks until the setter unparks it.
//!
//! Every `set` takes a raw pointer, not `&self`: the moment a latch is set, the waiter may return
//! and free the frame holding the latch, so `set` must not touch `*this` after the store that
//! publishes SET (and a `&self` argument would assert it stays valid for the whole call).

use std::sync::Arc;

use crate::registry::{Registry, Worker};
use crate::sync::{self, AtomicU8, AtomicUsize, Ordering, Thread};

/// A latch that can be set once.
pub(crate) trait Latch {
    /// Sets the latch, waking whoever waits on it.
    ///
    /// # Safety
    ///
    /// `this` must be valid for the duration of the call up to the point where the latch becomes
    /// observably set; implementations must not touch `*this` after that point.
    unsafe fn set(this: *const Self);
}

/// Latches a worker can wait on with the sleep protocol.
pub(crate) trait AsCoreLatch {
    fn as_core_latch(&self) -> &CoreLatch;
}

/// The waiter is running (or spinning) and will notice SET on its own.
const UNSET: u8 = 0;
/// The waiter is about to sleep: it is doing its final checks.
const SLEEPY: u8 = 1;
/// The waiter is (about to be) blocked on its worker's condvar; the setter must wake it.
const SLEEPING: u8 = 2;
/// The event happened.
const SET: u8 = 3;

/// The 4-state latch (seed 001): UNSET -> SLEEPY -> SLEEPING, any of them -> SET, and
/// SLEEPING/SLEEPY -> UNSET on a wake that found the latch still unset.
#[derive(Debug)]
pub(crate) struct CoreLatch {
    state: AtomicU8,
}

impl CoreLatch {
    pub(crate) fn new() -> Self {
        CoreLatch {
            state: AtomicU8::new(UNSET),
        }
    }

    /// UNSET -> SLEEPY. False if the latch is SET (the waiter must not sleep).
    ///
    /// Relaxed: the state machine needs only the latch's own modification order. All
    /// transitions are RMWs, so each one sees the latest state; data published before a `set`
    /// is acquired by `probe`, not here.
    pub(crate) fn get_sleepy(&self) -> bool {
        self.state
            .compare_exchange(UNSET, SLEEPY, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    }

    /// SLEEPY -> SLEEPING. False if a `set` came in between (the waiter must not block).
    /// Relaxed for the reason given on `get_sleepy`.
    pub(crate) fn fall_asleep(&self) -> bool {
        self.state
            .compare_exchange(SLEEPY, SLEEPING, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    }

    /// SLEEPY or SLEEPING -> UNSET after the waiter woke up (or backed out of sleeping) while
    /// the latch was not set. A SET state is left alone. Relaxed as on `get_sleepy`.
    pub(crate) fn wake_up(&self) {
        let _ = self
            .state
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |state| {
                (state == SLEEPY || state == SLEEPING).then_some(UNSET)
            });
    }

    /// Sets the latch; true if the waiter was SLEEPING and so must be woken by the caller.
    ///
    /// # Safety
    ///
    /// `this` must be valid for the call; it is not touched after the swap.
    pub(crate) unsafe fn set(this: *const Self) -> bool {
        // AcqRel: Release publishes everything the setter did (a job's result) to the waiter's
        // acquire `probe`; Acquire is not needed for data but keeps the RMW ordered after the
        // waiter's transitions, which the swap's place in the modification order already gives.
        // SAFETY: valid per the caller's contract; this is the last access.
        let old = unsafe { (*this).state.swap(SET, Ordering::AcqRel) };
        old == SLEEPING
    }

    /// True once the latch is set.
    #[inline]
    pub(crate) fn probe(&self) -> bool {
        // Acquire: pairs with the release in `set`, so the waiter sees the setter's writes.
        self.state.load(Ordering::Acquire) == SET
    }
}

impl AsCoreLatch for CoreLatch {
    fn as_core_latch(&self) -> &CoreLatch {
        self
    }
}

/// Completion of a stack job, waited on by the worker that forked it.
pub(crate) struct OnceLatch<'r> {
    core: CoreLatch,
    /// The owner's registry. For a job of the same pool, the setter (a worker of that pool)
    /// keeps the registry alive itself; `cross` marks a latch whose setter belongs to another
    /// pool and must hold a reference count while it wakes the owner.
    registry: &'r Arc<Registry>,
    target_worker_index: usize,
    cross: bool,
}

impl<'r> OnceLatch<'r> {
    /// A latch for a job of `owner`'s own pool.
    #[inline]
    pub(crate) fn new(owner: &'r Worker) -> Self {
        OnceLatch {
            core: CoreLatch::new(),
            registry: owner.registry(),
            target_worker_index: owner.index(),
            cross: false,
        }
    }

    /// A latch for a job that `owner` sent to a different pool.
    pub(crate) fn cross(owner: &'r Worker) -> Self {
        OnceLatch {
            cross: true,
            ..OnceLatch::new(owner)
        }
    }
}

impl AsCoreLatch for OnceLatch<'_> {
    fn as_core_latch(&self) -> &CoreLatch {
        &self.core
    }
}

impl Latch for OnceLatch<'_> {
    unsafe fn set(this: *const Self) {
        // Copy out everything needed *before* the latch is set: afterwards the owner may return
        // and free `*this`.
        // SAFETY: `this` is valid until the core latch is set (caller's contract).
        let (cross, target) = unsafe { ((*this).cross, (*this).target_worker_index) };
        let cross_registry;
        let registry: &Registry = if cross {
            // The owner's pool could be dropped the moment the owner wakes; keep it alive.
            // SAFETY: as above.
            cross_registry = Arc::clone(unsafe { (*this).registry });
            &cross_registry
        } else {
            // We are a worker of the same pool, which therefore outlives this call.
            // SAFETY: as above; we deref to the heap-allocated registry, not into `*this`.
            unsafe { (*this).registry }
        };
        // SAFETY: valid until here; not touched afterwards.
        if unsafe { CoreLatch::set(&raw const (*this).core) } {
            registry.notify_worker_latch_is_set(target);
        }
    }
}

/// A latch for threads outside the pool, which have no sleep state in the registry: the waiter
/// spins briefly (a short job from outside, `pool.install(|| small())`, completes within
/// microseconds, and a futex wake-up plus a context switch would cost more than the job), then
/// parks its thread (`std::thread::park`, a futex on Linux).
///
/// The latch belongs to the thread that creates it: only that thread waits on it, and the
/// setter unparks it through the [`Thread`] handle taken at creation.
///
/// States: `UNSET`, `SLEEPING` (the waiter committed to parking), `SET`. The setter CASes
/// UNSET -> SET, its last access to the latch if it succeeds, since a spinning waiter may return
/// and free the latch at once. If the CAS fails, the waiter has committed to parking and returns
/// only once it sees SET: the setter clones the thread handle, stores SET (its last access to
/// the latch) and unparks the clone. A park cannot miss that unpark: an unpark that comes
/// before the park leaves a token that makes the park return at once, and the waiter re-checks
/// the state after every return (so spurious wake-ups are harmless too).
///
/// Compared with a mutex and condvar, the setter makes one futex call and holds no lock while
/// the waiter wakes, so the woken waiter never blocks again on the setter's mutex. The price:
/// an unpark that lands after the waiter has already seen SET and returned leaves a token
/// behind, and the thread's next `park` (ours or its own code's) returns at once; `park` is
/// documented to return spuriously, so every caller of it re-checks its condition.
pub(crate) struct ParkLatch {
    state: AtomicU8,
    /// The waiting thread (the creator).
    thread: Thread,
}

/// How many times an outside waiter checks its latch, with a spin-loop hint in between, in one
/// round: about 1.6 us on current hardware (a spin-loop hint takes some 25 ns).
#[cfg(not(loom))]
const PARK_LATCH_SPINS: u32 = 64;
/// How many rounds the waiter makes before it parks: some 13 us of checks in all, long enough
/// for a short job run by a worker on another CPU to finish while we watch, plus the yields
/// between rounds while the job waits to be taken (see `ParkLatch::wait`).
#[cfg(not(loom))]
const PARK_LATCH_ROUNDS: u32 = 8;
// Under loom, one check is enough to explore "seen while spinning" and "seen after parking";
// more only multiplies the interleavings.
#[cfg(loom)]
const PARK_LATCH_SPINS: u32 = 1;
#[cfg(loom)]
const PARK_LATCH_ROUNDS: u32 = 1;

impl ParkLatch {
    const UNSET: u8 = 0;
    const SLEEPING: u8 = 1;
    const SET: u8 = 2;

    /// A latch that the current thread will wait on.
    pub(crate) fn new() -> Self {
        ParkLatch {
            state: AtomicU8::new(Self::UNSET),
            thread: sync::current_thread(),
        }
    }

    /// True once set. Acquire: pairs with the setter's release, so the job's result (written
    /// before `set`) is visible to the waiter.
    fn is_set(&self) -> bool {
        self.state.load(Ordering::Acquire) == Self::SET
    }

    /// Blocks until the latch is set: for a job that an awake worker will take. Spins in
    /// rounds, yielding between them while `job_taken` says no worker has taken the job yet,
    /// then parks.
    ///
    /// The spin lets a short job (`pool.install(|| small())`, a small tree sum, a 10 us job)
    /// finish while we watch, without a futex wake-up on either side. The yields are for a
    /// worker that shares our CPU, which a spin alone keeps from taking the job; once a worker
    /// has taken it, it runs elsewhere, and a yield would only hand our CPU to an idle
    /// worker's yield loop and back. At most 7 yields: on a machine shared with busy processes
    /// a yield can hand the CPU away for a whole time slice. Measured back to back on 2 workers
    /// (2-vCPU VM, the suite's `round trip` rows): a yield after every round cost a 10 us job
    /// 12.9-14.0 us against 10.6-11.0 us without them, and an outside call summing a 1023-node
    /// tree 4.4-5.7 us against 2.9 us; 512 checks before the first yield cost a trivial call
    /// 15 us whenever the worker shared the caller's CPU.
    pub(crate) fn wait(&self, job_taken: impl Fn() -> bool) {
        for round in 0..PARK_LATCH_ROUNDS {
            for _ in 0..PARK_LATCH_SPINS {
                if self.is_set() {
                    return;
                }
                crate::sync::spin_loop();
            }
            // Not after the last round: we park next anyway.
            if round + 1 < PARK_LATCH_ROUNDS && !job_taken() {
                Self::yield_now();
            }
        }
        self.wait_blocking();
    }

    #[cfg(not(loom))]
    fn yield_now() {
        std::thread::yield_now();
    }

    /// Under loom a yield forces a context switch, which hides interleavings (see the sleep
    /// protocol's `idle_yield`); with one round there is none anyway.
    #[cfg(loom)]
    fn yield_now() {}

    /// Parks until the latch is set. Also what a caller that just woke a worker for its job
    /// does at once: the kernel may run the woken worker on the caller's CPU, where a spin would
    /// keep it waiting.
    pub(crate) fn wait_blocking(&self) {
        debug_assert_eq!(
            sync::current_thread().id(),
            self.thread.id(),
            "a ParkLatch is waited on by the thread that created it"
        );
        // Relaxed on success: committing to SLEEPING publishes nothing (the handle the setter
        // will read was written before the job carrying this latch was published). Acquire on
        // failure: we saw SET and will read the result.
        if self
            .state
            .compare_exchange(
                Self::UNSET,
                Self::SLEEPING,
                Ordering::Relaxed,
                Ordering::Acquire,
            )
            .is_err()
        {
            return;
        }
        while !self.is_set() {
            sync::park();
        }
    }

    #[cfg(all(test, not(loom)))]
    pub(crate) fn probe(&self) -> bool {
        self.is_set()
    }
}

impl Latch for ParkLatch {
    unsafe fn set(this: *const Self) {
        // SAFETY: valid until the waiter returns, which it does only after it sees SET: the CAS
        // or the store below, each our last access to `*this`.
        let latch = unsafe { &*this };
        // Release: the job's result, written before this call, is published with SET.
        if latch
            .state
            .compare_exchange(Self::UNSET, Self::SET, Ordering::Release, Ordering::Relaxed)
            .is_ok()
        {
            return;
        }
        // SLEEPING: the waiter parks until it sees SET, so the latch is still there. Take the
        // handle first: once SET is stored, the waiter may return and free the latch.
        let thread = latch.thread.clone();
        // Release: as for the CAS above.
        latch.state.store(Self::SET, Ordering::Release);
        thread.unpark();
    }
}

/// A borrowed latch, so a stack job can point at a latch that lives elsewhere in the frame.
pub(crate) struct LatchRef<'a, L> {
    inner: &'a L,
}

impl<'a, L> LatchRef<'a, L> {
    pub(crate) fn new(inner: &'a L) -> Self {
        LatchRef { inner }
    }
}

impl<L: Latch> Latch for LatchRef<'_, L> {
    unsafe fn set(this: *const Self) {
        // SAFETY: `this` is valid for the call; we copy the inner pointer out and forward.
        let inner: *const L = unsafe { (*this).inner };
        // SAFETY: the referenced latch is valid for the call by the same contract.
        unsafe { L::set(inner) }
    }
}

/// A latch set when its counter drops to zero. Scopes count their pending tasks with one.
pub(crate) struct CountLatch {
    counter: AtomicUsize,
    kind: CountLatchKind,
}

enum CountLatchKind {
    /// The owner is a worker: it waits with the sleep protocol and must be woken through its
    /// registry.
    Worker {
        latch: CoreLatch,
        registry: Arc<Registry>,
        worker_index: usize,
    },
    /// The owner is outside the pool and blocks on a condvar.
    Blocking { latch: ParkLatch },
}

impl CountLatch {
    /// A latch with a count of 1 (the owner's own reference), waited on by `owner` (a worker)
    /// or, if `None`, by a thread outside the pool.
    pub(crate) fn new(owner: Option<&Worker>) -> Self {
        let kind = match owner {
            Some(owner) => CountLatchKind::Worker {
                latch: CoreLatch::new(),
                registry: Arc::clone(owner.registry()),
                worker_index: owner.index(),
            },
            None => CountLatchKind::Blocking {
                latch: ParkLatch::new(),
            },
        };
        CountLatch {
            counter: AtomicUsize::new(1),
            kind,
        }
    }

    /// Adds one pending task. Must happen before the matching `set`.
    pub(crate) fn increment(&self) {
        // Relaxed: the caller holds a count already, so the counter cannot reach zero
        // concurrently; the task that will call `set` is published by its own queue's ordering.
        let previous = self.counter.fetch_add(1, Ordering::Relaxed);
        debug_assert!(previous != 0, "CountLatch incremented after reaching zero");
    }

    /// Waits until the count reaches zero. `owner` must be the worker given to `new` (or `None`
    /// for a blocking latch).
    pub(crate) fn wait(&self, owner: Option<&Worker>) {
        match (&self.kind, owner) {
            (CountLatchKind::Worker { latch, .. }, Some(owner)) => owner.wait_until(latch),
            // The tasks of a scope may still wait in some queue: keep yielding between rounds.
            (CountLatchKind::Blocking { latch }, _) => latch.wait(|| false),
            (CountLatchKind::Worker { .. }, None) => {
                unreachable!("blitz: a worker's CountLatch waited on outside its worker")
            }
        }
    }

    /// True once the count has reached zero (and the latch was set).
    #[cfg(all(test, not(loom)))]
    pub(crate) fn probe(&self) -> bool {
        match &self.kind {
            CountLatchKind::Worker { latch, .. } => latch.probe(),
            CountLatchKind::Blocking { latch } => latch.probe(),
        }
    }
}

impl Latch for CountLatch {
    unsafe fn set(this: *const Self) {
        // AcqRel: every task's decrement releases its writes; the last one acquires them all
        // (the decrements form a release sequence) and passes them on through the inner latch.
        // SAFETY: valid until the inner latch is set; nobody waits on the inner latch before the
        // count reaches zero, so the frame outlives every earlier decrement too.
        if unsafe { (*this).counter.fetch_sub(1, Ordering::AcqRel) } != 1 {
            return;
        }
        // SAFETY: as above.
        match unsafe { &(*this).kind } {
            CountLatchKind::Worker {
                latch,
                registry,
                worker_index,
            } => {
                // Keep the registry alive and copy the index before `latch` is set.
                let registry = Arc::clone(registry);
                let worker_index = *worker_index;
                // SAFETY: valid until set; not touched afterwards.
                if unsafe { CoreLatch::set(latch) } {
                    registry.notify_worker_latch_is_set(worker_index);
                }
            }
            // SAFETY: valid for the call (see `ParkLatch::set`).
            CountLatchKind::Blocking { latch } => unsafe { ParkLatch::set(latch) },
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn core_latch_transitions() {
        let latch = CoreLatch::new();
        assert!(!latch.probe());
        assert!(!latch.fall_asleep(), "UNSET cannot fall asleep directly");
        assert!(latch.get_sleepy());
        assert!(!latch.get_sleepy(), "already SLEEPY");
        assert!(latch.fall_asleep());
        latch.wake_up();
        assert!(latch.get_sleepy(), "a spurious wake returns to UNSET");
        assert!(latch.fall_asleep());
        // SAFETY: `latch` is alive for the call.
        assert!(
            unsafe { CoreLatch::set(&latch) },
            "setting a SLEEPING latch must wake"
        );
        assert!(latch.probe());
        latch.wake_up();
        assert!(latch.probe(), "wake_up never clears SET");
        assert!(!latch.get_sleepy() && !latch.fall_asleep());
    }

    #[test]
    fn core_latch_set_while_unset_or_sleepy_needs_no_wake() {
        let latch = CoreLatch::new();
        // SAFETY: alive.
        assert!(!unsafe { CoreLatch::set(&latch) });
        let latch = CoreLatch::new();
        assert!(latch.get_sleepy());
        // SAFETY: alive.
        assert!(!unsafe { CoreLatch::set(&latch) });
        assert!(
            !latch.fall_asleep(),
            "a set between SLEEPY and SLEEPING stops the sleep"
        );
    }

    #[test]
    fn park_latch_set_before_wait() {
        let latch = ParkLatch::new();
        // SAFETY: `latch` is a local of this frame, so it outlives the call to `set`.
        unsafe { ParkLatch::set(&latch) };
        latch.wait(|| false);
        latch.wait_blocking();
        assert!(latch.probe());
    }

    /// The setter comes after the waiter committed to blocking (spun out, state SLEEPING): it
    /// must take the slow path and wake it. Both ways of waiting.
    #[test]
    fn park_latch_wakes_a_blocked_thread() {
        for spin_first in [true, false] {
            // The waiter creates the latch (it is the thread that gets unparked) and hands us a
            // reference to set.
            let (tx, rx) = std::sync::mpsc::channel();
            let waiter = std::thread::spawn(move || {
                let latch = Arc::new(ParkLatch::new());
                tx.send(Arc::clone(&latch)).unwrap();
                if spin_first {
                    latch.wait(|| false);
                } else {
                    latch.wait_blocking();
                }
                latch.probe()
            });
            let latch = rx.recv().unwrap();
            while latch.state.load(Ordering::Relaxed) != ParkLatch::SLEEPING {
                std::thread::yield_now();
            }
            // SAFETY: alive (held by the Arc).
            unsafe { ParkLatch::set(&*latch) };
            assert!(waiter.join().unwrap(), "spin_first: {spin_first}");
        }
    }

    #[test]
    fn blocking_count_latch_sets_at_zero() {
        let latch = Arc::new(CountLatch::new(None));
        latch.increment();
        latch.increment();
        let setters: Vec<_> = (0..2)
            .map(|_| {
                let latch = Arc::clone(&latch);
                // SAFETY: alive (held by the Arc) for each call.
                std::thread::spawn(move || unsafe { CountLatch::set(&*latch) })
            })
            .collect();
        for s in setters {
            s.join().unwrap();
        }
        assert!(!latch.probe(), "the owner's own count is still held");
        // SAFETY: alive.
        unsafe { CountLatch::set(&*latch) };
        latch.wait(None);
        assert!(latch.probe());
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::Arc;
    use loom::thread;

    /// A setter racing the 4-state sleep handshake: either the waiter sees SET before it
    /// commits to sleeping, or the setter sees SLEEPING and knows to wake it. Never neither.
    #[test]
    fn core_latch_set_vs_fall_asleep() {
        loom::model(|| {
            let latch = Arc::new(CoreLatch::new());
            let setter = {
                let latch = Arc::clone(&latch);
                // SAFETY: alive (held by the Arc).
                thread::spawn(move || unsafe { CoreLatch::set(&*latch) })
            };
            let committed_to_sleep = latch.get_sleepy() && latch.fall_asleep();
            let setter_must_wake = setter.join().unwrap();
            assert_eq!(committed_to_sleep, setter_must_wake);
            assert!(latch.probe());
        });
    }

    /// Data written before `set` is visible after `probe` returns true.
    #[test]
    fn core_latch_publishes_data() {
        loom::model(|| {
            let latch = Arc::new(CoreLatch::new());
            let data = Arc::new(loom::sync::atomic::AtomicUsize::new(0));
            let setter = {
                let (latch, data) = (Arc::clone(&latch), Arc::clone(&data));
                thread::spawn(move || {
                    data.store(42, Ordering::Relaxed);
                    // SAFETY: alive.
                    unsafe { CoreLatch::set(&*latch) };
                })
            };
            if latch.probe() {
                assert_eq!(data.load(Ordering::Relaxed), 42);
            }
            setter.join().unwrap();
        });
    }

    /// An outside thread's latch: the waiter returns (never hangs) whether the setter comes
    /// while it spins, before it blocks or after, and then sees the data written before `set`.
    #[test]
    fn park_latch_set_vs_wait() {
        loom::model(|| {
            let latch = Arc::new(ParkLatch::new());
            let data = Arc::new(loom::sync::atomic::AtomicUsize::new(0));
            let setter = {
                let (latch, data) = (Arc::clone(&latch), Arc::clone(&data));
                thread::spawn(move || {
                    data.store(42, Ordering::Relaxed);
                    // SAFETY: alive (held by the Arc).
                    unsafe { ParkLatch::set(&*latch) };
                })
            };
            latch.wait(|| true);
            assert_eq!(data.load(Ordering::Relaxed), 42);
            setter.join().unwrap();
        });
    }
}
