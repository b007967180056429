//! Parallel iterators under rayon's names, on the loops' splitting engine.
//!
//! A parallel iterator is a chain of adaptors over a *source* that can be split at an index
//! (a slice, a range, a `Vec`, chunks of a slice). Running a consumer (`sum`, `collect`,
//! `for_each`, ...) hands the source, wrapped in every adaptor of the chain, to the splitting
//! engine shared with `par_for!`, as one [`ParallelSource`]: the engine runs a timed prefix on
//! the caller (a short loop never touches the pool), splits the rest adaptively and forks with
//! `Worker::join`; each piece runs as the plain sequential iterator chain (`slice::Iter`, then
//! `iter::Map`, then `iter::Filter`, ...), which LLVM optimises like hand-written code.
//!
//! How an adaptor reaches the source: a closure captured by `map(f)` lives in the `Map`
//! value, but the pieces of the split need to share it by reference. So a consumer does not
//! ask an iterator for its source; it hands the iterator a [`ProducerCallback`], and every
//! adaptor passes on a callback of its own that wraps the source it gets in its producer
//! (which borrows the closure) before handing it on. The innermost source calls the chain.
//!
//! * Indexed iterators ([`IndexedParallelIterator`]) yield exactly one item per index of their
//!   source, so they can be zipped, enumerated, searched by position and collected in place.
//!   The traits are safe to implement, so nothing unsafe trusts them: an iterator whose `len`
//!   disagrees with what its producer yields makes `collect` and `unzip` panic.
//!   `filter`, `filter_map`, `flat_map_iter` and `fold` lose that.
//! * Pieces are split by *source* index even below a `filter`, so a piece's offset orders it
//!   among the others: the ordered searches (`find_first`, `position_last`, ...) rely on that.

mod adaptors;
mod blocks;
mod bridge;
mod chain;
mod chunks;
mod collect;
mod collections;
mod consumers;
mod early_exit;
mod either_iter;
mod generate;
mod indexed;
mod indexed_iterator;
mod interleave;
mod intersperse;
mod into;
mod map;
mod multizip;
mod pair;
mod parallel_iterator;
mod slice;
mod slice_pieces;
mod slice_split;
mod sources;
mod string;
#[cfg(all(test, not(loom)))]
mod tests;
mod try_fold;
mod try_ops;
mod until_flag;
mod walk_tree;

use crate::loops::ParallelSource;

pub use adaptors::{
    Filter, FilterMap, FlatMap, FlatMapIter, Flatten, FlattenIter, Fold, FoldWith, MaxLen, MinLen,
    Positions,
};
pub use blocks::{ExponentialBlocks, UniformBlocks};
pub use bridge::{IterBridge, ParallelBridge};
pub use chain::Chain;
pub use chunks::{Chunks, FoldChunks, FoldChunksWith};
pub use collect::{FromParallelIterator, ParallelExtend};
pub use collections::{ParallelDrainFull, ParallelDrainRange};
pub use early_exit::{PanicFuse, SkipAny, SkipAnyWhile, TakeAny, TakeAnyWhile, WhileSome};
/// The item type of [`ParallelIterator::partition_map`] (the `either` crate's, as in rayon).
pub use either::Either;
pub use generate::{
    Empty, Once, Repeat, RepeatN, Split, empty, once, repeat, repeat_n, repeatn, split,
};
pub use indexed::{Enumerate, Rev, Skip, StepBy, Take, Zip};

/// rayon's name for the iterator of [`zip_eq`](IndexedParallelIterator::zip_eq), which checks
/// the lengths when it is made and is then a [`Zip`].
pub type ZipEq<A, B> = Zip<A, B>;

/// rayon's name for the iterator of [`walk_tree()`], which walks in prefix order here.
pub type WalkTree<S, B> = WalkTreePrefix<S, B>;
pub use indexed_iterator::IndexedParallelIterator;
pub use interleave::{Interleave, InterleaveShortest};
pub use intersperse::Intersperse;
pub use into::{IntoParallelIterator, IntoParallelRefIterator, IntoParallelRefMutIterator};
pub use map::{Cloned, Copied, Inspect, Map, MapInit, MapWith, Update};
pub use multizip::MultiZip;
pub use parallel_iterator::ParallelIterator;
pub use slice::{ParChunks, ParChunksMut, ParallelSlice, ParallelSliceMut};
pub use slice_pieces::{
    ParArrayWindows, ParChunksExact, ParChunksExactMut, ParRChunks, ParRChunksExact,
    ParRChunksExactMut, ParRChunksMut, ParWindows,
};
pub use slice_split::{
    ChunkByCut, SliceCut, SliceParts, SlicePartsMut, SplitCut, SplitInclusiveCut,
};
pub use sources::{Iter, IterMut, RangeIter, VecIntoIter};
pub use string::{
    AsciiWhitespaceKind, CharIndicesKind, CharPattern, CharsKind, EncodeUtf16Kind, LinesKind,
    MatchIndicesKind, MatchesKind, OffsetCharIndices, OffsetMatches, ParallelString, PieceLines,
    SplitKind, SplitParts, StrPartKind, StrParts, WhitespaceKind,
};
pub use try_fold::{TryFold, TryFoldWith};
pub use try_ops::Try;
pub use walk_tree::{
    WalkTreePostfix, WalkTreePrefix, walk_tree, walk_tree_postfix, walk_tree_prefix,
};

/// Receives the source of a parallel iterator, wrapped in all its adaptors (see the module
/// docs). Implemented by the consumers and adaptors; exposed so that new parallel iterators
/// can be written outside the crate: a new source hands any [`ParallelSource`] to the
/// callback.
///
/// ```
/// use blitz::iter::ProducerCallback;
/// use blitz::prelude::*;
///
/// /// The even numbers below `n`, as a parallel iterator over a range source.
/// struct Evens(u64);
///
/// impl ParallelIterator for Evens {
///     type Item = u64;
///
///     fn with_producer<CB: ProducerCallback<u64>>(self, callback: CB) -> CB::Output {
///         // Any `ParallelSource` will do; a range of halves, doubled by `map` below, is
///         // simplest. (Adaptors wrap the producer the same way.)
///         (0..self.0.div_ceil(2)).into_par_iter().map(|i| 2 * i).with_producer(callback)
///     }
/// }
///
/// assert_eq!(Evens(10).sum::<u64>(), 0 + 2 + 4 + 6 + 8);
/// assert_eq!(Evens(7).collect::<Vec<_>>(), [0, 2, 4, 6]);
/// ```
pub trait ProducerCallback<T> {
    /// What the callback returns.
    type Output;

    /// Runs with the producer of the iterator.
    fn call<P>(self, producer: P) -> Self::Output
    where
        P: ParallelSource + IntoIterator<Item = T>;
}

/// The traits to import for parallel iterators and sorts: `use blitz::prelude::*;`.
pub mod prelude {
    pub use super::{
        FromParallelIterator, IndexedParallelIterator, IntoParallelIterator,
        IntoParallelRefIterator, IntoParallelRefMutIterator, ParallelBridge, ParallelDrainFull,
        ParallelDrainRange, ParallelExtend, ParallelIterator, ParallelSlice, ParallelSliceMut,
        ParallelString,
    };
}
