//! The adaptive splitter: how finely a parallel loop cuts its source.
//!
//! Splitting too little leaves workers idle when pieces take uneven time; splitting too much
//! pays a fork (and a leaf call) per tiny piece. Like rayon's adaptive splitter, Blitz starts
//! with a small *split budget* and only splits further where parallelism is demonstrably used:
//!
//! * The budget starts at `num_threads * INITIAL_SPLITS_PER_THREAD`. Every split halves it for
//!   both halves, so an undisturbed loop is cut into about `2 * budget` pieces (a few per
//!   worker, so an uneven split still balances) and no more.
//! * When a piece is **stolen** (the right half of a fork runs on a worker other than the one
//!   that forked it), the thief evidently had nothing else to do, so the stolen piece gets a
//!   fresh budget of at least `num_threads` splits: it is cut again, and the other workers can
//!   take parts of it.
//! * Independently of the budget, a piece is never split into halves shorter than the minimum
//!   leaf length (`grain`, or 1 when the caller lets the runtime choose), so every leaf that
//!   comes from a split has at least `grain` items; and a piece longer than the maximum leaf
//!   length (a parallel iterator's `with_max_len`) is always split.
//!
//! Theft is detected for free: [`Worker::join`](crate::Worker::join) hands each closure the
//! worker that runs it, and the forking worker's index is known when the closure is built.

/// Splits budgeted per worker at the start of a loop (about twice as many pieces).
const INITIAL_SPLITS_PER_THREAD: usize = 2;

/// The state of the adaptive splitter along one path of the split tree. `Copy`: each half of
/// a split gets its own copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Splitter {
    /// Splits still allowed on this path without further theft.
    splits: usize,
    /// Never split a piece into halves shorter than this (at least 1).
    min_len: usize,
    /// Always split a piece longer than this (if `min_len` allows).
    max_len: usize,
    /// The pool size: the budget a stolen piece gets back.
    num_threads: usize,
    /// Publish the fork of a piece whose second half has at least this many items (at least
    /// 1; `usize::MAX`: never): those halves are known to run long enough that a publication
    /// costs a small part of them (see `engine::LONG_HALF`).
    publish_len: usize,
}

impl Splitter {
    /// A splitter for a pool of `num_threads` workers; `grain` is the minimum leaf length
    /// (`0`: no minimum beyond one item).
    #[cfg(all(test, not(loom)))]
    pub(crate) fn new(num_threads: usize, grain: usize) -> Self {
        Self::with_bounds(num_threads, grain, usize::MAX)
    }

    /// A splitter with leaves of at least `min_len` items (`0`: no minimum beyond one item)
    /// and, where `min_len` allows, at most `max_len`.
    pub(crate) fn with_bounds(num_threads: usize, min_len: usize, max_len: usize) -> Self {
        let num_threads = num_threads.max(1);
        Splitter {
            splits: num_threads.saturating_mul(INITIAL_SPLITS_PER_THREAD),
            min_len: min_len.max(1),
            max_len: max_len.max(1),
            num_threads,
            publish_len: usize::MAX,
        }
    }

    /// This splitter, publishing the forks whose second half has at least `len` items.
    pub(crate) fn publishing_from(self, len: usize) -> Self {
        Splitter {
            publish_len: len.max(1),
            ..self
        }
    }

    /// True if the fork of a piece of `len` items (split in the middle) is to be published at
    /// once rather than kept private until a peer asks.
    pub(crate) fn publishes(&self, len: usize) -> bool {
        len - len / 2 >= self.publish_len
    }

    /// The shortest piece a split may make.
    pub(crate) fn min_len(&self) -> usize {
        self.min_len
    }

    /// True if the source could be split at all (a cheap check before looking up a worker).
    pub(crate) fn may_split(&self, len: usize) -> bool {
        len / 2 >= self.min_len
    }

    /// Decides whether to split a piece of `len` items, updating the budget for the halves.
    /// `stolen`: this piece was just taken by another worker than the one that created it.
    pub(crate) fn try_split(&mut self, len: usize, stolen: bool) -> bool {
        // Both halves (`len / 2` and `len - len / 2`) must have at least `min_len` items.
        if !self.may_split(len) {
            return false;
        }
        if stolen {
            self.splits = (self.splits / 2).max(self.num_threads);
            true
        } else if self.splits > 0 || len > self.max_len {
            self.splits /= 2;
            true
        } else {
            false
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    /// The leaf lengths an undisturbed (never stolen) run produces.
    fn leaves(len: usize, mut splitter: Splitter, out: &mut Vec<usize>) {
        if splitter.try_split(len, false) {
            leaves(len / 2, splitter, out);
            leaves(len - len / 2, splitter, out);
        } else {
            out.push(len);
        }
    }

    #[test]
    fn undisturbed_loop_gets_a_few_pieces_per_worker() {
        let mut out = Vec::new();
        leaves(1_000_000, Splitter::new(2, 0), &mut out);
        // Budget 4: halved to 2, 1, 0 along each path: three levels, 8 pieces.
        assert_eq!(out.len(), 8);
        assert_eq!(out.iter().sum::<usize>(), 1_000_000);
    }

    #[test]
    // Arithmetic alone (no unsafe code, no shared memory): nothing for Miri to check, and its
    // 2,000 splittings took three minutes of each Miri seed.
    #[cfg_attr(miri, ignore)]
    fn never_below_the_minimum_leaf() {
        for grain in [1, 2, 3, 7, 100] {
            for len in 0..400 {
                let mut out = Vec::new();
                // Many threads: a big budget, so only the minimum stops the splitting.
                leaves(len, Splitter::new(1024, grain), &mut out);
                assert_eq!(out.iter().sum::<usize>(), len);
                if out.len() > 1 {
                    assert!(out.iter().all(|&l| l >= grain), "grain {grain}, len {len}");
                }
                // Splitting only stops at the minimum: no leaf could have been split again.
                assert!(out.iter().all(|&l| l / 2 < grain || l < 2), "{out:?}");
            }
        }
    }

    #[test]
    fn pieces_longer_than_the_maximum_are_split() {
        let mut out = Vec::new();
        leaves(1000, Splitter::with_bounds(2, 0, 10), &mut out);
        assert_eq!(out.iter().sum::<usize>(), 1000);
        assert!(out.iter().all(|&l| l <= 10), "{out:?}");
        // The minimum wins over the maximum.
        let mut out = Vec::new();
        leaves(1000, Splitter::with_bounds(2, 100, 10), &mut out);
        assert!(out.iter().all(|&l| (100..200).contains(&l)), "{out:?}");
    }

    #[test]
    fn forks_are_published_from_the_given_half_length() {
        let s = Splitter::new(4, 1);
        assert!(!s.publishes(usize::MAX), "by default nothing is published");
        let s = s.publishing_from(3);
        // The second half of a piece of `len` has `len - len / 2` items.
        assert!(!s.publishes(4));
        assert!(s.publishes(5));
        assert!(s.publishes(1000));
        assert!(Splitter::new(4, 1).publishing_from(0).publishes(1));
    }

    #[test]
    fn theft_refills_the_budget() {
        let mut s = Splitter::new(2, 1);
        for _ in 0..3 {
            assert!(s.try_split(1000, false));
        }
        assert!(!s.try_split(1000, false), "budget spent");
        let mut stolen = s;
        assert!(stolen.try_split(1000, true), "a stolen piece splits again");
        assert_eq!(stolen.splits, 2);
        assert!(!stolen.try_split(1, true), "but never below one item");
    }
}
