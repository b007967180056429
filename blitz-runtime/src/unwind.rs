//! Panic plumbing.

/// Aborts the process if dropped during unwinding.
///
/// Put one on the stack across code that must not unwind (for example between running a job
/// and setting its latch: an unwind there would leave the joiner waiting forever) and
/// `mem::forget` it once past that code.
pub(crate) struct AbortIfPanic;

impl Drop for AbortIfPanic {
    fn drop(&mut self) {
        eprintln!("blitz: unexpected panic inside the runtime; aborting");
        std::process::abort();
    }
}
