//! Parallel loops: the runtime half of `par_for!`.
//!
//! A loop runs over a [`ParallelSource`]: something that knows its length, can be split in
//! two at an index, and can be iterated sequentially. The runtime splits the source with
//! `join` until pieces are small, then hands each piece to a *leaf* closure that runs a plain
//! sequential `for` loop over it, so LLVM sees an ordinary loop it can vectorise, and the body
//! is not called through a pointer per element.

use std::ops::Range;

use crate::join::with_worker;
use crate::registry::Worker;

/// A splittable sequence for parallel loops.
///
/// Splitting must preserve order: `par_split_at(i)` yields the first `i` items and the rest.
pub trait ParallelSource: Sized + Send + IntoIterator {
    /// The number of items.
    fn par_len(&self) -> usize;

    /// True if there are no items.
    fn par_is_empty(&self) -> bool {
        self.par_len() == 0
    }

    /// Splits into the first `index` items and the rest. `index <= self.par_len()`.
    fn par_split_at(self, index: usize) -> (Self, Self);
}

/// Conversion into a [`ParallelSource`] (implemented for every source, and for `&Vec<T>` and
/// `&mut Vec<T>`).
pub trait IntoParallelSource {
    /// The source this converts into.
    type Source: ParallelSource;

    /// Performs the conversion.
    fn into_par_source(self) -> Self::Source;
}

impl<S: ParallelSource> IntoParallelSource for S {
    type Source = S;

    fn into_par_source(self) -> S {
        self
    }
}

macro_rules! range_sources {
    ($($t:ty),*) => {$(
        impl ParallelSource for Range<$t> {
            fn par_len(&self) -> usize {
                if self.end <= self.start {
                    return 0;
                }
                // The distance fits in the type's unsigned twin; saturate where that exceeds
                // usize (only 128-bit ranges): such a range cannot be iterated to the end anyway.
                let distance = self.end.abs_diff(self.start);
                usize::try_from(distance).unwrap_or(usize::MAX)
            }

            fn par_split_at(self, index: usize) -> (Self, Self) {
                debug_assert!(index <= self.par_len());
                // `index <= len`, so `start + index` is within `start..=end`; go through the
                // unsigned distance to avoid signed overflow.
                let mid = self.start.wrapping_add(index as $t);
                (self.start..mid, mid..self.end)
            }
        }
    )*};
}

range_sources!(
    u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize
);

impl<T: Sync> ParallelSource for &[T] {
    fn par_len(&self) -> usize {
        <[T]>::len(self)
    }

    fn par_split_at(self, index: usize) -> (Self, Self) {
        <[T]>::split_at(self, index)
    }
}

impl<T: Send> ParallelSource for &mut [T] {
    fn par_len(&self) -> usize {
        <[T]>::len(self)
    }

    fn par_split_at(self, index: usize) -> (Self, Self) {
        <[T]>::split_at_mut(self, index)
    }
}

impl<'a, T: Sync> IntoParallelSource for &'a Vec<T> {
    type Source = &'a [T];

    fn into_par_source(self) -> &'a [T] {
        self
    }
}

impl<'a, T: Send> IntoParallelSource for &'a mut Vec<T> {
    type Source = &'a mut [T];

    fn into_par_source(self) -> &'a mut [T] {
        self
    }
}

/// The leaf size when the caller gives none (`grain == 0`): enough pieces for every worker to
/// get several, so an uneven split still balances.
fn default_grain(len: usize, num_threads: usize) -> usize {
    (len / (num_threads * 8)).max(1)
}

/// Runs `leaf` over pieces of `source` in parallel. Each piece has at most `grain` items
/// (`grain == 0`: chosen from the length and the pool size).
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// let total = AtomicU64::new(0);
/// blitz_runtime::for_each_piece(0..1000u64, 0, |piece| {
///     let sum: u64 = piece.sum();
///     total.fetch_add(sum, Ordering::Relaxed);
/// });
/// assert_eq!(total.into_inner(), 499_500);
/// ```
pub fn for_each_piece<S, F>(source: S, grain: usize, leaf: F)
where
    S: IntoParallelSource,
    F: Fn(S::Source) + Sync,
{
    let source = source.into_par_source();
    with_worker(|worker| {
        let grain = match grain {
            0 => default_grain(source.par_len(), worker.num_threads()),
            g => g,
        };
        for_each_split(worker, source, grain, &leaf);
    });
}

fn for_each_split<S, F>(worker: &Worker, source: S, grain: usize, leaf: &F)
where
    S: ParallelSource,
    F: Fn(S) + Sync,
{
    let len = source.par_len();
    if len <= grain {
        leaf(source);
        return;
    }
    let (left, right) = source.par_split_at(len / 2);
    worker.join(
        |w| for_each_split(w, left, grain, leaf),
        |w| for_each_split(w, right, grain, leaf),
    );
}

/// Maps pieces of `source` to values with `leaf`, in parallel, and combines them with the
/// associative `combine`, keeping the pieces' order (so `combine` need not be commutative).
///
/// ```
/// let sum = blitz_runtime::reduce_pieces(0..1000u64, 0, |piece| piece.sum::<u64>(), |a, b| a + b);
/// assert_eq!(sum, 499_500);
/// ```
pub fn reduce_pieces<S, T, F, C>(source: S, grain: usize, leaf: F, combine: C) -> T
where
    S: IntoParallelSource,
    T: Send,
    F: Fn(S::Source) -> T + Sync,
    C: Fn(T, T) -> T + Sync,
{
    let source = source.into_par_source();
    with_worker(|worker| {
        let grain = match grain {
            0 => default_grain(source.par_len(), worker.num_threads()),
            g => g,
        };
        reduce_split(worker, source, grain, &leaf, &combine)
    })
}

fn reduce_split<S, T, F, C>(worker: &Worker, source: S, grain: usize, leaf: &F, combine: &C) -> T
where
    S: ParallelSource,
    T: Send,
    F: Fn(S) -> T + Sync,
    C: Fn(T, T) -> T + Sync,
{
    let len = source.par_len();
    if len <= grain {
        return leaf(source);
    }
    let (left, right) = source.par_split_at(len / 2);
    let (a, b) = worker.join(
        |w| reduce_split(w, left, grain, leaf, combine),
        |w| reduce_split(w, right, grain, leaf, combine),
    );
    combine(a, b)
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::ThreadPoolBuilder;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn ranges_split_in_order() {
        assert_eq!((3..10u8).par_split_at(2), (3..5, 5..10));
        assert_eq!((-5..5i8).par_len(), 10);
        assert_eq!((i64::MIN..i64::MAX).par_len(), usize::MAX);
        #[allow(clippy::reversed_empty_ranges)]
        let reversed = 5..3i32;
        assert_eq!(reversed.par_len(), 0);
        assert_eq!((-128..127i8).par_split_at(200), (-128..72, 72..127));
    }

    #[test]
    fn for_each_visits_every_element_once_on_a_started_pool() {
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let mut v = vec![0u32; 10_001];
        pool.install(|| {
            for_each_piece(&mut v, 7, |piece| {
                for x in piece {
                    *x += 1;
                }
            })
        });
        assert!(v.iter().all(|&x| x == 1));
        let calls = AtomicUsize::new(0);
        pool.install(|| {
            for_each_piece(&v, 0, |piece: &[u32]| {
                calls.fetch_add(piece.len(), Ordering::Relaxed);
            })
        });
        assert_eq!(calls.into_inner(), v.len());
    }

    #[test]
    fn reduce_keeps_order() {
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let joined = pool.install(|| {
            reduce_pieces(
                0..200u32,
                3,
                |piece| piece.map(|i| i.to_string()).collect::<Vec<_>>().join(","),
                |a, b| format!("{a},{b}"),
            )
        });
        let expected: Vec<String> = (0..200u32).map(|i| i.to_string()).collect();
        assert_eq!(joined, expected.join(","));
    }
}
