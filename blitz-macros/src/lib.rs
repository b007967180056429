//! The proc macros of Blitz: `#[parallel]`, `fork_join!` and `par_for!`.
//!
//! Use them through the facade, package `blitz-par`, library `blitz`, which re-exports them.
//! The generated code refers to the facade's hidden `__private` module under the name the
//! calling crate's Cargo.toml gives the facade (`::blitz` for the plain dependency line,
//! `::par` for `par = { package = "blitz-par", .. }`), or under the `crate = path` given to the
//! macro (for a crate that re-exports Blitz).
//!
//! Each macro lives in its own module as parse -> analyse -> expand over
//! `proc_macro2::TokenStream`, so it can be tested without the compiler; this file only
//! converts token streams and errors.
#![deny(missing_docs)]

use proc_macro::TokenStream;

mod common;
mod fork_join;
mod par_for;
mod parallel;

/// Runs the sibling recursive calls of a fn in parallel: `a(x) + a(y)`, `(a(x), a(y))`,
/// `g(a(x), a(y))`, struct fields, and consecutive independent statements that each recurse
/// become one fork/join.
///
/// Arguments: `cutoff = <bool expr over the parameters>` (run the fork-free form of the body
/// when true) and `crate = path`. See the `blitz` crate docs for the full contract.
///
/// ```
/// #[blitz::parallel(cutoff = n < 10)]
/// fn fib(n: u64) -> u64 {
///     if n < 2 {
///         return n;
///     }
///     fib(n - 1) + fib(n - 2)
/// }
/// assert_eq!(fib(20), 6765);
/// ```
///
/// # Panics
///
/// Outside every pool, the work runs on the global pool, created on first use; if it cannot be
/// created (an invalid `BLITZ_NUM_THREADS`, a thread the OS refuses to start), this panics
/// with the build error. See "Which pool runs the work" in the `blitz` crate docs.
#[proc_macro_attribute]
pub fn parallel(args: TokenStream, item: TokenStream) -> TokenStream {
    let item = proc_macro2::TokenStream::from(item);
    parallel::parallel(args.into(), item.clone())
        .unwrap_or_else(|e| {
            // The item as written plus the one error: what is wrong is reported once, not
            // again by the compiler as follow-on errors of a missing or half-expanded fn.
            let error = e.into_compile_error();
            if syn::parse2::<syn::Expr>(item.clone()).is_ok() {
                // On an expression (a closure), where one expression must come out.
                return quote::quote!({ #error; #item });
            }
            let mut out = item;
            out.extend(error);
            out
        })
        .into()
}

/// Runs two or more expressions in parallel: `fork_join!(a = f(), (x, y) = g(), c: u8 = h())`
/// binds names in the caller's block; `let (p, q) = fork_join!(f(), g())` returns a tuple. A
/// trailing `?` on an arm is applied after every arm finished. See the `blitz` crate docs.
///
/// ```
/// let v: Vec<u32> = (1..=100).collect();
/// blitz::fork_join!(sum = v.iter().sum::<u32>(), max = v.iter().max());
/// assert_eq!((sum, max), (5050, Some(&100)));
/// let (evens, odds) = blitz::fork_join!(
///     v.iter().filter(|x| *x % 2 == 0).count(),
///     v.iter().filter(|x| *x % 2 == 1).count(),
/// );
/// assert_eq!(evens + odds, 100);
/// ```
///
/// # Panics
///
/// Outside every pool, the work runs on the global pool, created on first use; if it cannot be
/// created (an invalid `BLITZ_NUM_THREADS`, a thread the OS refuses to start), this panics
/// with the build error. See "Which pool runs the work" in the `blitz` crate docs.
#[proc_macro]
pub fn fork_join(input: TokenStream) -> TokenStream {
    fork_join::fork_join_or_error(input.into()).into()
}

/// A parallel `for` loop: `par_for!(pat in source [, grain = g] [, reduce(op: var)]* => body)`,
/// with `op` in `+ * min max & | ^ && || wrapping_add wrapping_mul`; `continue` skips an
/// iteration. See the `blitz` crate docs.
///
/// ```
/// let mut v: Vec<u64> = (0..1000).collect();
/// blitz::par_for!(x in &mut v => *x *= 2);
/// let mut total = 0u64;
/// blitz::par_for!(x in &v, grain = 64, reduce(+: total) => total += *x);
/// assert_eq!(total, 999_000);
/// ```
///
/// # Panics
///
/// Outside every pool, the work runs on the global pool, created on first use; if it cannot be
/// created (an invalid `BLITZ_NUM_THREADS`, a thread the OS refuses to start), this panics
/// with the build error. See "Which pool runs the work" in the `blitz` crate docs.
#[proc_macro]
pub fn par_for(input: TokenStream) -> TokenStream {
    par_for::par_for_or_error(input.into()).into()
}
