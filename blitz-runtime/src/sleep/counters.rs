//! The packed counters of the sleep protocol: one `u64` holding the sleeping and inactive thread
//! counts and the jobs event counter, so that they are read and updated together (see the
//! parent module for the protocol they serve).

use crate::sync::{AtomicU64, Ordering};

const THREADS_BITS: u32 = 16;
const SLEEPING_SHIFT: u32 = 0;
const INACTIVE_SHIFT: u32 = THREADS_BITS;
const JEC_SHIFT: u32 = 2 * THREADS_BITS;
const THREADS_MASK: u64 = (1 << THREADS_BITS) - 1;
const ONE_SLEEPING: u64 = 1 << SLEEPING_SHIFT;
const ONE_INACTIVE: u64 = 1 << INACTIVE_SHIFT;
const ONE_JEC: u64 = 1 << JEC_SHIFT;

/// The largest number of workers the 16-bit thread counters can hold.
pub(crate) const MAX_THREADS: usize = THREADS_MASK as usize;

/// A value of the jobs event counter (the upper 32 bits of the counters).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct JobsEventCounter(pub(super) u32);

impl JobsEventCounter {
    /// A placeholder snapshot, overwritten when the worker announces it is sleepy.
    pub(super) const INVALID: JobsEventCounter = JobsEventCounter(u32::MAX);

    /// Even: a worker announced sleepiness and no job has been posted since.
    pub(crate) fn is_sleepy(self) -> bool {
        self.0 & 1 == 0
    }

    /// Odd: jobs were posted since the last announcement.
    pub(crate) fn is_active(self) -> bool {
        !self.is_sleepy()
    }
}

/// A snapshot of the packed counters.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Counters(pub(super) u64);

impl Counters {
    pub(crate) fn sleeping_threads(self) -> usize {
        ((self.0 >> SLEEPING_SHIFT) & THREADS_MASK) as usize
    }

    pub(crate) fn inactive_threads(self) -> usize {
        ((self.0 >> INACTIVE_SHIFT) & THREADS_MASK) as usize
    }

    /// Inactive workers that are still awake (searching, yielding): they will find new work
    /// without being woken.
    pub(crate) fn awake_but_idle_threads(self) -> usize {
        self.inactive_threads()
            .saturating_sub(self.sleeping_threads())
    }

    pub(crate) fn jobs_counter(self) -> JobsEventCounter {
        JobsEventCounter((self.0 >> JEC_SHIFT) as u32)
    }
}

/// The packed `sleeping | inactive | JEC` word.
///
/// Every access is SeqCst: the protocol's argument needs all counter updates (and the fences
/// around injection) in one total order, and none of these operations is on a per-fork path.
pub(crate) struct AtomicCounters {
    pub(super) value: AtomicU64,
}

impl AtomicCounters {
    pub(super) fn new() -> Self {
        AtomicCounters {
            value: AtomicU64::new(0),
        }
    }

    pub(crate) fn load(&self) -> Counters {
        Counters(self.value.load(Ordering::SeqCst))
    }

    /// Increments the JEC if `increment_when` holds for it; returns the counters as they are
    /// after the call (incremented or not).
    pub(super) fn increment_jobs_event_counter_if(
        &self,
        increment_when: impl Fn(JobsEventCounter) -> bool,
    ) -> Counters {
        let mut old = self.load();
        loop {
            if !increment_when(old.jobs_counter()) {
                return old;
            }
            // Wrapping: the JEC lives in the top bits, so it wraps modulo 2^32 without touching
            // the thread counts, and 2^32 is even, so parity survives the wrap.
            let new = Counters(old.0.wrapping_add(ONE_JEC));
            match self
                .value
                .compare_exchange(old.0, new.0, Ordering::SeqCst, Ordering::SeqCst)
            {
                Ok(_) => return new,
                Err(actual) => old = Counters(actual),
            }
        }
    }

    pub(super) fn add_inactive_thread(&self) {
        self.value.fetch_add(ONE_INACTIVE, Ordering::SeqCst);
    }

    /// A worker stops looking for work. Returns the counters before.
    pub(super) fn sub_inactive_thread(&self) -> Counters {
        let old = Counters(self.value.fetch_sub(ONE_INACTIVE, Ordering::SeqCst));
        debug_assert!(
            old.inactive_threads() > 0,
            "sub_inactive_thread underflow: {old:?}"
        );
        old
    }

    /// Registers one more sleeper if the counters still equal `old` (in particular, if the JEC
    /// has not moved since `old` was read).
    pub(super) fn try_add_sleeping_thread(&self, old: Counters) -> bool {
        debug_assert!(old.sleeping_threads() < MAX_THREADS);
        self.value
            .compare_exchange(
                old.0,
                old.0 + ONE_SLEEPING,
                Ordering::SeqCst,
                Ordering::SeqCst,
            )
            .is_ok()
    }

    pub(super) fn sub_sleeping_thread(&self) {
        let old = Counters(self.value.fetch_sub(ONE_SLEEPING, Ordering::SeqCst));
        debug_assert!(
            old.sleeping_threads() > 0,
            "sub_sleeping_thread underflow: {old:?}"
        );
    }
}
