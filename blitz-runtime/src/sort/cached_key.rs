//! Sorting by a key computed once per element.
//!
//! As `std`'s `sort_by_cached_key`: the keys go into a vector of `(key, original index)`
//! pairs, which is sorted (unstably: the indices are distinct, so no two pairs are equal and
//! the result is the stable order), and the permutation it describes is then applied to the
//! slice in place. Here the keys are computed in parallel, and the pairs are sorted with the
//! parallel unstable sort; the permutation is applied sequentially (a chain of swaps).
//!
//! The pairs are written straight into the vector's spare capacity, each piece into its own
//! part. A piece returns a [`WrittenRun`] token for the pairs it wrote, which drops them if the
//! token is dropped: when a key function panics in one piece, `join` drops the other piece's
//! token, so every key computed so far is dropped exactly once and none leaks. Adjacent
//! tokens are fused on the way back up; the last one hands its pairs to the vector.
//!
//! Indices are `u32` when the slice is short enough (as in `std`: a smaller pair sorts
//! faster), `usize` otherwise.

use super::{Cutoffs, std_sort};
use crate::join::with_worker;
use crate::raw::{SendPtr, WrittenRun};
use crate::registry::Worker;

/// [`par_sort_by_cached_key`](super::par_sort_by_cached_key) with explicit cutoffs.
pub(super) fn sort_by_cached_key<T, K, F>(v: &mut [T], f: &F, cutoffs: Cutoffs)
where
    T: Send,
    K: Ord + Send,
    F: Fn(&T) -> K + Sync,
{
    if v.len() <= cutoffs.sequential {
        return std_sort(v, |v, user| v.sort_by_cached_key(|x| user.call(|| f(x))));
    }
    with_worker(|w| {
        if w.num_threads() == 1 {
            std_sort(v, |v, user| v.sort_by_cached_key(|x| user.call(|| f(x))))
        } else if u32::try_from(v.len()).is_ok() {
            sort_with_index::<u32, _, _, _>(w, v, f, cutoffs)
        } else {
            sort_with_index::<usize, _, _, _>(w, v, f, cutoffs)
        }
    });
}

/// An index type for the pairs: every index of the slice must fit.
trait Index: Copy + Ord + Send {
    /// `index` as `Self`; the caller has checked that every index of the slice fits.
    fn from_usize(index: usize) -> Self;
    fn to_usize(self) -> usize;
}

impl Index for u32 {
    #[inline(always)]
    fn from_usize(index: usize) -> Self {
        debug_assert!(u32::try_from(index).is_ok());
        index as u32
    }
    #[inline(always)]
    fn to_usize(self) -> usize {
        self as usize
    }
}

impl Index for usize {
    #[inline(always)]
    fn from_usize(index: usize) -> Self {
        index
    }
    #[inline(always)]
    fn to_usize(self) -> usize {
        self
    }
}

fn sort_with_index<I, T, K, F>(w: &Worker, v: &mut [T], f: &F, cutoffs: Cutoffs)
where
    I: Index,
    T: Send,
    K: Ord + Send,
    F: Fn(&T) -> K + Sync,
{
    let len = v.len();
    let mut pairs: Vec<(K, I)> = Vec::with_capacity(len);
    let out = SendPtr(pairs.as_mut_ptr());
    // SAFETY: `out` has room for `len` pairs, all free, and nobody else writes there.
    let filled = unsafe { fill_keys(w, v, 0, out, f, cutoffs.key_piece) };
    debug_assert_eq!(filled.len(), len);
    // The vector takes the pairs over from the token.
    let filled = filled.release();
    // SAFETY: the token covered the first `len` slots: each holds an initialised pair.
    unsafe { pairs.set_len(filled) };

    super::sort_unstable_in(w, &mut pairs, &|a: &(K, I), b: &(K, I)| a.cmp(b), cutoffs);

    // `pairs[i].1` is the original index of the element that belongs at `i`. Positions before
    // `i` are final; an original index below `i` has been swapped away, to the position its
    // pair records by then (updated below), possibly more than once: follow the chain.
    for i in 0..len {
        let mut index = pairs[i].1.to_usize();
        while index < i {
            index = pairs[index].1.to_usize();
        }
        pairs[i].1 = I::from_usize(index);
        v.swap(i, index);
    }
}

/// Writes the pair `(f(&v[i]), offset + i)` for every `i` to `out.add(offset + i)`, in
/// parallel pieces of at most `piece` elements, and returns the token for them.
///
/// # Safety
///
/// `out` is valid for writes of `offset + v.len()` pairs, the slots `offset..offset + v.len()`
/// are free (they hold nothing that needs dropping), and nobody else accesses them during the
/// call. On return they are initialised and owned by the returned token; if `f` panics, every
/// pair written by the call has been dropped before the panic leaves it.
unsafe fn fill_keys<I, T, K, F>(
    w: &Worker,
    v: &mut [T],
    offset: usize,
    out: SendPtr<(K, I)>,
    f: &F,
    piece: usize,
) -> WrittenRun<(K, I)>
where
    I: Index,
    T: Send,
    K: Send,
    F: Fn(&T) -> K + Sync,
{
    if v.len() <= piece {
        // SAFETY: `offset` is within the allocation `out` points into (the caller's promise).
        let mut filled = WrittenRun::new(unsafe { out.add(offset) }.get());
        for (i, x) in v.iter().enumerate() {
            // If `f` panics, `filled` drops the `i` pairs written so far.
            let key = f(x);
            // SAFETY: slot `offset + i` is free and ours (the caller's promise).
            unsafe { filled.push((key, I::from_usize(offset + i))) };
        }
        return filled;
    }
    let mid = v.len() / 2;
    let (left, right) = v.split_at_mut(mid);
    // If one side panics, `join` drops the other side's token, and with it its pairs.
    let (a, b) = w.join(
        // SAFETY: the halves write disjoint slots, `offset..offset + mid` and the rest.
        |w| unsafe { fill_keys(w, left, offset, out, f, piece) },
        |w| unsafe { fill_keys(w, right, offset + mid, out, f, piece) },
    );
    a.append(b)
}
