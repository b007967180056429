//! Parallel sorts of slices: the runtime half of `par_sort` and its relatives.
//!
//! * [`par_sort_by`]: stable, a merge sort (`stable.rs`). Runs are sorted in parallel by the
//!   standard library's stable sort, then merged in parallel through a scratch buffer of the
//!   slice's length; a merge is itself cut in two at a binary-searched split point.
//! * [`par_sort_unstable_by`]: unstable, a parallel pattern-defeating quicksort
//!   (`unstable.rs`): a pivot from a median of three (a ninther on long slices), a sequential
//!   partition, then both sides sorted in parallel. Pieces below a cutoff, and pieces whose
//!   recursion went too deep, go to the standard library's unstable sort.
//! * [`par_sort_by_cached_key`]: the keys are computed once, in parallel, next to their
//!   original positions; the pairs are sorted with the parallel unstable sort (the positions
//!   break ties, so the result is stable), then the permutation is applied in place
//!   (`cached_key.rs`).
//!
//! Before sorting, both comparison sorts look for an input that is already in order (or in
//! reverse order) with a parallel scan that stops early (`presorted.rs`); sorted input then
//! costs one pass of comparisons.
//!
//! A slice of at most a few thousand elements is sorted by the standard library on the
//! calling thread, without touching a pool: a tiny sort called from outside every pool does
//! not pay a round trip to one. So is any slice on a one-worker pool.
//!
//! Forks go through [`Worker::join`] with context passing: the worker is looked up once per
//! sort, and no split allocates.
//!
//! # Panics and inconsistent comparators
//!
//! A comparator (or key function) that panics propagates its panic to the caller once every
//! running piece has finished; the pool survives. Whatever the comparator does (panic, or
//! answer orderings that are no total order), the slice afterwards holds every one of its
//! original elements exactly once: elements are only ever moved, never duplicated or dropped,
//! and each piece of code that moves elements through a scratch buffer keeps a guard that puts
//! them back if the comparator unwinds. An inconsistent comparator leaves the slice in an
//! unspecified order, without a panic, as in rayon: `std`'s sorts (which sort the short pieces
//! here) panic when they find that the order is no total order, and [`std_sort`] catches
//! that one panic and goes on.

mod cached_key;
mod presorted;
mod stable;
mod unstable;

#[cfg(all(test, not(loom)))]
mod tests;

use std::any::Any;
use std::cell::Cell;
use std::cmp::Ordering;
use std::mem;
use std::panic::{self, AssertUnwindSafe};

use crate::join::with_worker;
use crate::registry::Worker;
use presorted::Presorted;

/// Where the sorts stop forking. One set for production, smaller ones in the tests, so that
/// short slices (which Miri can afford) take every parallel path.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cutoffs {
    /// Slices of at most this many elements are sorted sequentially by `std`, with no pool.
    sequential: usize,
    /// Stable sort: runs are never cut shorter than this before `std` sorts them.
    min_run: usize,
    /// Stable sort: merges of at most this many elements are not split further.
    merge_piece: usize,
    /// Unstable sort: pieces of at most this many elements go to `std`'s unstable sort.
    quicksort_leaf: usize,
    /// The presorted scan and the reversal: pieces of at most this many elements are not
    /// split further.
    scan_piece: usize,
    /// Cached keys: pieces of at most this many elements compute their keys without a split.
    key_piece: usize,
}

impl Cutoffs {
    /// The cutoffs of the public functions, from sorts of random `u64` on two workers
    /// (2-vCPU VM, 2026-11-24):
    ///
    /// * `sequential`: with every other cutoff lowered, a parallel sort in a warm pool breaks
    ///   even with `std` at about 1k elements and wins 20-35% at 2k-4k (`std` takes 15-60 us
    ///   there). But waking a sleeping worker, or a round trip from outside the pool, costs
    ///   some 30-150 us on the same machine: below 4k elements the gain is smaller than that.
    /// * `min_run` and `quicksort_leaf`: from 8k to 32k elements, pieces of 4k beat pieces of
    ///   512 (the parallel sorts then take 0.6-0.75 of `std`'s time); at 4M elements the
    ///   choice hardly matters, `std`'s sort being as fast per element as another level of
    ///   partitions or merges.
    /// * `merge_piece`, `scan_piece`, `key_piece`: long enough that a fork (tens of
    ///   nanoseconds when nobody steals it) costs under a percent of a piece's work.
    const DEFAULT: Cutoffs = Cutoffs {
        sequential: 4096,
        min_run: 4096,
        merge_piece: 8192,
        quicksort_leaf: 4096,
        scan_piece: 16 * 1024,
        key_piece: 1024,
    };
}

/// Runs `sort`, one of `std`'s sorts, on `v`, and goes on if it gives up on a comparator that
/// is no total order.
///
/// `std`'s sorts panic on finding such a comparator ("user-provided comparison function does
/// not correctly implement a total order"), with `v` a permutation of its elements. The
/// parallel sorts promise a permutation in an unspecified order instead, as rayon's do, so
/// that one panic is caught (the panic hook has printed its message by then, which tells the
/// user of the bug). Every other panic goes on, and so does the comparator's own, whatever its
/// message (a comparator that runs a `std` sort itself): `sort` calls the user's code through
/// [`UserCode::call`], which tells where a panic came from.
fn std_sort<T>(v: &mut [T], sort: impl FnOnce(&mut [T], &UserCode)) {
    let user = UserCode::default();
    if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(|| sort(v, &user)))
        && (user.unwound() || !is_order_violation(payload.as_ref()))
    {
        panic::resume_unwind(payload);
    }
}

/// Tells whether a panic unwound out of the user's code (a comparator, a key function) or was
/// raised by the sort around it.
#[derive(Default)]
struct UserCode {
    unwound: Cell<bool>,
}

impl UserCode {
    /// Runs `f`, the user's code. Costs nothing unless `f` unwinds: the guard is forgotten on
    /// return and only its drop, on the unwinding path, writes the flag.
    #[inline(always)]
    fn call<R>(&self, f: impl FnOnce() -> R) -> R {
        struct Unwinding<'a>(&'a Cell<bool>);
        impl Drop for Unwinding<'_> {
            fn drop(&mut self) {
                self.0.set(true);
            }
        }
        let unwinding = Unwinding(&self.unwound);
        let result = f();
        mem::forget(unwinding);
        result
    }

    /// True if a panic unwound out of [`call`](Self::call).
    fn unwound(&self) -> bool {
        self.unwound.get()
    }
}

/// Whether a panic's payload is `std`'s report of a comparator that is no total order.
fn is_order_violation(payload: &(dyn Any + Send)) -> bool {
    const MESSAGE: &str =
        "user-provided comparison function does not correctly implement a total order";
    let text = payload.downcast_ref::<&str>().copied();
    let text = text.or_else(|| payload.downcast_ref::<String>().map(String::as_str));
    text == Some(MESSAGE)
}

/// Sorts `v` in parallel, stably (equal elements keep their order), with the comparator
/// `compare`: the runtime half of `par_sort`, `par_sort_by` and `par_sort_by_key`.
///
/// A parallel merge sort. It allocates a scratch buffer of `v.len()` elements, except when
/// `v` is short (a few thousand elements: then `std`'s `sort_by` runs on the calling thread,
/// without a pool) or already sorted or strictly descending (found by a parallel scan, which
/// stops early on unsorted input).
///
/// ```
/// let mut v: Vec<(u32, char)> = (0..10_000).map(|i| (i % 7, 'a')).collect();
/// v[0].1 = 'z';
/// blitz::par_sort_by(&mut v, |a, b| a.0.cmp(&b.0));
/// assert!(v.windows(2).all(|w| w[0].0 <= w[1].0));
/// assert_eq!(v[0], (0, 'z')); // stable: first among the zeros
/// ```
///
/// # Panics
///
/// If `compare` panics, the panic propagates once every running piece has finished; `v` then
/// holds a permutation of its elements. If `compare` is not a total order, `v` ends in an
/// unspecified order, again a permutation, and the sort returns: `std`'s sorts, which sort the
/// pieces, may report such a comparator with a panic, which is caught here (its message is
/// still printed, by the panic hook).
pub fn par_sort_by<T, F>(v: &mut [T], compare: F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    sort_by_with(v, &compare, Cutoffs::DEFAULT);
}

/// [`par_sort_by`] with explicit cutoffs.
fn sort_by_with<T, F>(v: &mut [T], compare: &F, cutoffs: Cutoffs)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    if v.len() <= cutoffs.sequential || mem::size_of::<T>() == 0 {
        return std_sort(v, |v, user| v.sort_by(|a, b| user.call(|| compare(a, b))));
    }
    with_worker(|w| {
        if w.num_threads() == 1 {
            return std_sort(v, |v, user| v.sort_by(|a, b| user.call(|| compare(a, b))));
        }
        let is_less = |a: &T, b: &T| compare(a, b) == Ordering::Less;
        // Only a strictly descending slice may be reversed: equal neighbours would swap.
        match presorted::scan(w, v, &is_less, true, cutoffs) {
            Presorted::Ascending => {}
            Presorted::Descending => presorted::par_reverse(w, v, cutoffs),
            Presorted::Neither => stable::merge_sort(w, v, compare, cutoffs),
        }
    });
}

/// Sorts `v` in parallel, without keeping the order of equal elements, with the comparator
/// `compare`: the runtime half of `par_sort_unstable`, `par_sort_unstable_by` and
/// `par_sort_unstable_by_key`.
///
/// A parallel pattern-defeating quicksort; it sorts in place and allocates nothing. A short
/// `v` (a few thousand elements) is sorted by `std`'s `sort_unstable_by` on the calling
/// thread, without a pool; an already sorted or descending `v` costs one parallel scan (and a
/// parallel reversal).
///
/// ```
/// let mut v: Vec<u64> = (0..100_000).map(|i| (i * 7919) % 100_003).collect();
/// blitz::par_sort_unstable_by(&mut v, |a, b| b.cmp(a));
/// assert!(v.windows(2).all(|w| w[0] >= w[1]));
/// ```
///
/// # Panics
///
/// As for [`par_sort_by`]: a panic of `compare` propagates, and `v` then holds a permutation of
/// its elements; an inconsistent `compare` leaves a permutation too, and the sort returns.
pub fn par_sort_unstable_by<T, F>(v: &mut [T], compare: F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    sort_unstable_by_with(v, &compare, Cutoffs::DEFAULT);
}

/// [`par_sort_unstable_by`] with explicit cutoffs.
fn sort_unstable_by_with<T, F>(v: &mut [T], compare: &F, cutoffs: Cutoffs)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    if v.len() <= cutoffs.sequential || mem::size_of::<T>() == 0 {
        return std_sort(v, |v, user| {
            v.sort_unstable_by(|a, b| user.call(|| compare(a, b)))
        });
    }
    with_worker(|w| sort_unstable_in(w, v, compare, cutoffs));
}

/// The parallel part of [`par_sort_unstable_by`], on a worker (also the sort of the keys of
/// [`par_sort_by_cached_key`]).
fn sort_unstable_in<T, F>(w: &Worker, v: &mut [T], compare: &F, cutoffs: Cutoffs)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    if w.num_threads() == 1 {
        return std_sort(v, |v, user| {
            v.sort_unstable_by(|a, b| user.call(|| compare(a, b)))
        });
    }
    let is_less = |a: &T, b: &T| compare(a, b) == Ordering::Less;
    // Unstable: a descending run with equal neighbours may be reversed too.
    match presorted::scan(w, v, &is_less, false, cutoffs) {
        Presorted::Ascending => {}
        Presorted::Descending => presorted::par_reverse(w, v, cutoffs),
        Presorted::Neither => unstable::quicksort(w, v, compare, &is_less, cutoffs),
    }
}

/// Sorts `v` in parallel by the key `f` computes, calling `f` once per element (in parallel),
/// stably: the runtime half of `par_sort_by_cached_key`.
///
/// Worth it when `f` is expensive; it allocates a vector of `(key, index)` pairs of `v`'s
/// length. A short `v` (a few thousand elements) goes to `std`'s `sort_by_cached_key` on the
/// calling thread, without a pool.
///
/// ```
/// let mut v: Vec<i64> = (-5_000..5_000).rev().collect();
/// blitz::par_sort_by_cached_key(&mut v, |x| x.to_string());
/// let mut expected = v.clone();
/// expected.sort_by_key(|x| x.to_string());
/// assert_eq!(v, expected);
/// ```
///
/// # Panics
///
/// If `f` or the keys' `Ord` panics, the panic propagates once every running piece has
/// finished; `v` is then unchanged, and every key computed so far has been dropped. An
/// inconsistent `Ord` leaves `v` in an unspecified order (a permutation).
pub fn par_sort_by_cached_key<T, K, F>(v: &mut [T], f: F)
where
    T: Send,
    K: Ord + Send,
    F: Fn(&T) -> K + Sync,
{
    cached_key::sort_by_cached_key(v, &f, Cutoffs::DEFAULT);
}

use crate::raw::SendPtr;
