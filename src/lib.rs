//! Blitz: fork-join parallelism for Rust on a low-overhead work-stealing runtime.
//!
//! ```
//! fn sum(v: &[u64]) -> u64 {
//!     if v.len() <= 4096 {
//!         return v.iter().sum();
//!     }
//!     let (left, right) = v.split_at(v.len() / 2);
//!     let (a, b) = blitz::join(|| sum(left), || sum(right));
//!     a + b
//! }
//!
//! let v: Vec<u64> = (1..=1_000_000).collect();
//! assert_eq!(sum(&v), 500_000_500_000);
//! ```
//!
//! The runtime ([`ThreadPool`], [`join`], [`Worker`]) comes from the `blitz-runtime` crate and
//! is re-exported here, so users depend on `blitz` alone.
#![deny(missing_docs)]

pub use blitz_runtime::*;

/// What macro-generated code refers to. Not a public API: it may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use blitz_runtime::{
        IntoParallelSource, ParallelSource, Worker, for_each_piece, reduce_pieces, with_worker,
    };
}
