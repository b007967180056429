//! Panic plumbing: abort guards that name their cause, and discarding values whose `Drop` may
//! panic.
//!
//! # Invariants
//!
//! * No bookkeeping of the runtime (a latch decrement, a scope's wait, a worker's loop) may be
//!   skipped by an unwind: code that must not unwind runs under an [`AbortOnUnwind`], and
//!   values owned by user code that the runtime throws away (a losing panic payload, the other
//!   side's result of a join that re-throws) go through [`drop_quietly`].
//! * Every abort prints what went wrong first, in the words of its cause, not of its place.

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};

/// Aborts the process, naming `cause`, if dropped during unwinding.
///
/// Put one on the stack across code that must not unwind (for example between running a job
/// and setting its latch: an unwind there would leave the joiner waiting forever) and
/// [`disarm`](Self::disarm) it once past that code.
pub(crate) struct AbortOnUnwind {
    cause: &'static str,
}

impl AbortOnUnwind {
    /// A guard whose abort message says `cause` (a clause: "the pool's panic handler
    /// panicked").
    #[inline]
    pub(crate) const fn new(cause: &'static str) -> Self {
        AbortOnUnwind { cause }
    }

    /// Past the code that must not unwind: the guard is no longer needed.
    #[inline]
    pub(crate) fn disarm(self) {
        std::mem::forget(self);
    }
}

impl Drop for AbortOnUnwind {
    fn drop(&mut self) {
        abort(self.cause);
    }
}

/// Prints `blitz: {cause}; aborting` and aborts the process.
#[cold]
pub(crate) fn abort(cause: &str) -> ! {
    eprintln!("blitz: {cause}; aborting");
    std::process::abort();
}

/// Drops `value` (typically a panic payload nobody will see, or a result discarded because the
/// other side of a join panicked) without letting its `Drop` unwind into the caller.
///
/// If the `Drop` panics, that panic's own payload is dropped the same way; if that panics too,
/// there is no sane way left to get rid of it and the process aborts, saying so. (Leaking it
/// would hide a bug in user code; unwinding would skip the caller's bookkeeping.)
pub(crate) fn drop_quietly<T>(value: T) {
    if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(move || drop(value))) {
        drop_payload_of_panicking_drop(payload);
    }
}

#[cold]
#[inline(never)]
fn drop_payload_of_panicking_drop(payload: Box<dyn Any + Send>) {
    if let Err(again) = panic::catch_unwind(AssertUnwindSafe(move || drop(payload))) {
        // Not dropped: this is the third value in a row whose drop panics.
        std::mem::forget(again);
        abort(
            "a discarded value's Drop panicked, and so did the Drop of that panic's payload \
             (a panic payload that panics when dropped)",
        );
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    struct CountedBomb<'a>(&'a AtomicUsize);

    impl Drop for CountedBomb<'_> {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::Relaxed);
            panic!("drop");
        }
    }

    #[test]
    fn drop_quietly_runs_drop_and_swallows_its_panic() {
        let drops = AtomicUsize::new(0);
        drop_quietly(CountedBomb(&drops));
        drop_quietly(CountedBomb(&drops));
        assert_eq!(drops.into_inner(), 2);
    }
}
