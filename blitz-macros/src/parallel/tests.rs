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
                    let (__blitz_r0, __blitz_r1) = match __blitz_w.fork_mode() {
                        ::blitz::__private::ForkMode::Join(__blitz_w) => __blitz_w.join(
                            |__blitz_w| __blitz_fib(__blitz_w, n - 1),
                            |__blitz_w| __blitz_fib(__blitz_w, n - 2)
                        ),
                        ::blitz::__private::ForkMode::Plain(__blitz_w) => (__blitz_fib_plain(__blitz_w, n - 1), __blitz_fib_plain(__blitz_w, n - 2)),
                        ::blitz::__private::ForkMode::Serial => (__blitz_fib_serial(n - 1), __blitz_fib_serial(n - 2)),
                    };
                    __blitz_r0 + __blitz_r1
                }
            }
            #[allow(clippy::too_many_arguments)]
            fn __blitz_fib_plain(__blitz_w: ::blitz::__private::WorkRequestPoll<'_>, n: u64) -> u64 {
                if n < 2 {
                    return n;
                }
                {
                    let (__blitz_r0, __blitz_r1) = {
                        __blitz_w.poll();
                        (__blitz_fib_plain(__blitz_w, n - 1), __blitz_fib_plain(__blitz_w, n - 2))
                    };
                    __blitz_r0 + __blitz_r1
                }
            }
            #[allow(clippy::too_many_arguments, clippy::only_used_in_recursion)]
            fn __blitz_fib_serial(n: u64) -> u64 {
                if n < 2 {
                    return n;
                }
                __blitz_fib_serial(n - 1) + __blitz_fib_serial(n - 2)
            }
            ::blitz::__private::with_worker(move |__blitz_w| {
                if __blitz_w.num_threads() == 1 { __blitz_fib_serial(n) } else { __blitz_fib(__blitz_w, n) }
            })
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

#[test]
fn quicksort_forks_consecutive_statements() {
    let got = expand_str(
        quote!(),
        quote! {
            fn quicksort<T: Ord + Send>(v: &mut [T]) {
                if v.len() <= 1 {
                    return;
                }
                let mid = partition(v);
                let (lo, hi) = v.split_at_mut(mid);
                quicksort(lo);
                quicksort(&mut hi[1..]);
            }
        },
    );
    let want = quote! {
        fn quicksort<T: Ord + Send>(v: &mut [T]) {
            #[allow(clippy::too_many_arguments)]
            fn __blitz_quicksort<T: Ord + Send>(__blitz_w: &::blitz::__private::Worker, v: &mut [T]) {
                if v.len() <= 1 {
                    return;
                }
                let mid = partition(v);
                let (lo, hi) = v.split_at_mut(mid);
                let (__blitz_r0, __blitz_r1) = match __blitz_w.fork_mode() {
                    ::blitz::__private::ForkMode::Join(__blitz_w) => __blitz_w.join(
                        |__blitz_w| __blitz_quicksort(__blitz_w, lo),
                        |__blitz_w| __blitz_quicksort(__blitz_w, &mut hi[1..])
                    ),
                    ::blitz::__private::ForkMode::Plain(__blitz_w) => (__blitz_quicksort_plain(__blitz_w, lo), __blitz_quicksort_plain(__blitz_w, &mut hi[1..])),
                    ::blitz::__private::ForkMode::Serial => (__blitz_quicksort_serial(lo), __blitz_quicksort_serial(&mut hi[1..])),
                };
                let (_, _,) = (__blitz_r0, __blitz_r1,);
            }
            #[allow(clippy::too_many_arguments)]
            fn __blitz_quicksort_plain<T: Ord + Send>(__blitz_w: ::blitz::__private::WorkRequestPoll<'_>, v: &mut [T]) {
                if v.len() <= 1 {
                    return;
                }
                let mid = partition(v);
                let (lo, hi) = v.split_at_mut(mid);
                let (__blitz_r0, __blitz_r1) = {
                    __blitz_w.poll();
                    (__blitz_quicksort_plain(__blitz_w, lo), __blitz_quicksort_plain(__blitz_w, &mut hi[1..]))
                };
                let (_, _,) = (__blitz_r0, __blitz_r1,);
            }
            #[allow(clippy::too_many_arguments, clippy::only_used_in_recursion)]
            fn __blitz_quicksort_serial<T: Ord + Send>(v: &mut [T]) {
                if v.len() <= 1 {
                    return;
                }
                let mid = partition(v);
                let (lo, hi) = v.split_at_mut(mid);
                __blitz_quicksort_serial(lo);
                __blitz_quicksort_serial(&mut hi[1..]);
            }
            ::blitz::__private::with_worker(move |__blitz_w| {
                if __blitz_w.num_threads() == 1 { __blitz_quicksort_serial::<T>(v) } else { __blitz_quicksort::<T>(__blitz_w, v) }
            })
        }
    };
    assert_eq!(
        crate::common::normalize(got),
        crate::common::normalize(want)
    );
}

#[test]
fn tree_sum_method_with_three_children_and_cutoff() {
    let got = expand_str(
        quote!(cutoff = depth < 8, crate = ::my_blitz),
        quote! {
            pub fn sum(&self, depth: u32) -> u64 {
                self.value + self.left.sum(depth + 1) + self.sum(depth + 1) + Self::other(self) + self.sum(depth + 2)
            }
        },
    );
    let want = quote! {
        pub fn sum(&self, depth: u32) -> u64 {
            {
                let __blitz_cut: bool = depth < 8;
                if __blitz_cut {
                    self.value + self.left.sum(depth + 1) + self.sum(depth + 1) + Self::other(self) + self.sum(depth + 2)
                } else {
                    ::my_blitz::__private::with_worker(|__blitz_w| -> u64 {
                        {
                            let (__blitz_r0, __blitz_r1) = __blitz_w.join(
                                |__blitz_w| self.sum(depth + 1),
                                |__blitz_w| self.sum(depth + 2)
                            );
                            self.value + self.left.sum(depth + 1) + __blitz_r0 + Self::other(self) + __blitz_r1
                        }
                    })
                }
            }
        }
    };
    assert_eq!(
        crate::common::normalize(got),
        crate::common::normalize(want)
    );
}

#[test]
fn three_way_fork_nests_joins_and_applies_try_in_order() {
    let got = expand_str(
        quote!(),
        quote! {
            fn count(t: &Tree) -> Result<u64, E> {
                Ok(count(&t.a)? + count(&t.b)? + count(&t.c)?)
            }
        },
    );
    let want = quote! {
        fn count(t: &Tree) -> Result<u64, E> {
            #[allow(clippy::too_many_arguments)]
            fn __blitz_count(__blitz_w: &::blitz::__private::Worker, t: &Tree) -> Result<u64, E> {
                Ok({
                    let (__blitz_r0, (__blitz_r1, __blitz_r2)) = match __blitz_w.fork_mode() {
                        ::blitz::__private::ForkMode::Join(__blitz_w) => __blitz_w.join(
                            |__blitz_w| __blitz_count(__blitz_w, &t.a),
                            |__blitz_w| __blitz_w.join(
                            |__blitz_w| __blitz_count(__blitz_w, &t.b),
                            |__blitz_w| __blitz_count(__blitz_w, &t.c)
                            )
                        ),
                        ::blitz::__private::ForkMode::Plain(__blitz_w) => (
                        __blitz_count_plain(__blitz_w, &t.a),
                        (__blitz_count_plain(__blitz_w, &t.b), __blitz_count_plain(__blitz_w, &t.c))
                        ),
                        ::blitz::__private::ForkMode::Serial => (
                        __blitz_count_serial(&t.a),
                        (__blitz_count_serial(&t.b), __blitz_count_serial(&t.c))
                        ),
                    };
                    __blitz_r0? + __blitz_r1? + __blitz_r2?
                })
            }
            #[allow(clippy::too_many_arguments)]
            fn __blitz_count_plain(__blitz_w: ::blitz::__private::WorkRequestPoll<'_>, t: &Tree) -> Result<u64, E> {
                Ok({
                    let (__blitz_r0, (__blitz_r1, __blitz_r2)) = {
                        __blitz_w.poll();
                        (
                            __blitz_count_plain(__blitz_w, &t.a),
                            (__blitz_count_plain(__blitz_w, &t.b), __blitz_count_plain(__blitz_w, &t.c))
                        )
                    };
                    __blitz_r0? + __blitz_r1? + __blitz_r2?
                })
            }
            #[allow(clippy::too_many_arguments, clippy::only_used_in_recursion)]
            fn __blitz_count_serial(t: &Tree) -> Result<u64, E> {
                Ok(__blitz_count_serial(&t.a)? + __blitz_count_serial(&t.b)? + __blitz_count_serial(&t.c)?)
            }
            ::blitz::__private::with_worker(move |__blitz_w| {
                if __blitz_w.num_threads() == 1 { __blitz_count_serial(t) } else { __blitz_count(__blitz_w, t) }
            })
        }
    };
    assert_eq!(
        crate::common::normalize(got),
        crate::common::normalize(want)
    );
}

#[test]
fn fork_join_in_a_loop_gets_the_worker_but_loop_calls_stay_serial() {
    let got = expand_str(
        quote!(),
        quote!(
            fn f(n: u64) -> u64 {
                let mut t = 0;
                for i in 0..n {
                    let (a, b) = fork_join!(f(i), g(i));
                    t += a + b + f(i) + f(i);
                }
                t
            }
        ),
    );
    assert!(
        got.contains("fork_join ! (@ __blitz_worker (__blitz_w) f (i) , g (i) ,)"),
        "{got}"
    );
    assert!(got.contains("t += a + b + f (i) + f (i)"), "{got}");
}

#[test]
fn nested_impl_mentioning_self_keeps_the_free_path() {
    let got = expand_str(
        quote!(),
        quote!(
            fn f(n: u64) -> u64 {
                struct S;
                impl S {
                    fn new() -> Self {
                        S
                    }
                }
                if n < 2 { n } else { f(n - 1) + f(n - 2) }
            }
        ),
    );
    assert!(got.contains("fn __blitz_f"), "{got}");
}

#[test]
fn what_is_applied_to_a_forked_result_runs_after_the_join() {
    let got = expand_str(
        quote!(),
        quote!(
            fn f(n: u64) -> P {
                P {
                    l: f(n - 1).l,
                    r: f(n - 2).r.max(g(n)),
                }
            }
        ),
    );
    let want = quote! {
        fn f(n: u64) -> P {
            #[allow(clippy::too_many_arguments)]
            fn __blitz_f(__blitz_w: &::blitz::__private::Worker, n: u64) -> P {
                {
                    let (__blitz_r0, __blitz_r1) = match __blitz_w.fork_mode() {
                        ::blitz::__private::ForkMode::Join(__blitz_w) => __blitz_w.join(
                            |__blitz_w| __blitz_f(__blitz_w, n - 1),
                            |__blitz_w| __blitz_f(__blitz_w, n - 2),
                        ),
                        ::blitz::__private::ForkMode::Plain(__blitz_w) => (
                            __blitz_f_plain(__blitz_w, n - 1),
                            __blitz_f_plain(__blitz_w, n - 2),
                        ),
                        ::blitz::__private::ForkMode::Serial => (__blitz_f_serial(n - 1), __blitz_f_serial(n - 2)),
                    };
                    P {
                        l: __blitz_r0.l,
                        r: __blitz_r1.r.max(g(n)),
                    }
                }
            }
            #[allow(clippy::too_many_arguments)]
            fn __blitz_f_plain(__blitz_w: ::blitz::__private::WorkRequestPoll<'_>, n: u64) -> P {
                {
                    let (__blitz_r0, __blitz_r1) = {
                        __blitz_w.poll();
                        (
                            __blitz_f_plain(__blitz_w, n - 1),
                            __blitz_f_plain(__blitz_w, n - 2),
                        )
                    };
                    P {
                        l: __blitz_r0.l,
                        r: __blitz_r1.r.max(g(n)),
                    }
                }
            }
            #[allow(clippy::too_many_arguments, clippy::only_used_in_recursion)]
            fn __blitz_f_serial(n: u64) -> P {
                P {
                    l: __blitz_f_serial(n - 1).l,
                    r: __blitz_f_serial(n - 2).r.max(g(n)),
                }
            }
            ::blitz::__private::with_worker(move |__blitz_w| {
                if __blitz_w.num_threads() == 1 {
                    __blitz_f_serial(n)
                } else {
                    __blitz_f(__blitz_w, n)
                }
            })
        }
    };
    assert_eq!(
        crate::common::normalize(got),
        crate::common::normalize(want)
    );
}

// rustfmt would brace the nested closure, which changes the tokens.
#[rustfmt::skip]
#[test]
fn statement_groups_take_the_tail_and_stop_at_a_rebinding() {
    let got = expand_str(
        quote!(),
        quote!(
            fn f(n: u64) -> u64 {
                let a = f(n - 1);
                let a = f(n - 2) + a;
                f(n - 3);
                f(n - 4)
            }
        ),
    );
    let want = quote!(
        fn f(n: u64) -> u64 {
            #[allow(clippy::too_many_arguments)]
            fn __blitz_f(__blitz_w: &::blitz::__private::Worker, n: u64) -> u64 {
                let a = __blitz_f(__blitz_w, n - 1);
                let (__blitz_r0, (__blitz_r1, __blitz_r2)) = match __blitz_w.fork_mode() {
                    ::blitz::__private::ForkMode::Join(__blitz_w) => __blitz_w.join(
                        |__blitz_w| __blitz_f(__blitz_w, n - 2) + a,
                        |__blitz_w| __blitz_w.join(
                        |__blitz_w| __blitz_f(__blitz_w, n - 3),
                        |__blitz_w| __blitz_f(__blitz_w, n - 4),
                    ),
                    ),
                    ::blitz::__private::ForkMode::Plain(__blitz_w) => (
                    __blitz_f_plain(__blitz_w, n - 2) + a,
                    (__blitz_f_plain(__blitz_w, n - 3), __blitz_f_plain(__blitz_w, n - 4))
                    ),
                    ::blitz::__private::ForkMode::Serial => (
                    __blitz_f_serial(n - 2) + a,
                    (__blitz_f_serial(n - 3), __blitz_f_serial(n - 4))
                    ),
                };
                let (a, _) = (__blitz_r0, __blitz_r1);
                __blitz_r2
            }
            #[allow(clippy::too_many_arguments)]
            fn __blitz_f_plain(__blitz_w: ::blitz::__private::WorkRequestPoll<'_>, n: u64) -> u64 {
                let a = __blitz_f_plain(__blitz_w, n - 1);
                let (__blitz_r0, (__blitz_r1, __blitz_r2)) = {
                    __blitz_w.poll();
                    (
                        __blitz_f_plain(__blitz_w, n - 2) + a,
                        (__blitz_f_plain(__blitz_w, n - 3), __blitz_f_plain(__blitz_w, n - 4))
                    )
                };
                let (a, _) = (__blitz_r0, __blitz_r1);
                __blitz_r2
            }
            #[allow(clippy::too_many_arguments, clippy::only_used_in_recursion)]
            fn __blitz_f_serial(n: u64) -> u64 {
                let a = __blitz_f_serial(n - 1);
                let a = __blitz_f_serial(n - 2) + a;
                __blitz_f_serial(n - 3);
                __blitz_f_serial(n - 4)
            }
            ::blitz::__private::with_worker(move |__blitz_w| {
                if __blitz_w.num_threads() == 1 { __blitz_f_serial(n) } else { __blitz_f(__blitz_w, n) }
            })
        }
    );
    assert_eq!(
        crate::common::normalize(got),
        crate::common::normalize(want)
    );
}
