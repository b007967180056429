//! Expansion tests: what `#[parallel]` generates, as normalised token strings.

use super::*;

fn expand_str(args: TokenStream, item: TokenStream) -> String {
    parallel(args, item).unwrap().to_string()
}

fn error(args: TokenStream, item: TokenStream) -> String {
    parallel(args, item).unwrap_err().to_string()
}

#[test]
fn fib() {
    let got = expand_str(
        quote!(),
        quote! {
            /// Fibonacci.
            pub fn fib(n: u64) -> u64 {
                if n < 2 {
                    return n;
                }
                fib(n - 1) + fib(n - 2)
            }
        },
    );
    let want = quote! {
        /// Fibonacci.
        pub fn fib(n: u64) -> u64 {
            #[allow(clippy::too_many_arguments)]
            fn __blitz_fib(__blitz_w: &::blitz::__private::Worker, n: u64) -> u64 {
                if n < 2 {
                    return n;
                }
                {
                    let (__blitz_r0, __blitz_r1) = __blitz_w.join(
                        |__blitz_w| __blitz_fib(__blitz_w, n - 1),
                        |__blitz_w| __blitz_fib(__blitz_w, n - 2)
                    );
                    __blitz_r0 + __blitz_r1
                }
            }
            ::blitz::__private::with_worker(move |__blitz_w| __blitz_fib(__blitz_w, n))
        }
    };
    assert_eq!(
        crate::common::normalize(got),
        crate::common::normalize(want)
    );
}

#[test]
fn errors() {
    let fib = quote!(
        fn fib(n: u64) -> u64 {
            if n < 2 { n } else { fib(n - 1) + fib(n - 2) }
        }
    );
    assert!(
        error(
            quote!(),
            quote!(
                struct S;
            )
        )
        .contains("cannot be used on a struct")
    );
    assert!(
        error(
            quote!(),
            quote!(
                async fn f() {}
            )
        )
        .contains("`async fn`")
    );
    assert!(
        error(
            quote!(),
            quote!(
                const fn f() {}
            )
        )
        .contains("`const fn`")
    );
    assert!(
        error(
            quote!(),
            quote!(
                extern "C" fn f() {}
            )
        )
        .contains("`extern` fn")
    );
    assert!(
        error(
            quote!(),
            quote!(
                fn f(n: u64) -> u64 {
                    f(n - 1)
                }
            )
        )
        .contains("no fork point")
    );
    assert!(error(quote!(grain = 3), fib.clone()).contains("unknown argument `grain`"));
    assert!(error(quote!(cutoff = true, cutoff = false), fib).contains("duplicate argument"));
    let ret = quote!(
        fn f(n: u64) -> u64 {
            f(if n == 0 { return 0 } else { n }) + f(n - 1)
        }
    );
    assert!(error(quote!(), ret).contains("`return` cannot leave a forked call"));
    let brk = quote!(
        fn f(n: u64) -> u64 {
            loop {
                let x = f({ break }) + f(n);
            }
        }
    );
    // Loops are left alone, so this has no fork point rather than a `break` error.
    assert!(error(quote!(), brk).contains("no fork point"));
    let brk = quote!(
        fn f(n: u64) -> u64 {
            'a: { f({ break 'a 1 }) + f(n) }
        }
    );
    assert!(error(quote!(), brk).contains("`break` cannot leave a forked call"));
}

#[test]
fn calls_in_closures_and_loops_are_left_alone() {
    let got = expand_str(
        quote!(),
        quote!(
            fn f(n: u64) -> u64 {
                let g = |k| f(k) + f(k);
                for i in 0..n {
                    f(i);
                }
                f(n - 1) + f(n - 2) + g(n)
            }
        ),
    );
    assert!(got.contains("let g = | k | f (k) + f (k) ;"), "{got}");
    assert!(got.contains("for i in 0 .. n { f (i) ; }"), "{got}");
}
