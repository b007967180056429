//! The synchronisation primitives the runtime is built on.
//!
//! Everything that takes part in a cross-thread protocol (atomics, fences, the mutexes and
//! condition variables that sleeping workers block on, the parking of outside threads) is
//! imported from here, so that the same code runs on `std` normally and on `loom`'s
//! model-checked versions under `--cfg loom`.

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{
    AtomicIsize, AtomicPtr, AtomicU8, AtomicU64, AtomicUsize, Ordering, fence,
};
#[cfg(loom)]
pub(crate) use loom::sync::{Condvar, Mutex, MutexGuard};

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{
    AtomicIsize, AtomicPtr, AtomicU8, AtomicU64, AtomicUsize, Ordering, fence,
};
#[cfg(not(loom))]
pub(crate) use std::sync::{Condvar, Mutex, MutexGuard};

#[cfg(loom)]
pub(crate) use loom::hint::spin_loop;
#[cfg(not(loom))]
pub(crate) use std::hint::spin_loop;

// Parking, for threads outside the pool that wait on a `ParkLatch`.
#[cfg(loom)]
pub(crate) use loom::thread::{Thread, current as current_thread, park};
#[cfg(not(loom))]
pub(crate) use std::thread::{Thread, current as current_thread, park};

/// Locks `mutex`, ignoring poisoning.
///
/// The runtime's mutexes guard plain flags that are always left consistent (no user code runs
/// while one is held), so a poisoned lock carries no broken invariant.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Blocks on `condvar`, ignoring poisoning (see [`lock`]).
pub(crate) fn wait<'a, T>(condvar: &Condvar, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
    condvar
        .wait(guard)
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
