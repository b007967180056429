//! The work-stealing runtime behind Blitz.
//!
//! Use it through the facade, package `blitz-par`, library `blitz`: it re-exports everything
//! public here, and the examples below are written against it (`blitz::join`, ...).
//!
//! A pool of worker threads, each with a Chase-Lev deque (`deque`); fork/join on
//! stack-allocated jobs (`job`, [`Worker::join`]) with a hybrid join; latches (`latch`);
//! the JEC sleep protocol with progressive sleep (`sleep`); an injector for work from outside
//! the pool (`injector`); the pool API ([`ThreadPool`], [`ThreadPoolBuilder`],
//! [`join`](fn@join), [`scope`](fn@scope), [`spawn`](fn@spawn), [`broadcast`](fn@broadcast)),
//! at parity with `rayon-core` where the two overlap;
//! and parallel loops ([`for_each_piece`], [`reduce_pieces`], [`map_reduce`], and the
//! early-exit searches [`any`], [`all`], [`find_any`], [`position_any`]) over the sources of
//! [`IntoParallelSource`], cut by a rayon-style adaptive splitter.
//!
//! ```
//! let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
//! let (a, b) = pool.join(|| 1 + 1, || 2 + 2);
//! assert_eq!((a, b), (2, 4));
//! ```
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

pub(crate) mod broadcast;
mod builder;
pub(crate) mod deque;
mod fork_context;
mod frames;
pub(crate) mod injector;
pub mod iter;
/// Parallel slices under rayon's module path (`rayon::slice`): the traits and the iterator
/// types of [`ParallelSlice`](iter::ParallelSlice) and
/// [`ParallelSliceMut`](iter::ParallelSliceMut), also in [`iter`] and the prelude. The
/// iterator types are also here under rayon's names (`Chunks` for `ParChunks`, ...), so that
/// code naming them moves over with its `use`.
pub mod slice {
    pub use crate::iter::{
        ChunkByCut, Iter, IterMut, ParArrayWindows, ParChunks, ParChunksExact, ParChunksExactMut,
        ParChunksMut, ParRChunks, ParRChunksExact, ParRChunksExactMut, ParRChunksMut, ParWindows,
        ParallelSlice, ParallelSliceMut, SliceCut, SliceParts, SlicePartsMut, SplitCut,
        SplitInclusiveCut,
    };

    /// rayon's name for [`ParChunks`].
    pub type Chunks<'data, T> = ParChunks<'data, T>;
    /// rayon's name for [`ParChunksMut`].
    pub type ChunksMut<'data, T> = ParChunksMut<'data, T>;
    /// rayon's name for [`ParChunksExact`].
    pub type ChunksExact<'data, T> = ParChunksExact<'data, T>;
    /// rayon's name for [`ParChunksExactMut`].
    pub type ChunksExactMut<'data, T> = ParChunksExactMut<'data, T>;
    /// rayon's name for [`ParRChunks`].
    pub type RChunks<'data, T> = ParRChunks<'data, T>;
    /// rayon's name for [`ParRChunksMut`].
    pub type RChunksMut<'data, T> = ParRChunksMut<'data, T>;
    /// rayon's name for [`ParRChunksExact`].
    pub type RChunksExact<'data, T> = ParRChunksExact<'data, T>;
    /// rayon's name for [`ParRChunksExactMut`].
    pub type RChunksExactMut<'data, T> = ParRChunksExactMut<'data, T>;
    /// rayon's name for [`ParWindows`].
    pub type Windows<'data, T> = ParWindows<'data, T>;
    /// rayon's name for [`ParArrayWindows`].
    pub type ArrayWindows<'data, T, const N: usize> = ParArrayWindows<'data, T, N>;
    /// rayon's name for the iterator of `par_split`.
    pub type Split<'data, T, P> = SliceParts<'data, T, SplitCut<P>>;
    /// rayon's name for the iterator of `par_split_mut`.
    pub type SplitMut<'data, T, P> = SlicePartsMut<'data, T, SplitCut<P>>;
    /// rayon's name for the iterator of `par_split_inclusive`.
    pub type SplitInclusive<'data, T, P> = SliceParts<'data, T, SplitInclusiveCut<P>>;
    /// rayon's name for the iterator of `par_split_inclusive_mut`.
    pub type SplitInclusiveMut<'data, T, P> = SlicePartsMut<'data, T, SplitInclusiveCut<P>>;
    /// rayon's name for the iterator of `par_chunk_by`.
    pub type ChunkBy<'data, T, P> = SliceParts<'data, T, ChunkByCut<P>>;
    /// rayon's name for the iterator of `par_chunk_by_mut`.
    pub type ChunkByMut<'data, T, P> = SlicePartsMut<'data, T, ChunkByCut<P>>;
}
/// The parallel iterator of a `Vec` by value under rayon's module path (`rayon::vec`).
pub mod vec {
    /// rayon's name for [`VecIntoIter`](crate::iter::VecIntoIter): `vec.into_par_iter()`.
    pub type IntoIter<T> = crate::iter::VecIntoIter<T>;
    /// rayon's name for the iterator of `vec.par_drain(..)`, which takes the drained items
    /// out first: a [`VecIntoIter`](crate::iter::VecIntoIter).
    pub type Drain<'data, T> = crate::iter::VecIntoIter<T>;
}
/// Parallel string methods under rayon's module path (`rayon::str`): the
/// [`ParallelString`](iter::ParallelString) trait, also in [`iter`] and the prelude.
pub mod str {
    pub use crate::iter::ParallelString;
    use crate::iter::{
        AsciiWhitespaceKind, CharIndicesKind, CharsKind, Copied, EncodeUtf16Kind, Iter, LinesKind,
        MatchIndicesKind, MatchesKind, SplitKind, StrParts, WhitespaceKind,
    };

    /// rayon's name for the iterator of `par_chars`.
    pub type Chars<'ch> = StrParts<'ch, CharsKind>;
    /// rayon's name for the iterator of `par_char_indices`.
    pub type CharIndices<'ch> = StrParts<'ch, CharIndicesKind>;
    /// rayon's name for the iterator of `par_bytes`.
    pub type Bytes<'ch> = Copied<Iter<'ch, u8>>;
    /// rayon's name for the iterator of `par_encode_utf16`.
    pub type EncodeUtf16<'ch> = StrParts<'ch, EncodeUtf16Kind>;
    /// rayon's name for the iterator of `par_lines`.
    pub type Lines<'ch> = StrParts<'ch, LinesKind>;
    /// rayon's name for the iterator of `par_split_whitespace`.
    pub type SplitWhitespace<'ch> = StrParts<'ch, WhitespaceKind>;
    /// rayon's name for the iterator of `par_split_ascii_whitespace`.
    pub type SplitAsciiWhitespace<'ch> = StrParts<'ch, AsciiWhitespaceKind>;
    /// rayon's name for the iterator of `par_split`.
    pub type Split<'ch, P> = StrParts<'ch, SplitKind<P>>;
    /// rayon's name for the iterator of `par_split_terminator`.
    pub type SplitTerminator<'ch, P> = StrParts<'ch, SplitKind<P>>;
    /// rayon's name for the iterator of `par_split_inclusive`.
    pub type SplitInclusive<'ch, P> = StrParts<'ch, SplitKind<P>>;
    /// rayon's name for the iterator of `par_matches`.
    pub type Matches<'ch, P> = StrParts<'ch, MatchesKind<P>>;
    /// rayon's name for the iterator of `par_match_indices`.
    pub type MatchIndices<'ch, P> = StrParts<'ch, MatchIndicesKind<P>>;
}
pub(crate) mod job;
mod join;
pub(crate) mod latch;
mod loops;
mod pacing;
mod pool;
mod raw;
pub(crate) mod registry;
mod scope;
mod scope_fifo;
pub(crate) mod sleep;
mod sort;
mod spawn;
pub(crate) mod sync;
#[cfg(all(test, not(loom)))]
mod test_panics;
#[cfg(all(test, not(loom)))]
mod test_rng;
mod thread_spawn;
pub(crate) mod threads;
pub(crate) mod unwind;
mod watch;
mod yielding;

pub use broadcast::{BroadcastContext, broadcast};
pub use builder::{NUM_THREADS_ENV_VAR, ThreadPoolBuildError, ThreadPoolBuilder};
pub use join::{FnContext, join, join_context, with_worker};
pub use loops::{
    ChunksMutSource, ChunksSource, EnumerateMutSource, EnumerateSource, IntoParallelSource,
    ParallelSource, all, any, chunks, chunks_mut, enumerate, enumerate_mut, find_any,
    for_each_piece, map_reduce, position_any, reduce_pieces,
};
pub use pool::{ThreadPool, current_num_threads, current_thread_index, max_num_threads};
pub use registry::Worker;
pub use scope::{Scope, in_place_scope, scope};
pub use scope_fifo::{ScopeFifo, in_place_scope_fifo, scope_fifo, spawn_fifo};
pub use sort::{par_sort_by, par_sort_by_cached_key, par_sort_unstable_by};
pub use spawn::{spawn, spawn_broadcast};
pub use thread_spawn::ThreadBuilder;
#[doc(hidden)]
pub use thread_spawn::{CustomSpawn, DefaultSpawn};
pub use yielding::{Yield, current_thread_has_pending_tasks, yield_local, yield_now};

/// What the facade's `__private` module re-exports for the code `#[parallel]` generates, and
/// nothing else uses. Not a public API: it may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use crate::fork_context::{ForkContext, SerialContext};
    pub use crate::join::{FirstPlain, ForkMode, PlainInstance, SecondPlain, WorkRequestPoll};
}
