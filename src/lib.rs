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

pub use blitz_macros::{fork_join, par_for, parallel};

/// What macro-generated code refers to. Not a public API: it may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use blitz_runtime::{
        IntoParallelSource, ParallelSource, Worker, for_each_piece, reduce_pieces, with_worker,
    };

    /// The identities and combining functions behind `par_for!`'s `reduce(op: var)`.
    pub mod reduce {
        /// `reduce(+: ..)`.
        pub struct Add;
        /// `reduce(*: ..)`.
        pub struct Mul;
        /// `reduce(min: ..)`.
        pub struct Min;
        /// `reduce(max: ..)`.
        pub struct Max;
        /// `reduce(&: ..)`.
        pub struct BitAnd;
        /// `reduce(|: ..)`.
        pub struct BitOr;
        /// `reduce(^: ..)`.
        pub struct BitXor;

        /// A type with an identity and an associative combining function for the operator
        /// `Op`.
        #[diagnostic::on_unimplemented(
            message = "`par_for!` cannot reduce a `{Self}` with this operator",
            label = "`{Self}` has no identity and combining function for this operator",
            note = "reductions exist for the primitive integers (all operators), floats \
                    (`+ * min max`) and `bool` (`& | ^`)"
        )]
        pub trait Reduce<Op>: Sized {
            /// The value that `combine` leaves the other operand unchanged with.
            fn identity() -> Self;
            /// The associative operation.
            fn combine(a: Self, b: Self) -> Self;
        }

        /// The identity and combining function of `Op` for the type of `_target`. One call
        /// per reduce clause, so a type without a reduction gets one error.
        #[inline(always)]
        #[allow(clippy::type_complexity)]
        pub fn ops<T: Reduce<Op>, Op>(_target: &T, _op: Op) -> (fn() -> T, fn(T, T) -> T) {
            (T::identity, T::combine)
        }

        macro_rules! reduce_impl {
            ($op:ident, $id:expr, |$a:ident, $b:ident| $combine:expr; $($t:ty),*) => {$(
                impl Reduce<$op> for $t {
                    #[inline(always)]
                    fn identity() -> Self {
                        $id
                    }
                    #[inline(always)]
                    fn combine($a: Self, $b: Self) -> Self {
                        $combine
                    }
                }
            )*};
        }

        macro_rules! int_reduce {
            ($t:ty) => {
                reduce_impl!(Add, 0, |a, b| a + b; $t);
                reduce_impl!(Mul, 1, |a, b| a * b; $t);
                reduce_impl!(Min, <$t>::MAX, |a, b| Ord::min(a, b); $t);
                reduce_impl!(Max, <$t>::MIN, |a, b| Ord::max(a, b); $t);
                reduce_impl!(BitAnd, !0, |a, b| a & b; $t);
                reduce_impl!(BitOr, 0, |a, b| a | b; $t);
                reduce_impl!(BitXor, 0, |a, b| a ^ b; $t);
            };
        }

        int_reduce!(u8);
        int_reduce!(u16);
        int_reduce!(u32);
        int_reduce!(u64);
        int_reduce!(u128);
        int_reduce!(usize);
        int_reduce!(i8);
        int_reduce!(i16);
        int_reduce!(i32);
        int_reduce!(i64);
        int_reduce!(i128);
        int_reduce!(isize);

        macro_rules! float_reduce {
            ($t:ty) => {
                reduce_impl!(Add, 0.0, |a, b| a + b; $t);
                reduce_impl!(Mul, 1.0, |a, b| a * b; $t);
                reduce_impl!(Min, <$t>::INFINITY, |a, b| a.min(b); $t);
                reduce_impl!(Max, <$t>::NEG_INFINITY, |a, b| a.max(b); $t);
            };
        }

        float_reduce!(f32);
        float_reduce!(f64);

        reduce_impl!(BitAnd, true, |a, b| a & b; bool);
        reduce_impl!(BitOr, false, |a, b| a | b; bool);
        reduce_impl!(BitXor, false, |a, b| a ^ b; bool);
    }
}
