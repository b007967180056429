//! The unstable sort: a parallel pattern-defeating quicksort.
//!
//! Each step picks a pivot (the median of three samples, or on longer pieces the median of
//! three such medians, Tukey's ninther), partitions the piece around it sequentially, and
//! sorts the two sides in parallel with [`Worker::join`]. Pieces of at most
//! `Cutoffs::quicksort_leaf` elements go to `std`'s `sort_unstable_by`, whose sequential
//! quicksort is faster at that size than one more round of forks.
//!
//! From pdqsort, as in `std` and rayon:
//! * the right side of a partition knows its *predecessor*, the pivot, which no element of
//!   it is less than. When a later pivot equals its predecessor, the piece has many equal
//!   elements: it is partitioned into "equal to the pivot" (done, in place) and "greater", so
//!   inputs with few distinct values take linear time per distinct value;
//! * a partition that leaves fewer than an eighth of the piece on one side is *bad*: it
//!   spends one unit of a budget of about `log2(len)`, and a few elements are swapped to break
//!   the pattern that defeated the pivot choice. With the budget spent, the piece goes to
//!   `std`'s sort, whose own fallback (heapsort) bounds it to `O(n log n)`: so does the whole
//!   sort, whatever the input.
//!
//! Sorted and reversed inputs never get here (see `presorted.rs`).
//!
//! # Panics
//!
//! The partition only swaps elements, after the comparison that decides the swap: whenever a
//! comparator call unwinds, the slice is a permutation of its elements. `std`'s sort, the pivot
//! choice and the pattern breaking are panic-safe on their own (the last two only compare or
//! only swap). So the unstable sort needs no guard, and its only `unsafe` is the partition's
//! unchecked indexing.

use std::cmp::Ordering;
use std::ptr;

use super::Cutoffs;
use crate::registry::Worker;

/// From this length on, the pivot is a ninther (pdqsort's choice).
const NINTHER_FROM: usize = 50;

/// The shortest piece that is partitioned rather than sorted by `std`: enough for three
/// distinct samples.
const MIN_PARTITIONED: usize = 8;

/// Sorts `v`, which is longer than `cutoffs.quicksort_leaf`, without keeping equal elements
/// in order.
pub(super) fn quicksort<T, F, L>(
    w: &Worker,
    v: &mut [T],
    compare: &F,
    is_less: &L,
    cutoffs: Cutoffs,
) where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
    L: Fn(&T, &T) -> bool + Sync,
{
    // Bad partitions allowed before a piece goes to `std`: about log2 of the length.
    let limit = usize::BITS - v.len().leading_zeros();
    let sort = Quicksort {
        compare,
        is_less,
        leaf: cutoffs.quicksort_leaf.max(MIN_PARTITIONED),
    };
    sort.recurse(w, v, false, limit);
}

/// What every piece of one sort shares.
struct Quicksort<'a, F, L> {
    compare: &'a F,
    is_less: &'a L,
    /// Pieces of at most this many elements (at least [`MIN_PARTITIONED`]) go to `std`.
    leaf: usize,
}

/// What one partition step did (indices into the piece, predecessor included).
enum Step {
    /// Everything before the index equals the predecessor and is in place; the element at the
    /// index is the predecessor of the rest.
    SkipEqual(usize),
    /// The pivot is at the index: smaller elements before it, the others after.
    Split(usize),
}

impl<F, L> Quicksort<'_, F, L> {
    /// Sorts `v`, or, if `has_pred`, `v[1..]`: then `v[0]` is the piece's predecessor, an
    /// element that (for a consistent comparator) no element of `v[1..]` is less than.
    fn recurse<T>(&self, w: &Worker, mut v: &mut [T], mut has_pred: bool, mut limit: u32)
    where
        T: Send,
        F: Fn(&T, &T) -> Ordering + Sync,
        L: Fn(&T, &T) -> bool + Sync,
    {
        loop {
            let start = usize::from(has_pred);
            // Short, or its pivots were defeated too often: `std`'s sort is `O(n log n)`.
            if v.len() - start <= self.leaf || limit == 0 {
                super::std_sort(&mut v[start..], |v, user| {
                    v.sort_unstable_by(|a, b| user.call(|| (self.compare)(a, b)))
                });
                return;
            }
            match self.partition_step(v, has_pred, &mut limit) {
                Step::SkipEqual(next) => {
                    v = &mut std::mem::take(&mut v)[next..];
                    has_pred = true;
                }
                Step::Split(pivot) => {
                    // The right side starts with the pivot, its predecessor.
                    let (left, right) = v.split_at_mut(pivot);
                    w.join(
                        |w| self.recurse(w, left, has_pred, limit),
                        |w| self.recurse(w, right, true, limit),
                    );
                    return;
                }
            }
        }
    }

    /// Partitions the piece `v` (see [`recurse`](Self::recurse)) around a pivot, counting a
    /// bad partition against `limit`.
    fn partition_step<T>(&self, v: &mut [T], has_pred: bool, limit: &mut u32) -> Step
    where
        L: Fn(&T, &T) -> bool,
    {
        let is_less = self.is_less;
        let start = usize::from(has_pred);
        let (pred, rest) = v.split_at_mut(start);
        let len = rest.len();
        let pivot = choose_pivot(rest, is_less);
        rest.swap(0, pivot);
        let (pivot, others) = rest.split_at_mut(1);
        let pivot = &pivot[0];
        if pred.first().is_some_and(|pred| !is_less(pred, pivot)) {
            // The pivot equals the predecessor, so the elements not greater than the pivot
            // equal it: move them to the front, where they are in their final place, and go
            // on with the greater ones. The last equal one, `rest[equal]`, is their
            // predecessor.
            let equal = partition(others, |x| !is_less(pivot, x));
            return Step::SkipEqual(start + equal);
        }
        let mid = partition(others, |x| is_less(x, pivot));
        // The pivot goes between the sides: `rest[..mid] < rest[mid] <= rest[mid + 1..]`.
        rest.swap(0, mid);
        if mid.min(len - 1 - mid) < len / 8 {
            *limit -= 1;
            break_patterns(&mut rest[..mid]);
            break_patterns(&mut rest[mid + 1..]);
        }
        Step::Split(start + mid)
    }
}

/// Moves the elements of `v` for which `goes_left` holds to its front, keeping no order, and
/// returns how many there are.
///
/// Branchless Lomuto: every element is swapped with the first slot after the left side so
/// far, and the left side grows by one when the element belongs there. Panic-safe by
/// construction: the only writes are whole swaps, each after the comparison that decided it.
fn partition<T>(v: &mut [T], mut goes_left: impl FnMut(&T) -> bool) -> usize {
    let base = v.as_mut_ptr();
    let mut left = 0;
    for right in 0..v.len() {
        // SAFETY: `left <= right < v.len()`, so both slots are in bounds and hold elements of
        // `v` (the reference ends before the swap); `ptr::swap` allows `left == right`.
        unsafe {
            let r = base.add(right);
            let goes = goes_left(&*r);
            ptr::swap(base.add(left), r);
            left += usize::from(goes);
        }
    }
    left
}

/// The index of a good pivot for `v` (longer than [`MIN_PARTITIONED`]): the median of three
/// samples at the quarters, each itself the median of its neighbourhood if `v` is long.
fn choose_pivot<T>(v: &[T], is_less: &impl Fn(&T, &T) -> bool) -> usize {
    let len = v.len();
    debug_assert!(len > MIN_PARTITIONED);
    let quarter = len / 4;
    let (a, b, c) = (quarter, 2 * quarter, 3 * quarter);
    if len < NINTHER_FROM {
        return median_of_three(v, a, b, c, is_less);
    }
    let around = |i: usize| median_of_three(v, i - 1, i, i + 1, is_less);
    median_of_three(v, around(a), around(b), around(c), is_less)
}

/// Which of `a`, `b`, `c` indexes the median of the three elements (one of the three, whatever
/// the comparator answers).
fn median_of_three<T>(
    v: &[T],
    mut a: usize,
    mut b: usize,
    c: usize,
    is_less: &impl Fn(&T, &T) -> bool,
) -> usize {
    if is_less(&v[b], &v[a]) {
        std::mem::swap(&mut a, &mut b);
    }
    // Now `v[a] <= v[b]`: the median is `b`, unless `c` is below it.
    if is_less(&v[c], &v[b]) {
        // Then it is the larger of `a` and `c`.
        b = if is_less(&v[c], &v[a]) { a } else { c };
    }
    b
}

/// Swaps three elements near the middle of `v` with pseudo-random others: after a bad
/// partition, so that the next pivot choice does not fall for the same pattern.
fn break_patterns<T>(v: &mut [T]) {
    let len = v.len();
    if len < 8 {
        return;
    }
    // xorshift32 seeded by the length: deterministic, which is all pattern breaking needs.
    let mut random = len as u32 | 1;
    let mut next = || {
        random ^= random << 13;
        random ^= random >> 17;
        random ^= random << 5;
        random as usize
    };
    let modulus = len.next_power_of_two();
    let pos = len / 4 * 2;
    for i in 0..3 {
        let mut other = next() & (modulus - 1);
        if other >= len {
            other -= len;
        }
        v.swap(pos - 1 + i, other);
    }
}
