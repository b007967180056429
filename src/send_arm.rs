//! The `Send` checks of `fork_join!`'s arms, one arm at a time, so that an error names the arm.
//!
//! Called outside every pool, `fork_join!` hands all its arms to a pool worker
//! (`with_worker`), so every arm's closure and result must be `Send`. Checked only where
//! `with_worker` requires it, a failure is reported on the whole macro and says nothing of
//! which arm holds the `Rc`. The expansion instead passes each arm through [`SendArm::new`],
//! written where the arm is, and hands the workers only these wrappers and [`Sent`] results,
//! which are `Send` whatever the arms: a failure is reported once, on its arm.

/// An arm of `fork_join!` whose closure and result were checked to be `Send`.
pub struct SendArm<F>(F);

// SAFETY: `SendArm::new`, the only way to build one (the field is private), requires
// `F: Send`.
unsafe impl<F> Send for SendArm<F> {}

impl<F> SendArm<F> {
    /// Wraps `arm` after checking that it and its result are `Send`.
    #[inline(always)]
    pub fn new<R>(arm: F) -> Self
    where
        F: FnOnce() -> R + Send,
        R: Send,
    {
        SendArm(arm)
    }

    /// Runs the arm. (No `Send` bounds here: `new` checked them, and repeated here they would
    /// report a failure a second time, on the whole macro.)
    #[inline(always)]
    pub fn run<R>(self) -> Sent<R>
    where
        F: FnOnce() -> R,
    {
        Sent((self.0)())
    }
}

/// The result of a [`SendArm`], on its way back to the thread that called `fork_join!`.
pub struct Sent<R>(R);

// SAFETY: `SendArm::run`, the only way to build one (the field is private), wraps the result
// of an arm whose result type `SendArm::new` required to be `Send`.
unsafe impl<R> Send for Sent<R> {}

impl<R> Sent<R> {
    /// The arm's result.
    #[inline(always)]
    pub fn into_inner(self) -> R {
        self.0
    }
}
