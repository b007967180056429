//! Parallel loops: the runtime half of `par_for!`.
//!
//! A loop runs over a [`ParallelSource`]: something that knows its length, can be split in
//! two at an index, and can be iterated sequentially. The runtime splits the source with
//! [`Worker::join`](crate::Worker::join) and hands each piece to a *leaf* closure that runs a
//! plain sequential `for` loop over it, so LLVM sees an ordinary loop it can vectorise, and the
//! body is not called through a pointer per element (nor per piece through a `dyn`: the leaf
//! is generic).
//!
//! * Drivers: [`for_each_piece`], [`reduce_pieces`] (what `par_for!` expands to) and the
//!   [`map_reduce`] convenience; the early-exit searches [`any`], [`all`], [`find_any`] and
//!   [`position_any`], which stop splitting and skip the remaining pieces once the answer is
//!   known.
//! * Sources (`sources.rs`): integer ranges `a..b` and `a..=b` of every primitive integer type,
//!   `&[T]`, `&mut [T]`, `&Vec<T>`, `&mut Vec<T>`, arrays by reference, [`chunks`],
//!   [`chunks_mut`], [`enumerate`] and [`enumerate_mut`].
//! * How a loop runs (`engine.rs`, shared by every loop and parallel iterator): the caller
//!   runs a timed prefix itself, so a short loop never touches the pool, then the rest is
//!   split and forked with `Worker::join`.
//! * How finely a loop is cut (`splitter.rs`): rayon-style adaptive splitting. A few pieces per
//!   worker to start with; a piece that is stolen is split again (the thief had nothing else
//!   to do); a piece is never split into halves shorter than the loop's `grain`.
//!
//! # Panics
//!
//! A panic in a leaf propagates out of the driver after every leaf that was already running
//! has finished: `Worker::join` waits for both sides before unwinding. Pieces not yet started
//! when the panic unwinds through their fork are skipped. The pool stays usable.

mod blocks;
pub(crate) mod engine;
mod history;
pub(crate) mod search;
pub(crate) mod sources;
mod splitter;

pub(crate) use engine::{NeverStop, Stop, drive};

pub use search::{all, any, find_any, position_any};
pub use sources::{
    ChunksMutSource, ChunksSource, EnumerateMutSource, EnumerateSource, chunks, chunks_mut,
    enumerate, enumerate_mut,
};

/// A splittable sequence for parallel loops.
///
/// Splitting must preserve order: `par_split_at(i)` yields the first `i` items and the rest.
/// The two halves' `par_len` must be `i` and the rest: the runtime checks it at every split
/// and panics if not (the offsets it hands to leaves, which in-place collection writes at,
/// are computed from those lengths). Iterating a piece should yield `par_len` items; in-place
/// collection panics on more.
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
// The same advice as on `IntoParallelSource`: which of the two a type that is neither is
// reported against depends on where the compiler meets it first.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a parallel source",
    label = "not a range, a slice or a parallel source",
    note = "`par_for!` loops over an integer range (`0..n`), `&v` or `&mut v` of a slice, `Vec` \
            or array, or a chain of iterator methods that parallel iterators have too, \
            starting at a collection or a range (`v.iter()`, `v.into_iter()` for a `Vec`'s \
            items by value, `m.values()`, `s.split(',')`, `(0..n).rev()`); for another \
            iterator, collect it into a `Vec` first",
    note = "a slice, `Vec` or array is a source only if its items can be shared between \
            threads for `&v` (`Sync`), or sent for `&mut v` (`Send`): not items such as \
            `Rc<T>` or `Cell<T>`"
)]
pub trait ParallelSource: Sized + Send + IntoIterator {
    /// The number of items.
    fn par_len(&self) -> usize;

    /// True if there are no items.
    fn par_is_empty(&self) -> bool {
        self.par_len() == 0
    }

    /// Splits into the first `index` items and the rest. `index <= self.par_len()`.
    fn par_split_at(self, index: usize) -> (Self, Self);

    /// The shortest piece worth running on its own: the runtime does not split the source
    /// into pieces shorter than this (unless it is shorter itself). Default 1.
    fn par_min_len(&self) -> usize {
        1
    }

    /// The longest piece the runtime should run as one: longer pieces are split, as far as
    /// [`par_min_len`](Self::par_min_len) allows. Default: no limit.
    fn par_max_len(&self) -> usize {
        usize::MAX
    }

    /// Splits into halves, for a source whose `par_len` saturates at `usize::MAX` (it has
    /// more items): the runtime halves such a source with this, where it would split at
    /// `par_len() / 2` items from the start, which for a `u128` range of 10^27 items leaves
    /// nearly all of them on one side at every level. The default is that split; integer
    /// ranges split at their true middle, and adaptors forward to their base.
    #[doc(hidden)]
    fn par_split_half(self) -> (Self, Self) {
        let mid = self.par_len() / 2;
        self.par_split_at(mid)
    }

    /// For a source that runs in blocks, one after another (`by_uniform_blocks`,
    /// `by_exponential_blocks`): the length of its first block, and the factor by which each
    /// next block is longer. `None` (the default): the source runs as one. Adaptors forward
    /// their base's.
    #[doc(hidden)]
    fn par_blocks(&self) -> Option<(usize, usize)> {
        None
    }
}

/// Conversion into a [`ParallelSource`] (implemented for every source, and for `&Vec<T>` and
/// `&mut Vec<T>`).
///
/// ```
/// use blitz::{IntoParallelSource, ParallelSource};
/// let v = vec![1, 2, 3, 4, 5];
/// let (front, back) = (&v).into_par_source().par_split_at(2);
/// assert_eq!(front.into_iter().sum::<i32>(), 3);
/// assert_eq!(back.par_len(), 3);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a parallel source",
    label = "not a range, a slice or a parallel source",
    note = "`par_for!` loops over an integer range (`0..n`), `&v` or `&mut v` of a slice, `Vec` \
            or array, or a chain of iterator methods that parallel iterators have too, \
            starting at a collection or a range (`v.iter()`, `v.into_iter()` for a `Vec`'s \
            items by value, `m.values()`, `s.split(',')`, `(0..n).rev()`); for another \
            iterator, collect it into a `Vec` first",
    note = "a slice, `Vec` or array is a source only if its items can be shared between \
            threads for `&v` (`Sync`), or sent for `&mut v` (`Send`): not items such as \
            `Rc<T>` or `Cell<T>`"
)]
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
/// The calling thread first runs a few pieces from the front itself, timing them: a loop that
/// is over within some tens of microseconds never touches the pool (sharing it would cost
/// more than it saves). The rest is cut by an adaptive splitter (as in rayon): a few pieces per
/// worker to start with, split further when a piece is stolen, and never split into halves
/// shorter than `grain` items (`grain == 0`: no minimum beyond one item).
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
    let leaf = |piece, _offset| leaf(piece);
    drive(
        source.into_par_source(),
        grain,
        &NeverStop,
        &leaf,
        &|(), ()| (),
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
    let leaf = |piece, _offset| leaf(piece);
    drive(source.into_par_source(), grain, &NeverStop, &leaf, &combine)
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
