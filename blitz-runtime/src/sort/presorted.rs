//! Finding input that is already sorted, or sorted backwards, before sorting it.
//!
//! Sorted input is common (a sort of a sort's output, data appended in order), and a merge
//! sort or a quicksort would pay its full price on it. One parallel pass of comparisons finds
//! it: the slice is cut into pieces, each piece checks its neighbouring pairs, and the pairs
//! that straddle two pieces are checked where the pieces are joined again (after both halves
//! finished, so no element is ever seen by two workers at once: `T` need only be `Send`).
//!
//! On unsorted input the scan must cost next to nothing. A sequential probe of the first
//! [`PROBE`] pairs settles most such inputs without a fork; past it, a piece that finds both
//! directions broken raises a shared flag, and every other piece stops at its next look at it.

use std::sync::atomic::{AtomicBool, Ordering};

use super::Cutoffs;
use crate::registry::Worker;

/// Pairs the sequential probe checks before the parallel scan.
const PROBE: usize = 32;

/// How many pairs a piece checks between two looks at the shared flag.
const CHECK_INTERVAL: usize = 1024;

/// What the scan found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Presorted {
    /// Every element is not less than its predecessor: nothing to do.
    Ascending,
    /// The slice descends (strictly, if the scan was strict): reversing it sorts it.
    Descending,
    /// Neither: sort it.
    Neither,
}

/// Which orders a stretch of the slice is still consistent with.
#[derive(Clone, Copy)]
struct Dirs {
    ascending: bool,
    descending: bool,
}

impl Dirs {
    const BOTH: Dirs = Dirs {
        ascending: true,
        descending: true,
    };

    const NONE: Dirs = Dirs {
        ascending: false,
        descending: false,
    };

    fn and(self, other: Dirs) -> Dirs {
        Dirs {
            ascending: self.ascending && other.ascending,
            descending: self.descending && other.descending,
        }
    }

    fn any(self) -> bool {
        self.ascending || self.descending
    }
}

/// The pair checks, shared by every piece of one scan.
struct Scan<'a, F> {
    is_less: &'a F,
    /// Descending means strictly descending (`b < a` for each pair `a, b`); otherwise
    /// `!(a < b)` suffices.
    strict: bool,
    /// Raised (relaxed: a hint, see below) by a piece that found both directions broken.
    neither: AtomicBool,
}

impl<F> Scan<'_, F> {
    /// The directions the neighbours `a, b` (in this order) are consistent with.
    #[inline(always)]
    fn pair<T>(&self, a: &T, b: &T) -> Dirs
    where
        F: Fn(&T, &T) -> bool,
    {
        let b_less = (self.is_less)(b, a);
        let descending = if self.strict {
            b_less
        } else {
            !(self.is_less)(a, b)
        };
        Dirs {
            ascending: !b_less,
            descending,
        }
    }

    /// The directions of the pairs inside `v`, stopping early once none is left (here, or in
    /// another piece).
    fn piece<T>(&self, v: &[T]) -> Dirs
    where
        F: Fn(&T, &T) -> bool,
    {
        let is_less = self.is_less;
        let mut dirs = Dirs::BOTH;
        let mut start = 0;
        while start + 1 < v.len() {
            // Relaxed: a hint; the answer travels back through `join`'s return values. A stale
            // `false` costs one more block of comparisons.
            if self.neither.load(Ordering::Relaxed) {
                return Dirs::NONE;
            }
            let end = (start + CHECK_INTERVAL).min(v.len() - 1);
            let block = &v[start..=end];
            // Once one direction is out, a block checks only the other, one comparison a pair.
            dirs = match (dirs.ascending, dirs.descending) {
                (true, false) => Dirs {
                    ascending: every_pair(block, |a, b| !is_less(b, a)),
                    descending: false,
                },
                (false, true) if self.strict => Dirs {
                    ascending: false,
                    descending: every_pair(block, |a, b| is_less(b, a)),
                },
                (false, true) => Dirs {
                    ascending: false,
                    descending: every_pair(block, |a, b| !is_less(a, b)),
                },
                _ => (block.windows(2)).fold(dirs, |dirs, p| dirs.and(self.pair(&p[0], &p[1]))),
            };
            if !dirs.any() {
                self.neither.store(true, Ordering::Relaxed);
                return dirs;
            }
            start = end;
        }
        dirs
    }
}

/// Whether `holds(a, b)` for every pair of neighbours `a, b` of `block`. Without an early
/// exit (the caller bounds the block): a loop the compiler can unroll and vectorise.
#[inline(always)]
fn every_pair<T>(block: &[T], holds: impl Fn(&T, &T) -> bool) -> bool {
    let mut all = true;
    for i in 1..block.len() {
        all &= holds(&block[i - 1], &block[i]);
    }
    all
}

/// Scans `v` (longer than one element) for an order it already has. `strict`: a descending
/// slice must descend strictly to count (what a stable sort may reverse).
pub(super) fn scan<T, F>(
    w: &Worker,
    v: &mut [T],
    is_less: &F,
    strict: bool,
    cutoffs: Cutoffs,
) -> Presorted
where
    T: Send,
    F: Fn(&T, &T) -> bool + Sync,
{
    let scan = Scan {
        is_less,
        strict,
        neither: AtomicBool::new(false),
    };
    let probe = v.len().min(PROBE + 1);
    let mut dirs = Dirs::BOTH;
    for pair in v[..probe].windows(2) {
        dirs = dirs.and(scan.pair(&pair[0], &pair[1]));
    }
    if dirs.any() {
        dirs = dirs.and(scan_split(
            w,
            &mut v[probe - 1..],
            &scan,
            cutoffs.scan_piece,
        ));
    }
    match dirs {
        Dirs {
            ascending: true, ..
        } => Presorted::Ascending,
        Dirs {
            descending: true, ..
        } => Presorted::Descending,
        _ => Presorted::Neither,
    }
}

fn scan_split<T, F>(w: &Worker, v: &mut [T], scan: &Scan<'_, F>, piece: usize) -> Dirs
where
    T: Send,
    F: Fn(&T, &T) -> bool + Sync,
{
    // Relaxed: a hint, as in `Scan::piece`.
    if scan.neither.load(Ordering::Relaxed) {
        return Dirs::NONE;
    }
    if v.len() <= piece {
        return scan.piece(v);
    }
    let mid = v.len() / 2;
    let (left, right) = v.split_at_mut(mid);
    let (a, b) = w.join(
        |w| scan_split(w, left, scan, piece),
        |w| scan_split(w, right, scan, piece),
    );
    let dirs = a.and(b);
    if !dirs.any() {
        return dirs;
    }
    // The pair across the cut, now that both halves are back with this worker.
    dirs.and(scan.pair(&v[mid - 1], &v[mid]))
}

/// Reverses `v` in parallel: the two ends swap element by element, in pieces.
pub(super) fn par_reverse<T: Send>(w: &Worker, v: &mut [T], cutoffs: Cutoffs) {
    let half = v.len() / 2;
    let (front, rest) = v.split_at_mut(half);
    let back_start = rest.len() - half;
    swap_mirrored(w, front, &mut rest[back_start..], cutoffs.scan_piece);
}

/// Swaps `front[i]` with `back[len - 1 - i]` for every `i`; `front` and `back` have one length.
fn swap_mirrored<T: Send>(w: &Worker, front: &mut [T], back: &mut [T], piece: usize) {
    debug_assert_eq!(front.len(), back.len());
    let len = front.len();
    if len <= piece {
        for (a, b) in front.iter_mut().zip(back.iter_mut().rev()) {
            std::mem::swap(a, b);
        }
        return;
    }
    let mid = len / 2;
    let (front_a, front_b) = front.split_at_mut(mid);
    // The first `mid` of `front` mirror the last `mid` of `back`.
    let (back_b, back_a) = back.split_at_mut(len - mid);
    w.join(
        |w| swap_mirrored(w, front_a, back_a, piece),
        |w| swap_mirrored(w, front_b, back_b, piece),
    );
}
