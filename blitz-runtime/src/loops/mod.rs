//! Parallel loops: the runtime half of `par_for!`.
//!
//! A loop runs over a [`ParallelSource`]: something that knows its length, can be split in
//! two at an index, and can be iterated sequentially. The runtime splits the source with
//! [`Worker::join`] and hands each piece to a *leaf* closure that runs a plain sequential `for`
//! loop over it, so LLVM sees an ordinary loop it can vectorise, and the body is not called
//! through a pointer per element (nor per piece through a `dyn`: the leaf is generic).
//!
//! * Drivers: [`for_each_piece`], [`reduce_pieces`] (what `par_for!` expands to) and the
//!   [`map_reduce`] convenience; the early-exit searches [`any`], [`all`], [`find_any`] and
//!   [`position_any`], which stop splitting and skip the remaining pieces once the answer is
//!   known.
//! * Sources (`sources.rs`): integer ranges `a..b` and `a..=b` of every primitive integer type,
//!   `&[T]`, `&mut [T]`, `&Vec<T>`, `&mut Vec<T>`, arrays by reference, [`chunks`],
//!   [`chunks_mut`], [`enumerate`] and [`enumerate_mut`].
//! * How finely a loop is cut (`splitter.rs`): rayon-style adaptive splitting. A few pieces per
//!   worker to start with; a piece that is stolen is split again (the thief had nothing else
//!   to do); a piece is never split into halves shorter than the loop's `grain`.
//!
//! # Panics
//!
//! A panic in a leaf propagates out of the driver after every leaf that was already running
//! has finished: `Worker::join` waits for both sides before unwinding. Pieces not yet started
//! when the panic unwinds through their fork are skipped. The pool stays usable.

mod search;
mod sources;
mod splitter;

pub use search::{all, any, find_any, position_any};
pub use sources::{
    ChunksMutSource, ChunksSource, EnumerateMutSource, EnumerateSource, chunks, chunks_mut,
    enumerate, enumerate_mut,
};

use crate::join::with_worker;
use crate::registry::Worker;
use splitter::Splitter;

/// A splittable sequence for parallel loops.
///
/// Splitting must preserve order: `par_split_at(i)` yields the first `i` items and the rest.
///
/// Implement it to make a type usable with [`for_each_piece`], [`reduce_pieces`], the
/// searches and `par_for!`:
///
/// ```
/// use blitz::ParallelSource;
/// use std::ops::Range;
///
/// /// The squares of the numbers in a range.
/// struct Squares(Range<u64>);
///
/// impl IntoIterator for Squares {
///     type Item = u64;
///     type IntoIter = std::iter::Map<Range<u64>, fn(u64) -> u64>;
///     fn into_iter(self) -> Self::IntoIter {
///         self.0.map(|i| i * i)
///     }
/// }
///
/// impl ParallelSource for Squares {
///     fn par_len(&self) -> usize {
///         (self.0.end - self.0.start) as usize
///     }
///     fn par_split_at(self, index: usize) -> (Self, Self) {
///         let mid = self.0.start + index as u64;
///         (Squares(self.0.start..mid), Squares(mid..self.0.end))
///     }
/// }
///
/// let total = blitz::reduce_pieces(
///     Squares(0..1000),
///     0,
///     |piece| piece.into_iter().sum::<u64>(),
///     |a, b| a + b,
/// );
/// assert_eq!(total, (0..1000u64).map(|i| i * i).sum());
/// ```
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

/// Runs `leaf` over pieces of `source` in parallel, each piece a sub-sequence of the source in
/// order; together the pieces cover every item exactly once.
///
/// Pieces are cut by an adaptive splitter (as in rayon): a few pieces per worker to start
/// with, split further when a piece is stolen, and never split into halves shorter than
/// `grain` items (`grain == 0`: no minimum beyond one item). A source too short to
/// split runs as a single piece on the calling thread.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// let total = AtomicU64::new(0);
/// blitz::for_each_piece(0..1000u64, 0, |piece| {
///     let sum: u64 = piece.sum();
///     total.fetch_add(sum, Ordering::Relaxed);
/// });
/// assert_eq!(total.into_inner(), 499_500);
/// ```
///
/// # Panics
///
/// If `leaf` panics, the pieces already running still finish, and then the panic propagates to
/// the caller (the first one in source order if several pieces panic).
pub fn for_each_piece<S, F>(source: S, grain: usize, leaf: F)
where
    S: IntoParallelSource,
    F: Fn(S::Source) + Sync,
{
    let source = source.into_par_source();
    if !Splitter::new(1, grain).may_split(source.par_len()) {
        return leaf(source);
    }
    with_worker(|worker| {
        let splitter = Splitter::new(worker.num_threads(), grain);
        for_each_split(worker, source, splitter, false, &leaf);
    });
}

fn for_each_split<S, F>(worker: &Worker, source: S, mut splitter: Splitter, stolen: bool, leaf: &F)
where
    S: ParallelSource,
    F: Fn(S) + Sync,
{
    let len = source.par_len();
    if !splitter.try_split(len, stolen) {
        return leaf(source);
    }
    let (left, right) = source.par_split_at(len / 2);
    let forker = worker.index();
    worker.join(
        |w| for_each_split(w, left, splitter, false, leaf),
        |w| for_each_split(w, right, splitter, w.index() != forker, leaf),
    );
}

/// Maps pieces of `source` to values with `leaf`, in parallel, and combines them with the
/// associative `combine`, keeping the pieces' order (so `combine` need not be commutative).
///
/// Pieces are cut as in [`for_each_piece`]. `leaf` runs at least once, on an empty piece if the
/// source is empty, so the result of an empty loop is `leaf` of an empty piece.
///
/// ```
/// let sum = blitz::reduce_pieces(0..1000u64, 0, |piece| piece.sum::<u64>(), |a, b| a + b);
/// assert_eq!(sum, 499_500);
/// ```
///
/// # Panics
///
/// As for [`for_each_piece`].
pub fn reduce_pieces<S, T, F, C>(source: S, grain: usize, leaf: F, combine: C) -> T
where
    S: IntoParallelSource,
    T: Send,
    F: Fn(S::Source) -> T + Sync,
    C: Fn(T, T) -> T + Sync,
{
    let source = source.into_par_source();
    if !Splitter::new(1, grain).may_split(source.par_len()) {
        return leaf(source);
    }
    with_worker(|worker| {
        let splitter = Splitter::new(worker.num_threads(), grain);
        reduce_split(worker, source, splitter, false, &leaf, &combine)
    })
}

fn reduce_split<S, T, F, C>(
    worker: &Worker,
    source: S,
    mut splitter: Splitter,
    stolen: bool,
    leaf: &F,
    combine: &C,
) -> T
where
    S: ParallelSource,
    T: Send,
    F: Fn(S) -> T + Sync,
    C: Fn(T, T) -> T + Sync,
{
    let len = source.par_len();
    if !splitter.try_split(len, stolen) {
        return leaf(source);
    }
    let (left, right) = source.par_split_at(len / 2);
    let forker = worker.index();
    let (a, b) = worker.join(
        |w| reduce_split(w, left, splitter, false, leaf, combine),
        |w| reduce_split(w, right, splitter, w.index() != forker, leaf, combine),
    );
    combine(a, b)
}

/// Maps every item with `map` and combines the results with the associative `combine`, in
/// order, starting each piece from `identity()`: a parallel `fold`. `identity()` must be a
/// neutral element of `combine` (it is used once per piece, and is the result of an empty
/// loop).
///
/// ```
/// let sum_of_roots = blitz::map_reduce(
///     0..10_000u32,
///     0,
///     || 0.0,
///     |i| f64::from(i).sqrt(),
///     |a, b| a + b,
/// );
/// let sequential: f64 = (0..10_000u32).map(|i| f64::from(i).sqrt()).sum();
/// assert!((sum_of_roots - sequential).abs() < 1e-6 * sequential);
/// ```
pub fn map_reduce<S, T, ID, M, C>(source: S, grain: usize, identity: ID, map: M, combine: C) -> T
where
    S: IntoParallelSource,
    T: Send,
    ID: Fn() -> T + Sync,
    M: Fn(<S::Source as IntoIterator>::Item) -> T + Sync,
    C: Fn(T, T) -> T + Sync,
{
    reduce_pieces(
        source,
        grain,
        |piece| {
            piece
                .into_iter()
                .fold(identity(), |acc, item| combine(acc, map(item)))
        },
        &combine,
    )
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::ThreadPoolBuilder;
    use std::sync::atomic::{AtomicUsize, Ordering};

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
