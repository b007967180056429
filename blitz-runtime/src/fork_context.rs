//! The context `#[parallel]` code passes down its recursion.
//!
//! A `#[parallel]` fn becomes one copy of its body, generic over a [`ForkContext`], that
//! takes the context as an extra argument. Each fork point asks the context for its
//! [`ForkMode`] and runs one of three arms; the recursive calls in an arm pass on the context
//! that arm holds, so the copy is instantiated four times:
//!
//! - with `&Worker`: forks that may be recorded ([`Worker::fork_mode`] decides per fork);
//! - with [`WorkRequestPoll`]: plain recursion below a fork that could not be recorded, which
//!   polls for an idle peer's request at each fork point and never records (two instances,
//!   see [`ForkContext::Sibling`]);
//! - with [`SerialContext`]: fork-free recursion (one-worker pools, `cutoff`), the sequential
//!   program.
//!
//! The plain and serial contexts answer `fork_mode` with a constant, so after inlining their
//! instances are the sequential recursion plus, for the plain one, a flag load per fork.

use crate::join::{ForkMode, PlainInstance, WorkRequestPoll};
use crate::registry::Worker;

/// A context a `#[parallel]` copy can run under. Not a public API: generated code names it.
#[doc(hidden)]
pub trait ForkContext: Copy {
    /// Whether every fork point runs its branches in order ([`SerialContext`]): a `cutoff`
    /// need not be evaluated then.
    const SERIAL: bool = false;

    /// The context of the plain arm of a fork point under this one: the plain copy's polling
    /// handle, which stays itself down its own plain recursion.
    type Plain: ForkContext;

    /// The context the earlier branches of a fork point in the plain arm run in; the last
    /// branch keeps the arm's own.
    ///
    /// In the plain copy that is the other of its two instances. Its last recursive call stays
    /// a call to itself, which the optimiser turns into a loop where it does so for the
    /// sequential function (`fib(n - 2)`), and the other calls alternate between two copies
    /// of the same code. Both poll at every fork point; on `fib` the pair ran 15-19% faster
    /// than one instance calling itself from both branches, whatever the alignment of the
    /// functions, and the sequential function's speed is what the plain copy is held to.
    type Sibling: ForkContext;

    /// What the next fork point does.
    fn fork_mode(&self) -> ForkMode<'_, Self::Plain>;

    /// What a `fork_join!` in the copy does: with a worker, [`Worker::join`], which makes
    /// its own choice between recording and plain calls; otherwise as for a fork point (the
    /// join of the context polls).
    ///
    /// Its plain arm holds the first instance's handle whatever the context, a concrete type:
    /// the expansion calls its inherent `join`, which a generic `Self::Plain` would not have.
    fn join_mode(&self) -> ForkMode<'_>;

    /// This context for the earlier branches of a plain fork (see [`Self::Sibling`]).
    fn sibling(self) -> Self::Sibling;
}

impl<'w> ForkContext for &'w Worker {
    type Plain = WorkRequestPoll<'w>;
    type Sibling = Self;

    #[inline(always)]
    fn fork_mode(&self) -> ForkMode<'_, Self::Plain> {
        // The handle borrows the worker for `'w`, not only for the borrow of `self`.
        Worker::fork_mode(self)
    }

    #[inline(always)]
    fn join_mode(&self) -> ForkMode<'_> {
        ForkMode::Join(self)
    }

    #[inline(always)]
    fn sibling(self) -> Self {
        self
    }
}

impl<'w, S: PlainInstance> ForkContext for WorkRequestPoll<'w, S> {
    type Plain = Self;
    type Sibling = WorkRequestPoll<'w, S::Other>;

    /// Polls, then stays plain: a subtree that could not record its first fork has nothing
    /// worth recording below it until the worker's older records are taken (see
    /// [`Worker::fork_mode`]), and those are answered from here.
    #[inline(always)]
    fn fork_mode(&self) -> ForkMode<'_, Self> {
        self.poll();
        ForkMode::Plain(*self)
    }

    #[inline(always)]
    fn join_mode(&self) -> ForkMode<'_> {
        ForkMode::Plain(self.retag())
    }

    #[inline(always)]
    fn sibling(self) -> Self::Sibling {
        self.retag()
    }
}

/// The context of fork-free recursion: every fork point runs its branches in order.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, Default)]
pub struct SerialContext;

impl ForkContext for SerialContext {
    const SERIAL: bool = true;
    // Never handed out: a serial fork point answers `Serial`.
    type Plain = Self;
    type Sibling = Self;

    #[inline(always)]
    fn fork_mode(&self) -> ForkMode<'_, Self> {
        ForkMode::Serial
    }

    #[inline(always)]
    fn join_mode(&self) -> ForkMode<'_> {
        ForkMode::Serial
    }

    #[inline(always)]
    fn sibling(self) -> Self {
        self
    }
}

impl SerialContext {
    /// A `fork_join!` under the serial context: both closures in order.
    #[inline(always)]
    pub fn join<A, B, RA, RB>(self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce(Self) -> RA,
        B: FnOnce(Self) -> RB,
    {
        (a(self), b(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ThreadPoolBuilder;

    /// A generic recursion written the way `#[parallel]` expands one: the three instances
    /// agree with the sequential count, on a pool where forks are taken.
    fn count<C: ForkContext>(cx: C, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let (a, b) = match cx.fork_mode() {
            ForkMode::Join(w) => w.join(|w| count(w, depth - 1), |w| count(w, depth - 1)),
            ForkMode::Plain(p) => (count(p.sibling(), depth - 1), count(p, depth - 1)),
            ForkMode::Serial => (
                count(SerialContext, depth - 1),
                count(SerialContext, depth - 1),
            ),
        };
        a + b
    }

    #[test]
    fn every_context_computes_the_same_result() {
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let depth = if cfg!(miri) { 6 } else { 16 };
        assert_eq!(count(SerialContext, depth), 1 << depth);
        assert_eq!(pool.install_with_worker(|w| count(w, depth)), 1 << depth);
        let one = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        assert_eq!(one.install_with_worker(|w| count(w, depth)), 1 << depth);
    }
}
