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
pub(crate) mod job;
mod join;
pub(crate) mod latch;
mod loops;
mod pacing;
mod pool;
mod raw;
mod rayon_paths;
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
pub use rayon_paths::{
    array, collections, option, range, range_inclusive, result, slice, str, string, vec,
};
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
