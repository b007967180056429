//! Blitz: fork-join parallelism for Rust on a low-overhead work-stealing runtime.
//!
//! The package is `blitz-par` (`blitz-par = "0.1"` in `[dependencies]`); the library is
//! `blitz`. Most code needs only the three macros, [`parallel`], [`fork_join!`] and
//! [`par_for!`], described [below](#the-macros); the runtime underneath can also be called
//! directly:
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
//! The runtime ([`ThreadPool`], [`join`], [`Worker`]) comes from the `blitz-par-runtime` crate and
//! is re-exported here, so users depend on `blitz` alone.
//!
//! The user guide and the description of the runtime's internals are in the repository's
//! book (`book/`; `scripts/book.sh` builds it and tests its examples).
//!
//! # The macros
//!
//! Every macro keeps *serial elision*: deleting it (keeping the code) gives the same result.
//! What would break that is a compile error on the offending token.
//!
//! ## `#[parallel]`: fork a recursive fn
//!
//! Sibling recursive calls (operands of one expression: binary operators other than `&&`/`||`,
//! tuple or array elements, arguments of one call, struct fields) run as one fork/join, the
//! first on the current thread:
//!
//! ```
//! #[blitz::parallel]
//! fn fib(n: u64) -> u64 {
//!     if n < 2 {
//!         return n;
//!     }
//!     fib(n - 1) + fib(n - 2)
//! }
//! assert_eq!(fib(20), 6765);
//! ```
//!
//! So do consecutive statements that each recurse, when none uses a binding made by an
//! earlier one; a trailing `?` on a forked call is applied after the join, in source order:
//!
//! ```
//! #[blitz::parallel]
//! fn count(v: &[i32]) -> Result<usize, String> {
//!     if v.len() <= 2 {
//!         return match v.iter().find(|&&x| x < 0) {
//!             Some(x) => Err(format!("negative: {x}")),
//!             None => Ok(v.len()),
//!         };
//!     }
//!     let (l, r) = v.split_at(v.len() / 2);
//!     let a = count(l)?;
//!     let b = count(r)?;
//!     Ok(a + b)
//! }
//! assert_eq!(count(&[1, 2, 3, 4, 5]), Ok(5));
//! assert!(count(&[1, 2, -3, 4, 5]).is_err());
//! ```
//!
//! Recursive calls are `f(..)` in a free fn; in a method, `Self::f(..)`, `Type::f(..)` and
//! `x.f(..)` through any receiver (`l.eval()` on a `&Box<Self>`, `child.sum()` from an `if let`
//! on an `Option<Box<Self>>`). Calls inside closures, loops and async blocks are not fork
//! points, and [`no_fork!`] keeps an expression out of the rewriting. The fn looks the worker
//! up once and passes it down the recursion in a hidden parameter of a generated copy (for a
//! method, a hidden associated fn beside it; a trait impl's method, which cannot have one,
//! looks the worker up once per call instead). A method call that may be another type's
//! same-named method is left as written outside a fork (if it is the fn's own, it looks the
//! worker up again); inside one, in a `&self` or `&mut self` method, the type checker picks
//! the fast copy or the other type's method by the receiver's type.
//!
//! `#[parallel(cutoff = <bool expr over the parameters>)]` runs a fork-free clone of the body
//! when the expression is true, so leaves pay nothing.
//!
//! The generated code names this crate as your Cargo.toml does: `blitz` for the plain
//! `blitz-par = ".."` line, `par` for `par = { package = "blitz-par", .. }`. A crate that
//! re-exports Blitz and lets its users call the macros through its own path says where the
//! facade is with `crate = path`, an argument of every macro:
//! `#[parallel(crate = my_crate::blitz)]`, `fork_join!(crate = my_crate::blitz, ..)`.
//!
//! ## `fork_join!`: run a few expressions in parallel
//!
//! ```
//! fn left() -> u64 { 1 }
//! fn right() -> Result<u64, String> { Ok(2) }
//! # fn main() -> Result<(), String> {
//! blitz::fork_join!(a = left(), (x, y) = (3, 4), b: u64 = right()?);
//! assert_eq!((a, b, x, y), (1, 2, 3, 4));
//! let (p, q, r) = blitz::fork_join!(left(), right(), 5);
//! assert_eq!((p, q, r), (1, Ok(2), 5));
//! # Ok(())
//! # }
//! ```
//!
//! The binding form expands to `let` statements in the caller's block, so patterns must be
//! irrefutable. Any number of arms from two up; `()`, `[]` and `{}` all work. Control flow
//! that would leave an arm (`return`, `break`, a `?` other than trailing) is an error.
//!
//! ## `par_for!`: a parallel loop
//!
//! ```
//! let mut v: Vec<u64> = (0..10_000).collect();
//! blitz::par_for!(x in &mut v => *x *= 2);
//!
//! let (mut sum, mut hi) = (0u64, 0u64);
//! blitz::par_for!(x in &v, grain = 256, reduce(+: sum), reduce(max: hi) => {
//!     if *x % 3 == 0 {
//!         continue;
//!     }
//!     sum += x;
//!     hi = hi.max(*x);
//! });
//! assert_eq!(sum, v.iter().filter(|&&x| x % 3 != 0).sum::<u64>());
//! assert_eq!(hi, 19_996);
//! ```
//!
//! Sources: integer ranges, `&[T]`/`&Vec<T>`, `&mut [T]`/`&mut Vec<T>` (anything
//! implementing [`IntoParallelSource`]), and `v.iter()`, `v.iter_mut()`, `v.chunks(k)`,
//! `v.chunks_mut(k)`, `v.iter().enumerate()`, `v.iter_mut().enumerate()`, which are rewritten
//! to the runtime's sources. Each leaf runs a plain `for` loop over its piece, so `continue`
//! works and LLVM can vectorise. `reduce(op: var)` with `op` in `+ * min max & | ^ && ||
//! wrapping_add wrapping_mul` gives the body a private accumulator starting at the identity;
//! the pieces' results are combined into `var` after the loop. `break`, `return`, `?`,
//! `.await` and assignments to captured variables are errors.
//!
//! # Which pool runs the work, and when that panics
//!
//! On a worker thread, [`join`], `#[parallel]`, `fork_join!` and `par_for!` fork on that
//! worker's pool. Anywhere else they run on the global pool, which the first such call creates
//! with default settings (unless [`ThreadPoolBuilder::build_global`] configured it first).
//! If that creation fails (`BLITZ_NUM_THREADS` is invalid or too large, or the operating system
//! refuses to start a thread), the call **panics** with the build error's message (a later call
//! tries again). To handle the error instead, build a pool yourself and run the work in it
//! with [`ThreadPool::install`]:
//!
//! ```
//! let pool = blitz::ThreadPoolBuilder::new().build().expect("a pool");
//! let (a, b) = pool.install(|| blitz::join(|| 1, || 2));
//! assert_eq!(a + b, 3);
//! ```
#![deny(missing_docs)]

// The macros name this crate `::blitz` when they expand inside it.
extern crate self as blitz;

// The README's Rust blocks run as doctests, so its first program compiles as shown.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

/// The traits to import for parallel iterators and sorts: `use blitz::prelude::*;`.
pub use blitz_runtime::iter::prelude;
pub use blitz_runtime::*;

pub use blitz_macros::{fork_join, par_for, parallel};

mod receiver;
mod send_arm;

/// What macro-generated code refers to. Not a public API: it may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use blitz_runtime::__private::{ForkContext, ForkMode, SerialContext, WorkRequestPoll};
    pub use blitz_runtime::{
        IntoParallelSource, ParallelSource, Worker, chunks, chunks_mut, enumerate, enumerate_mut,
        for_each_piece, reduce_pieces, with_worker,
    };

    pub use blitz_runtime::iter::ParallelIterator;

    pub use crate::receiver::{
        IntoProbe, Never, Same, ViaOther, ViaOtherMut, ViaOwn, ViaOwnMut, Which, WhichMut,
    };
    pub use crate::send_arm::{SendArm, Sent};

    /// Converts what a `par_for!` iterator chain starts from (a range) into a parallel
    /// iterator.
    #[inline(always)]
    pub fn par_iter<I: blitz_runtime::iter::IntoParallelIterator>(iter: I) -> I::Iter {
        iter.into_par_iter()
    }

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
        /// `reduce(wrapping_add: ..)`.
        pub struct WrappingAdd;
        /// `reduce(wrapping_mul: ..)`.
        pub struct WrappingMul;
        /// `reduce(&&: ..)`.
        pub struct LogicalAnd;
        /// `reduce(||: ..)`.
        pub struct LogicalOr;

        /// A type with an identity and an associative combining function for the operator
        /// `Op`.
        #[diagnostic::on_unimplemented(
            message = "`par_for!` cannot reduce a `{Self}` with this operator",
            label = "`{Self}` has no identity and combining function for this operator",
            note = "reductions exist for the primitive integers (all operators), floats \
                    (`+ * min max`) and `bool` (`& | ^ && ||`)",
            note = "for a `&mut` target, reduce into a local and add it after the loop \
                    (`let mut t = 0; par_for!(.., reduce(+: t) => ..); *total += t;`); for \
                    other types, use `blitz::reduce_pieces` or `par_iter().map(..).reduce(..)`"
        )]
        pub trait Reduce<Op>: Copy {
            /// The value that `combine` leaves the other operand unchanged with.
            fn identity() -> Self;
            /// The associative operation.
            fn combine(a: Self, b: Self) -> Self;
        }

        /// The target, and the identity and combining function of `Op` for its type. One
        /// call per reduce clause, the only place the clause names its target, so a type
        /// without a reduction, an immutable or an undeclared target gets one error.
        #[inline(always)]
        #[allow(clippy::type_complexity)]
        pub fn ops<T: Reduce<Op>, Op>(
            target: &mut T,
            _op: Op,
        ) -> (&mut T, fn() -> T, fn(T, T) -> T) {
            (target, T::identity, T::combine)
        }

        macro_rules! reduce_impl {
            ($op:ident, $id:expr, |$a:ident, $b:ident| $combine:expr; $($t:ty),*) => {$(
                #[diagnostic::do_not_recommend]
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

        /// Two partial results overflowed when combined: two pieces' results, or the loop's
        /// result and the variable's value before the loop. With overflow checks (debug
        /// builds), a panic that says so and names the wrapping operator, since the body may
        /// wrap on purpose (the sequential loop then never overflows); without them, the
        /// wrapped value, as the operator itself gives in a release build.
        #[cold]
        #[inline(never)]
        pub fn combine_overflowed<T>(ty: &str, op: &str, wrapping: &str, wrapped: T) -> T {
            if cfg!(debug_assertions) {
                panic!(
                    "blitz: `par_for!` `reduce({op}: ..)` on `{ty}`: combining partial results \
                     with `{op}` overflowed (two pieces' results, or the loop's result and the \
                     variable's value before the loop); if the loop body wraps on purpose, \
                     write `reduce({wrapping}: ..)`"
                );
            }
            wrapped
        }

        macro_rules! int_reduce {
            ($t:ty) => {
                reduce_impl!(Add, 0, |a, b| match a.checked_add(b) {
                    Some(sum) => sum,
                    None => combine_overflowed(stringify!($t), "+", "wrapping_add", a.wrapping_add(b)),
                }; $t);
                reduce_impl!(Mul, 1, |a, b| match a.checked_mul(b) {
                    Some(product) => product,
                    None => combine_overflowed(stringify!($t), "*", "wrapping_mul", a.wrapping_mul(b)),
                }; $t);
                reduce_impl!(WrappingAdd, 0, |a, b| a.wrapping_add(b); $t);
                reduce_impl!(WrappingMul, 1, |a, b| a.wrapping_mul(b); $t);
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
        reduce_impl!(LogicalAnd, true, |a, b| a && b; bool);
        reduce_impl!(LogicalOr, false, |a, b| a || b; bool);
    }
}

/// Keeps an expression out of `#[parallel]`'s rewriting: a call inside is neither a fork
/// point nor redirected to the fast copy, and runs as written.
///
/// `#[parallel]` recognises recursive calls by name (a macro cannot see types), so a call of
/// a same-named method on another type, on a binding beside recursive calls, is forked with
/// them. In a `&self` or `&mut self` method that is harmless: the type checker sends such a
/// call to the other type's method. In a method that takes `self` by value or by a smart
/// pointer (`self: Box<Self>`), the call is redirected to the fast copy, which the other type
/// lacks, and fails to compile: write it `blitz::no_fork!(items.len())`. It also keeps a call
/// that is too cheap to be worth a fork out of one.
///
/// ```
/// enum Bag {
///     Empty,
///     Node(Vec<u64>, Box<Bag>, Box<Bag>),
/// }
///
/// impl Bag {
///     #[blitz::parallel]
///     fn len(self: Box<Self>) -> usize {
///         match *self {
///             Bag::Empty => 0,
///             Bag::Node(items, a, b) => blitz::no_fork!(items.len()) + a.len() + b.len(),
///         }
///     }
/// }
///
/// let leaf = || Box::new(Bag::Node(vec![1, 2, 3], Box::new(Bag::Empty), Box::new(Bag::Empty)));
/// let root = Box::new(Bag::Node(vec![0], leaf(), leaf()));
/// assert_eq!(root.len(), 7);
/// ```
#[macro_export]
macro_rules! no_fork {
    ($e:expr) => {
        $e
    };
}
