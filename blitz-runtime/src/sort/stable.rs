//! The stable sort: a parallel merge sort through a scratch buffer.
//!
//! # Shape
//!
//! The slice is cut in halves `levels` times (see [`levels`]); the pieces at the bottom, the
//! *runs*, are sorted by `std`'s stable sort, in parallel. Then the runs are merged pairwise,
//! back up the tree, each pair as soon as both of its runs are sorted.
//!
//! The merges ping-pong between the slice and a buffer of the same length, so that each level
//! moves every element once: the merge at the top writes into the slice, the two below it into
//! the buffer, the four below those into the slice again, and so on. A run whose merge reads it
//! from the buffer is sorted in the slice and then copied over; `levels` is even where the
//! run length allows it, so that this copy is not needed.
//!
//! A long merge is itself split: the middle element of the longer input is the split point, a
//! binary search finds where it falls in the other input, and the two halves of both inputs
//! merge independently into the two corresponding parts of the destination. Elements of the
//! left input that equal elements of the right input stay in front of them (stability): the
//! search puts equal right elements after a left split point and equal left elements before a
//! right one.
//!
//! # Ownership and panics
//!
//! Elements are moved with bitwise copies, so at any moment each element is owned by exactly
//! one of its two possible slots (in the slice or in the buffer); the other holds a stale copy
//! that is never read as a value again. Each function that moves elements documents where they
//! are on entry and where they are on exit, and *exit* includes unwinding from a panic of the
//! comparator: guards ([`CopyOnDrop`], [`Merge`]) finish the moves when they are dropped, so an
//! unwinding comparator leaves every element in the slice, exactly once. The buffer's `Vec`
//! never has a length, so it never drops an element.
//!
//! Only moves and comparisons happen here, and an inconsistent comparator cannot make a move
//! go out of bounds: the split points are `partition_point`s, always within their input, and
//! the sequential merge stops at the end of either input.

use std::cmp::Ordering;
use std::{mem, ptr, slice};

use super::{Cutoffs, SendPtr};
use crate::registry::Worker;

/// Runs to cut per worker: enough that stealing can even out the workers' shares (sorting
/// equal runs takes about equal time, so a few per worker suffice).
const RUNS_PER_THREAD: usize = 4;

/// Sorts `v` stably with a scratch buffer of `v.len()` elements.
pub(super) fn merge_sort<T, F>(w: &Worker, v: &mut [T], compare: &F, cutoffs: Cutoffs)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let len = v.len();
    let levels = levels(len, w.num_threads(), cutoffs.min_run);
    let mut buf: Vec<T> = Vec::with_capacity(len);
    let v = SendPtr(v.as_mut_ptr());
    let buf = SendPtr(buf.as_mut_ptr());
    let sort = Sort {
        compare,
        merge_piece: cutoffs.merge_piece,
    };
    // SAFETY: `v` and `buf` are two allocations of `len` elements, ours alone while the call
    // lasts (the slice is borrowed mutably, the buffer is local); `v` holds the elements and
    // `buf` none. The call leaves the elements in `v` (`into_buf == false`), also if it
    // unwinds, so the slice is whole afterwards and the empty `Vec` frees the buffer only.
    unsafe { sort.runs(w, v, buf, len, levels, false) }
}

/// How many times to halve a slice of `len` elements: about [`RUNS_PER_THREAD`] runs per
/// worker, no run shorter than `min_run` (about), and an even number where that allows it.
pub(super) fn levels(len: usize, num_threads: usize, min_run: usize) -> u32 {
    let runs = num_threads.saturating_mul(RUNS_PER_THREAD);
    let mut levels = runs.next_power_of_two().trailing_zeros();
    while levels > 0 && len >> levels < min_run {
        levels -= 1;
    }
    // One level more rather than fewer: it leaves the runs in the slice, saving their copy.
    if levels % 2 == 1 && len >> (levels + 1) >= min_run {
        levels += 1;
    }
    levels
}

/// What every piece of one sort shares.
struct Sort<'a, F> {
    compare: &'a F,
    /// Merges of at most this many elements run sequentially.
    merge_piece: usize,
}

impl<F> Sort<'_, F> {
    #[inline(always)]
    fn is_less<T>(&self, a: &T, b: &T) -> bool
    where
        F: Fn(&T, &T) -> Ordering,
    {
        (self.compare)(a, b) == Ordering::Less
    }

    /// Sorts the `len` elements at `v` stably, leaving them at `v` if `!into_buf` and at `buf`
    /// otherwise; `levels` more halvings before the runs are sorted by `std`.
    ///
    /// # Safety
    ///
    /// `v` and `buf` are each valid for reads and writes of `len` elements, do not overlap,
    /// and nobody else accesses those elements during the call. On entry the `len` elements
    /// are at `v`, and `buf` holds none of them. On exit (returning, or unwinding from a panic
    /// of the comparator), the elements are at `buf` if `into_buf` and at `v` otherwise, each
    /// exactly once, sorted if the call returned and the comparator is a total order.
    unsafe fn runs<T>(
        &self,
        w: &Worker,
        v: SendPtr<T>,
        buf: SendPtr<T>,
        len: usize,
        levels: u32,
        into_buf: bool,
    ) where
        T: Send,
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        if levels == 0 || len < 2 {
            // The move to the buffer happens when the guard drops, so also when the sort
            // unwinds (leaving a permutation at `v`).
            // SAFETY: `v` holds the elements and `buf` is free, as the caller promises; after
            // the copy `buf` owns them and `v` holds stale copies.
            let _to_buf = into_buf.then(|| unsafe { CopyOnDrop::new(v.get(), buf.get(), len) });
            // SAFETY: the `len` elements at `v` are initialised and ours alone (the caller's
            // promise), and the reference ends before the guard copies them.
            let run = unsafe { slice::from_raw_parts_mut(v.get(), len) };
            super::std_sort(run, |run, user| {
                run.sort_by(|a, b| user.call(|| (self.compare)(a, b)))
            });
            return;
        }
        let mid = len / 2;
        // The halves sort into the opposite array: into `src`, from where this call merges.
        let (src, dest) = if into_buf { (v, buf) } else { (buf, v) };
        // If a half panics, the other still finishes (`join` waits for both), so both halves'
        // elements are at `src` when the panic reaches here: this guard moves all of them to
        // `dest`. It stays armed over the order check below, which calls the comparator too.
        // SAFETY: the guard only copies if a panic leaves this frame before `forget` below,
        // and then the elements are at `src` (the halves' contract) and `dest` is free.
        let guard = unsafe { CopyOnDrop::new(src.get(), dest.get(), len) };
        w.join(
            // SAFETY: the halves get disjoint parts of `v` and of `buf` (`..mid`, `mid..`),
            // within bounds, with their elements at `v`, as this call got them.
            move |w| unsafe { self.runs(w, v, buf, mid, levels - 1, !into_buf) },
            // SAFETY: as above, the second half.
            move |w| unsafe {
                self.runs(
                    w,
                    v.add(mid),
                    buf.add(mid),
                    len - mid,
                    levels - 1,
                    !into_buf,
                )
            },
        );
        // SAFETY: `mid - 1` and `mid` are within the `len` elements now at `src`.
        let in_order = unsafe { !self.is_less(&*src.get().add(mid), &*src.get().add(mid - 1)) };
        mem::forget(guard);
        if in_order {
            // The halves need no merge (sorted input is caught earlier; this is a sorted
            // stretch inside unsorted input).
            // SAFETY: `src` holds the `len` elements, `dest` is free and does not overlap it.
            unsafe { ptr::copy_nonoverlapping(src.get(), dest.get(), len) };
            return;
        }
        // SAFETY: the halves are consecutive at `src`, `dest` is free for all `len` of them,
        // and the merge leaves them all at `dest`, also when it unwinds.
        unsafe { self.par_merge(w, src, mid, src.add(mid), len - mid, dest) }
    }

    /// Merges the sorted runs at `left` (`left_len` elements) and `right` (`right_len`) into
    /// `dest`, stably (left before right among equals), splitting long merges in parallel.
    ///
    /// # Safety
    ///
    /// Both runs hold initialised elements owned by the caller, `dest` is valid for writes of
    /// `left_len + right_len` elements and holds none of them, the three do not overlap, and
    /// nobody else accesses them during the call. On exit (also unwinding), every element of
    /// both runs has been moved to `dest`, exactly once; the runs then hold stale copies.
    unsafe fn par_merge<T>(
        &self,
        w: &Worker,
        left: SendPtr<T>,
        left_len: usize,
        right: SendPtr<T>,
        right_len: usize,
        dest: SendPtr<T>,
    ) where
        T: Send,
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        if left_len + right_len <= self.merge_piece || left_len == 0 || right_len == 0 {
            // SAFETY: the caller's promise, passed on.
            return unsafe { self.merge(left.get(), left_len, right.get(), right_len, dest.get()) };
        }
        // The binary search calls the comparator: if it panics, the guard moves both runs to
        // `dest` whole (left first), the destination this call promised.
        // SAFETY: as the caller promises, the runs hold the elements and `dest` is free for
        // all of them; after the split points are found no element has moved yet.
        let guard = unsafe { Merge::new(left.get(), left_len, right.get(), right_len, dest.get()) };
        // `left_len / 2 < left_len` and `right_len / 2 < right_len`, so the split elements
        // are within their runs; the runs are of initialised elements.
        let (left_mid, right_mid) = if left_len >= right_len {
            let left_mid = left_len / 2;
            // SAFETY: `left_mid < left_len`, an initialised element of the left run.
            let pivot = unsafe { &*left.get().add(left_mid) };
            // SAFETY: the right run holds `right_len` initialised elements.
            let right_run = unsafe { slice::from_raw_parts(right.get(), right_len) };
            // Right elements equal to the pivot go after it.
            (
                left_mid,
                right_run.partition_point(|x| self.is_less(x, pivot)),
            )
        } else {
            let right_mid = right_len / 2;
            // SAFETY: `right_mid < right_len`, an initialised element of the right run.
            let pivot = unsafe { &*right.get().add(right_mid) };
            // SAFETY: the left run holds `left_len` initialised elements.
            let left_run = unsafe { slice::from_raw_parts(left.get(), left_len) };
            // Left elements equal to the pivot go before it.
            (
                left_run.partition_point(|x| !self.is_less(pivot, x)),
                right_mid,
            )
        };
        mem::forget(guard);
        w.join(
            // SAFETY: `left_mid <= left_len` and `right_mid <= right_len` (split points within
            // their runs), so the two merges get disjoint parts of both runs, and disjoint
            // parts of `dest` of exactly their total lengths.
            move |w| unsafe { self.par_merge(w, left, left_mid, right, right_mid, dest) },
            // SAFETY: as above, the parts after the split points.
            move |w| unsafe {
                self.par_merge(
                    w,
                    left.add(left_mid),
                    left_len - left_mid,
                    right.add(right_mid),
                    right_len - right_mid,
                    dest.add(left_mid + right_mid),
                )
            },
        );
    }

    /// The sequential merge of [`par_merge`](Self::par_merge).
    ///
    /// # Safety
    ///
    /// As for [`par_merge`](Self::par_merge).
    unsafe fn merge<T>(
        &self,
        left: *mut T,
        left_len: usize,
        right: *mut T,
        right_len: usize,
        dest: *mut T,
    ) where
        F: Fn(&T, &T) -> Ordering,
    {
        // SAFETY: the caller's promise; the state's `Drop` moves whatever the loop did not,
        // which is all that remains when the loop ends or the comparator panics.
        let mut m = unsafe { Merge::new(left, left_len, right, right_len, dest) };
        while m.left < m.left_end && m.right < m.right_end {
            // SAFETY: both positions are before their run's end, so they hold unmoved elements.
            let take_right = unsafe { self.is_less(&*m.right, &*m.left) };
            let from = if take_right { m.right } else { m.left };
            // SAFETY: `from` holds an unmoved element and `m.out` is the next free slot of
            // `dest` (the slots used so far equal the elements taken so far); the state moves
            // past both before the next comparison, so the element is owned once.
            unsafe {
                ptr::copy_nonoverlapping(from, m.out, 1);
                m.out = m.out.add(1);
                m.right = m.right.add(usize::from(take_right));
                m.left = m.left.add(usize::from(!take_right));
            }
        }
        // `m` drops here and moves the rest of the input that is not exhausted.
    }
}

/// Copies `len` elements from `src` to `dest` when dropped: moves a run to where its caller
/// expects it, also when a panic unwinds.
struct CopyOnDrop<T> {
    src: *const T,
    dest: *mut T,
    len: usize,
}

impl<T> CopyOnDrop<T> {
    /// # Safety
    ///
    /// Whenever the guard is dropped (not forgotten), `src` must hold `len` initialised
    /// elements that the caller owns, `dest` must be valid for writing them, and the two must
    /// not overlap. After the drop, `dest` owns the elements and `src` holds stale copies.
    unsafe fn new(src: *const T, dest: *mut T, len: usize) -> Self {
        CopyOnDrop { src, dest, len }
    }
}

impl<T> Drop for CopyOnDrop<T> {
    fn drop(&mut self) {
        // SAFETY: promised by the guard's creator (see `CopyOnDrop::new`).
        unsafe { ptr::copy_nonoverlapping(self.src, self.dest, self.len) };
    }
}

/// The state of a sequential merge, and its guard: the unmoved parts of both runs
/// (`left..left_end`, `right..right_end`) and the next free slot of the destination. When
/// dropped (at the end of the merge, or when the comparator unwinds), it moves what is left
/// of the left run and then of the right run to the destination: at the end, one of them is
/// empty and the other is the sorted tail; after a panic, the destination is still filled with
/// every element exactly once.
struct Merge<T> {
    left: *const T,
    left_end: *const T,
    right: *const T,
    right_end: *const T,
    out: *mut T,
}

impl<T> Merge<T> {
    /// # Safety
    ///
    /// Whenever the state is dropped (not forgotten), `left..left_end` and
    /// `right..right_end` must hold initialised elements that the caller owns and `out` must
    /// be valid for writing all of them, not overlapping either run. At creation, the runs are
    /// `left_len` elements at `left` and `right_len` at `right`.
    unsafe fn new(
        left: *mut T,
        left_len: usize,
        right: *mut T,
        right_len: usize,
        out: *mut T,
    ) -> Self {
        Merge {
            left,
            // SAFETY: one past the end of each run, as the caller promises the runs exist.
            left_end: unsafe { left.add(left_len) },
            right,
            right_end: unsafe { right.add(right_len) },
            out,
        }
    }
}

impl<T> Drop for Merge<T> {
    fn drop(&mut self) {
        // SAFETY: the creator's promise (see `Merge::new`): the remaining elements of both
        // runs fit at `out`, which overlaps neither. The pointers of each run are ordered, so
        // the offsets are not negative.
        unsafe {
            let left_rest = self.left_end.offset_from(self.left) as usize;
            let right_rest = self.right_end.offset_from(self.right) as usize;
            ptr::copy_nonoverlapping(self.left, self.out, left_rest);
            ptr::copy_nonoverlapping(self.right, self.out.add(left_rest), right_rest);
        }
    }
}
