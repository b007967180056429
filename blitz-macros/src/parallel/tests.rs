//! Expansion tests: what `#[parallel]` generates, as normalised token strings.
//!
//! Outside the compiler the enclosing impl of a method cannot be read, so a method without a
//! visibility expands as [`Placement::Detached`] here and one with a visibility as
//! [`Placement::Sibling`].

use proc_macro2::TokenStream;
use quote::quote;

use super::parallel;
use crate::common::normalize;

fn expand_str(args: TokenStream, item: TokenStream) -> String {
    parallel(args, item).unwrap().to_string()
}

fn error(args: TokenStream, item: TokenStream) -> String {
    parallel(args, item).unwrap_err().to_string()
}

/// The three arms of a fork point over the branch text `seq` (sequential form), `plain` (the
/// same with the earlier branches in the sibling context) and `join`.
fn arms(join: TokenStream, seq: TokenStream, plain: TokenStream) -> TokenStream {
    quote! {
        match ::blitz::__private::ForkContext::fork_mode(&__blitz_w) {
            ::blitz::__private::ForkMode::Join(__blitz_w) => #join,
            ::blitz::__private::ForkMode::Plain(__blitz_w) => #plain,
            ::blitz::__private::ForkMode::Serial => {
                let __blitz_w = ::blitz::__private::SerialContext;
                #seq
            }
        }
    }
}

#[test]
fn fib() {
    let got = expand_str(
        quote!(),
        quote! {
            /// Fibonacci.
            pub fn fib(mut n: u64) -> u64 {
                if n < 2 {
                    return n;
                }
                fib(n - 1) + fib(n - 2)
            }
        },
    );
    let fork = arms(
        quote!(__blitz_w.join(
            |__blitz_w| __blitz_fib(__blitz_w, n - 1),
            |__blitz_w| __blitz_fib(__blitz_w, n - 2)
        )),
        quote!((__blitz_fib(__blitz_w, n - 1), __blitz_fib(__blitz_w, n - 2))),
        quote!((
            {
                let __blitz_w = ::blitz::__private::ForkContext::sibling(__blitz_w);
                __blitz_fib(__blitz_w, n - 1)
            },
            __blitz_fib(__blitz_w, n - 2)
        )),
    );
    let want = quote! {
        /// Fibonacci.
        pub fn fib(n: u64) -> u64 {
            #[inline]
            #[allow(
                clippy::too_many_arguments,
                clippy::only_used_in_recursion,
                clippy::borrowed_box,
                clippy::extra_unused_lifetimes,
                clippy::fn_params_excessive_bools,
                clippy::large_types_passed_by_value,
                clippy::mut_mut,
                clippy::needless_lifetimes,
                clippy::ref_option,
                clippy::ref_option_ref,
                clippy::trivially_copy_pass_by_ref,
                clippy::type_complexity
            )]
            fn __blitz_fib<__BlitzCx: ::blitz::__private::ForkContext>(
                __blitz_w: __BlitzCx,
                mut n: u64
            ) -> u64 {
                if n < 2 {
                    return n;
                }
                {
                    #[allow(unused_mut)] let (mut __blitz_r0, mut __blitz_r1) = #fork;
                    __blitz_r0 + __blitz_r1
                }
            }
            ::blitz::__private::with_worker(|__blitz_w| {
                if __blitz_w.num_threads() == 1 {
                    __blitz_fib(::blitz::__private::SerialContext, n)
                } else {
                    __blitz_fib(__blitz_w, n)
                }
            })
        }
    };
    assert_eq!(normalize(got), normalize(want));
}

#[test]
fn errors() {
    let fib = quote!(
        fn fib(n: u64) -> u64 {
            if n < 2 { n } else { fib(n - 1) + fib(n - 2) }
        }
    );
    let on = |item: TokenStream| error(quote!(), item);
    assert!(error(quote!(cutoff = ), fib.clone()).contains("`cutoff =` needs a value"));
    // The suggested fork point takes the method's arguments.
    let single = on(quote!(
        fn get(&self, i: usize) -> u64 {
            match self.kids.first() {
                Some(k) => k.get(i),
                None => 0,
            }
        }
    ));
    assert!(
        single.contains("`left.get(..) + right.get(..)`"),
        "{single}"
    );
    // A `return` inside a statement that recurses points at `let .. else`.
    let early = on(quote!(
        fn f(v: &[u64], budget: u64) -> u64 {
            let a = match budget.checked_sub(1) {
                Some(b) => f(v, b),
                None => return 0,
            };
            let b = f(v, budget);
            a + b
        }
    ));
    assert!(early.contains("else { return .. }"), "{early}");
    assert!(
        on(quote!(
            struct S;
        ))
        .contains("cannot be used on a struct")
    );
    assert!(
        on(quote!(
            let x = f(1) + f(2);
        ))
        .contains("cannot be used on a statement")
    );
    assert!(
        on(quote!(
            async fn f() {}
        ))
        .contains("`async fn`")
    );
    assert!(
        on(quote!(
            const fn f() {}
        ))
        .contains("`const fn`")
    );
    assert!(
        on(quote!(
            extern "C" fn f() {}
        ))
        .contains("`extern` fn")
    );
    assert!(
        on(quote!(
            fn f(n: u64) -> u64 {
                f(n - 1)
            }
        ))
        .contains("no fork point")
    );
    assert!(
        on(quote!(
            fn f(n: u64) -> u64 {
                crate::f(n - 1) + self::f(n - 2)
            }
        ))
        .contains("a path such as `crate::f` may name another fn"),
        "a path-qualified recursive call is named in the message"
    );
    assert!(
        on(quote!(
            fn len(&self) -> usize {
                1 + self.next.len()
            }
        ))
        .contains("left.len()"),
        "a method's message shows a method call"
    );
    assert!(error(quote!(grain = 3), fib.clone()).contains("unknown argument `grain`"));
    assert!(error(quote!(cutoff = true, cutoff = false), fib).contains("duplicate argument"));
    let ret = quote!(
        fn f(n: u64) -> u64 {
            f(if n == 0 { return 0 } else { n }) + f(n - 1)
        }
    );
    assert!(on(ret).contains("`return` cannot leave a forked call"));
    let brk = quote!(
        fn f(n: u64) -> u64 {
            'a: { f({ break 'a 1 }) + f(n) }
        }
    );
    assert!(on(brk).contains("`break` cannot leave a forked call"));
}

#[test]
fn recursion_only_in_closures_and_loops_leaves_the_fn_as_written() {
    let sized = quote! {
        fn size(&self) -> usize {
            let mut n = 1;
            for c in &self.children {
                n += c.size();
            }
            n + self.more.iter().map(|c| c.size()).sum::<usize>()
        }
    };
    assert_eq!(expand_str(quote!(), sized.clone()), sized.to_string());
}

#[test]
fn closures_are_left_alone_and_loop_calls_get_the_context() {
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
    assert!(
        got.contains("for i in 0 .. n { __blitz_f (__blitz_w , i) ; }"),
        "{got}"
    );
}

#[test]
fn method_calls_are_recognised_by_callee_and_redirected_on_places() {
    let got = expand_str(
        quote!(),
        quote! {
            pub fn eval(&self, k: u8) -> i64 {
                match self {
                    Expr::Add(l, r) => l.eval(k) + r.eval(k),
                    Expr::Mul(l, r) => Self::eval(l, k) * Expr::eval(r, k),
                    Expr::Opt(a, b) => a.as_ref().unwrap().eval(k) - (*b).eval(k),
                    Expr::Sum(v) => v.iter().eval(k) + v.first().eval(k),
                    Expr::Neg(e) => -e.eval(k),
                    Expr::Num(n) => n.eval(k, 1) + n.eval::<u8>(k) + n.eval(),
                    Expr::Own(o) => self.own.eval(k) * self.own.eval(k + 1) + o.eval(k),
                    Expr::Me => (*self).eval(k - 1),
                }
            }
        },
    );
    let got = normalize(got);
    // Places: redirected to the copy, with the context.
    for want in [
        quote!(|__blitz_w| l.__blitz_eval(__blitz_w, k)),
        quote!((l.__blitz_eval(__blitz_w, k), r.__blitz_eval(__blitz_w, k))),
        quote!(|__blitz_w| Self::__blitz_eval(l, __blitz_w, k)),
        quote!(a.as_ref().unwrap().__blitz_eval(__blitz_w, k)),
        quote!((*b).__blitz_eval(__blitz_w, k)),
        quote!(|__blitz_w| o.__blitz_eval(__blitz_w, k)),
        // `self` itself: redirected outside a fork too.
        quote!((*self).__blitz_eval(__blitz_w, k - 1)),
        // A place outside a fork's branch, or a field of `self`, may be another type's
        // (a leaf's `Vec`): the call stays as written.
        quote!(-e.eval(k)),
        quote!(|__blitz_w| self.own.eval(k)),
        quote!(|__blitz_w| self.own.eval(k + 1)),
        // Another type's fn, or another receiver: forked as written (a receiver that
        // computes something is computed before the fork and stays a value, `{ v }`).
        quote!(|__blitz_w| Expr::eval(r, k)),
        quote!(match v.iter()),
        quote!(match v.first()),
        quote!(|__blitz_w| { __blitz_v0 }.eval(k)),
        quote!(|__blitz_w| { __blitz_v1 }.eval(k)),
        // Wrong arity or a turbofish on a non-generic fn: not recursive calls.
        quote!(n.eval(k, 1) + n.eval::<u8>(k) + n.eval()),
    ] {
        assert!(got.contains(&normalize(&want)), "{want} not in {got}");
    }
    assert!(got.contains("#[doc(hidden)]"), "{got}");
    assert!(
        got.contains(&normalize(quote!(Self::__blitz_eval(self, __blitz_w, k)))),
        "{got}"
    );
}

#[test]
fn operands_recursing_through_closure_arguments_fork_whole() {
    let got = normalize(expand_str(
        quote!(),
        quote! {
            pub fn sum(&self) -> u64 {
                self.left.as_ref().map_or(0, |l| l.sum()) + self.right.as_ref().map_or(0, |r| r.sum())
            }
        },
    ));
    // The calls inside the closures stay as written: the closures may run anywhere.
    let want = quote!(|__blitz_w| self.left.as_ref().map_or(0, |l| l.sum()));
    assert!(got.contains(&normalize(&want)), "{got}");
}

#[test]
fn a_method_whose_impl_is_unknown_forks_without_a_copy() {
    let got = normalize(expand_str(
        quote!(),
        quote! {
            fn count(&self, d: u32) -> u64 {
                if d == 0 {
                    return 1;
                }
                self.count(d - 1) + self.count(d - 1)
            }
        },
    ));
    assert!(!got.contains("__blitz_count"), "{got}");
    assert!(
        got.contains("::blitz::__private::with_worker(|__blitz_w|->u64{"),
        "{got}"
    );
    assert!(
        got.contains(&normalize(quote!((self.count(d - 1), self.count(d - 1))))),
        "{got}"
    );
}

#[test]
fn sibling_copy_of_a_generic_method_with_cutoff() {
    let got = normalize(expand_str(
        quote!(cutoff = depth < 8, crate = ::my_blitz),
        quote! {
            pub(crate) fn sum<U: Into<u64>>(&self, depth: u32, extra: impl Fn() -> U) -> u64 {
                self.left.sum(depth + 1, &extra) + self.right.sum(depth + 1, &extra)
            }
        },
    ));
    for want in [
        // The wrapper names the copy's type parameters.
        quote!(Self::__blitz_sum::<U, _, _>(self, __blitz_w, depth, extra)),
        quote!(fn __blitz_sum<U: Into<u64>, __BlitzImpl0: Fn() -> U, __BlitzCx: ::my_blitz::__private::ForkContext>(
            &self, __blitz_w: __BlitzCx, depth: u32, extra: __BlitzImpl0) -> u64),
        // Under the cutoff, the same body with the serial context.
    ] {
        assert!(got.contains(&normalize(&want)), "{want} not in {got}");
    }
    assert!(
        got.contains("if__blitz_cut{let__blitz_w=::my_blitz::__private::SerialContext;"),
        "{got}"
    );
}

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
    let fork = arms(
        quote!(__blitz_w.join(
            |__blitz_w| __blitz_f(__blitz_w, n - 3),
            |__blitz_w| __blitz_f(__blitz_w, n - 4)
        )),
        quote!((__blitz_f(__blitz_w, n - 3), __blitz_f(__blitz_w, n - 4))),
        quote!((
            {
                let __blitz_w = ::blitz::__private::ForkContext::sibling(__blitz_w);
                __blitz_f(__blitz_w, n - 3)
            },
            __blitz_f(__blitz_w, n - 4)
        )),
    );
    // The second statement rebinds `a` and reads it: its call joins the first, and the run
    // ends with it.
    let first = arms(
        quote!(__blitz_w.join(
            |__blitz_w| __blitz_f(__blitz_w, n - 1),
            |__blitz_w| __blitz_f(__blitz_w, n - 2)
        )),
        quote!((__blitz_f(__blitz_w, n - 1), __blitz_f(__blitz_w, n - 2))),
        quote!((
            {
                let __blitz_w = ::blitz::__private::ForkContext::sibling(__blitz_w);
                __blitz_f(__blitz_w, n - 1)
            },
            __blitz_f(__blitz_w, n - 2)
        )),
    );
    let want = quote!(
        #[allow(unused_mut)] let (mut __blitz_r0, mut __blitz_r1) = #first;
        #[allow(unused_mut)] let (a, mut __blitz_d0,) = (__blitz_r0, __blitz_r1,);
        let a = __blitz_d0 + a;
        #[allow(unused_mut)] let (mut __blitz_r0, mut __blitz_r1) = #fork;
        let (_,) = (__blitz_r0,);
        __blitz_r1
    );
    let got = normalize(got);
    assert!(got.contains(&normalize(want)), "{got}");
}

#[test]
fn a_binding_named_in_a_format_string_ends_the_run() {
    // `{a}` reads the `a` bound by the statement before: the second call cannot join the run,
    // or it would read an outer `a` (or none). They were the only candidates.
    let got = error(
        quote!(),
        quote!(
            fn f(n: u64) -> u64 {
                let a = f(n - 1);
                let b = f(format!("{a:>width$}", width = 3).len() as u64);
                a + b
            }
        ),
    );
    assert!(got.contains("no fork point"), "{got}");
    // Beside the call, the format runs after the join, where `a` is the run's result.
    let got = normalize(expand_str(
        quote!(),
        quote!(
            fn f(n: u64) -> u64 {
                let a = f(n - 1);
                let b = f(n - 2) + format!("{a:>width$}", width = 3).len() as u64;
                a + b
            }
        ),
    ));
    let want = quote!(let b = __blitz_d0 + format!("{a:>width$}", width = 3).len() as u64;);
    assert!(got.contains(&normalize(want)), "{got}");
    // The same word outside braces is text, not a use: the statements fork whole.
    let got = normalize(expand_str(
        quote!(),
        quote!(
            fn f(n: u64) -> u64 {
                let a = f(n);
                let b = f(n - 2) + "a".len() as u64;
                a + b
            }
        ),
    ));
    assert!(
        got.contains(r#"|__blitz_w|__blitz_f(__blitz_w,n-2)+"a".len()asu64"#),
        "{got}"
    );
}

#[test]
fn typed_lets_and_try_apply_after_the_join() {
    let got = normalize(expand_str(
        quote!(),
        quote!(
            fn count(t: &Tree) -> Result<u64, E> {
                let a: u64 = count(&t.l)?;
                let b: u64 = count(&t.r)?;
                Ok(a + b)
            }
        ),
    ));
    for want in [
        quote!(let (a, b,): (u64, u64,) = (__blitz_r0?, __blitz_r1?,);),
        quote!(|__blitz_w| __blitz_count(__blitz_w, &t.l)),
    ] {
        assert!(got.contains(&normalize(&want)), "{want} not in {got}");
    }
}

#[test]
fn what_is_applied_to_a_forked_result_runs_after_the_join() {
    let got = normalize(expand_str(
        quote!(),
        quote!(
            fn f(n: u64) -> P {
                P {
                    x: f(n - 1).x + f(n - 2).y as u64,
                }
            }
        ),
    ));
    assert!(got.contains("};__blitz_r0.x+__blitz_r1.yasu64}}"), "{got}");
}

#[test]
fn fork_join_inside_follows_the_context() {
    let got = normalize(expand_str(
        quote!(),
        quote!(
            fn f(n: u64) -> u64 {
                blitz::fork_join!(a = f(n - 1), b = g(n));
                a + b
            }
        ),
    ));
    assert!(
        got.contains(&normalize(
            quote!(@__blitz_worker(__blitz_w) a = __blitz_f(__blitz_w, n - 1))
        )),
        "{got}"
    );
}

#[test]
fn calls_sharing_an_exclusive_place_run_as_written() {
    // A `&mut` parameter passed to both calls, `&mut self` as both receivers, one local
    // borrowed `&mut` by both, and statements that share a `&mut` parameter: sequentially each
    // borrow ends before the next call, but a join's closures would hold them at once.
    for item in [
        quote!(
            fn f(n: u64, count: &mut u64) -> u64 {
                *count += 1;
                f(n - 1, count) + f(n - 2, count)
            }
        ),
        quote!(
            fn f(&mut self, n: u64) -> u64 {
                self.calls += 1;
                self.f(n - 1) + self.f(n - 2)
            }
        ),
        quote!(
            fn f(n: u64, log: &mut Vec<u64>) -> u64 {
                let a = f(n - 1, log);
                let b = f(n - 2, &mut *log);
                a + b
            }
        ),
        quote!(
            fn f(n: u64, buf: &mut [u64]) -> u64 {
                let a = f(n - 1, &mut buf[..1]);
                let b = f(n - 2, &mut buf[1..]);
                a + b
            }
        ),
    ] {
        assert_eq!(expand_str(quote!(), item.clone()), item.to_string());
    }
    let shared_local = quote!(
        fn f(n: u64) -> u64 {
            let mut seen = Vec::new();
            f(n - 1, &mut seen) + f(n - 2, &mut seen)
        }
    );
    assert_eq!(
        expand_str(quote!(), shared_local.clone()),
        shared_local.to_string()
    );
}

#[test]
fn calls_on_disjoint_places_of_an_exclusive_parameter_still_fork() {
    // `&mut self` recursing into two different fields, and `&mut` halves split off a `&mut`
    // parameter: each branch holds its own place.
    let fields = expand_str(
        quote!(),
        quote!(
            pub fn f(&mut self) -> u64 {
                self.left.f() + self.right.f()
            }
        ),
    );
    assert!(fields.contains("join"), "{fields}");
    let halves = expand_str(
        quote!(),
        quote!(
            fn sort(v: &mut [u32], buf: &mut [u32]) {
                let (l, r) = v.split_at_mut(v.len() / 2);
                let (bl, br) = buf.split_at_mut(l.len());
                sort(l, bl);
                sort(r, br);
                merge(v, buf);
            }
        ),
    );
    assert!(halves.contains("join"), "{halves}");
    let reads = expand_str(
        quote!(),
        quote!(
            fn f(&mut self, n: u64) -> u64 {
                self.left.f(n + self.depth) + self.right.f(n + self.depth)
            }
        ),
    );
    assert!(reads.contains("join"), "{reads}");
    let statements = expand_str(
        quote!(),
        quote!(
            pub fn f(&mut self, k: u64) -> u64 {
                self.v += k;
                let l = match &mut self.left {
                    Some(t) => t.f(k),
                    None => 0,
                };
                let r = match &mut self.right {
                    Some(t) => t.f(k),
                    None => 0,
                };
                l + r + self.v
            }
        ),
    );
    assert!(statements.contains("join"), "{statements}");
    // But not when both branches change the same field.
    let same_field = quote!(
        fn f(&mut self, k: u64) -> u64 {
            let l = match &mut self.left {
                Some(t) => t.f(k),
                None => 0,
            };
            let r = match &mut self.left {
                Some(t) => t.f(k + 1),
                None => 0,
            };
            l + r
        }
    );
    assert_eq!(
        expand_str(quote!(), same_field.clone()),
        same_field.to_string()
    );
}

#[test]
fn operand_between_calls_that_changes_what_a_call_reads_keeps_them_in_order() {
    let got = expand_str(
        quote!(),
        quote! {
            fn t(n: u64) -> u64 {
                if n < 2 {
                    return n;
                }
                let mut i = 1;
                let (a, _, b) = (t(n - i), { i += 1; i }, t(n - i));
                a + b
            }
        },
    );
    assert!(!got.contains("join"), "{got}");
    let got = expand_str(
        quote!(),
        quote! {
            fn g(n: u64, st: &mut Vec<u64>) -> u64 {
                if n < 2 {
                    return n;
                }
                g(st.len() as u64, &mut Vec::new()) + st.pop().unwrap() + g(st.len() as u64, &mut Vec::new())
            }
        },
    );
    assert!(!got.contains("join"), "{got}");
}

#[test]
fn operand_between_calls_that_only_reads_still_forks() {
    let got = expand_str(
        quote!(),
        quote! {
            fn f(n: u64) -> u64 {
                if n < 2 {
                    return n;
                }
                f(n - 1) + n * 2 + f(n - 2)
            }
        },
    );
    assert!(got.contains("join"), "{got}");
}

#[test]
fn a_mut_local_passed_to_two_calls_keeps_them_in_order() {
    let got = expand_str(
        quote!(),
        quote! {
            fn add_into(src: &[u64], dst: &mut [u64]) {
                if src.len() <= 2 {
                    return;
                }
                let (s1, s2) = src.split_at(src.len() / 2);
                let (d1, d2) = dst.split_at_mut(dst.len() / 2);
                add_into(s1, d1);
                add_into(s1, d1);
                add_into(s2, d2);
            }
        },
    );
    // One fork: the second and third calls; the first runs before them.
    assert_eq!(got.matches(". join (").count(), 1, "{got}");
    let first = got
        .find("add_into (__blitz_w , s1 , d1)")
        .expect("first call");
    let fork = got.find(". join (").expect("fork");
    assert!(first < fork, "{got}");
}

#[test]
fn a_statement_using_an_earlier_result_forks_its_independent_call() {
    let got = normalize(expand_str(
        quote!(),
        quote!(
            fn f(n: u64) -> u64 {
                let x = f(n - 1);
                x + f(n - 2)
            }
        ),
    ));
    let want = quote!(__blitz_w.join(
        |__blitz_w| __blitz_f(__blitz_w, n - 1),
        |__blitz_w| __blitz_f(__blitz_w, n - 2)
    ));
    assert!(got.contains(&normalize(want)), "{got}");
    let want = quote!(
        #[allow(unused_mut)] let (x, mut __blitz_d0,) = (__blitz_r0, __blitz_r1,);
        x + __blitz_d0
    );
    assert!(got.contains(&normalize(want)), "{got}");
    // The calls of a `return`, a `?` on a result of the run, a call passed a closure, a
    // shadowing `let`: each joins the run, what uses the results stays after the join.
    for (body, after) in [
        (
            quote!(let a = f(n - 1); return a + f(n - 2);),
            quote!(return a + __blitz_d0;),
        ),
        (
            quote!(let a = f(n - 1); let a = a * 2 + f(n - 2); a),
            quote!(let a = a * 2 + __blitz_d0; a),
        ),
        (
            quote!(let a = f(n - 1); a.max(v.iter().map(|c| f(*c)).sum())),
            quote!(a.max(__blitz_d0)),
        ),
    ] {
        let got = normalize(expand_str(quote!(), quote!(fn f(n: u64) -> u64 { #body })));
        assert_eq!(got.matches(".join(").count(), 1, "{got}");
        assert!(got.contains(&normalize(&after)), "{after} not in {got}");
    }
    let got = normalize(expand_str(
        quote!(),
        quote!(
            fn f(n: u64) -> Result<u64, E> {
                let a = f(n - 1)?;
                Ok(a? + f(n - 2)? + f(n - 3)?)
            }
        ),
    ));
    assert_eq!(got.matches(".join(").count(), 2, "{got}");
    let want = quote!(Ok(a? + __blitz_d0? + __blitz_d1?));
    assert!(got.contains(&normalize(&want)), "{got}");
}

#[test]
fn a_dependent_statement_keeps_calls_whose_order_matters() {
    for body in [
        // The call's argument uses the result.
        quote!(let a = f(n - 1); f(n - 2 - a % 2) + a),
        // What is evaluated before the call changes what it reads, or the call's argument
        // changes what is read before it.
        quote!(let a = f(n - 1); let mut i = 1; let b = { i += 1; a } + f(n - i); b),
        quote!(let a = f(n - 1); q[0] + a + f(q.remove(0))),
        // The call may move what is read before it.
        quote!(let a = f(n - 1); s.0 + a + f(s)),
        // A `?` or a `return` before the call may mean it never runs.
        quote!(let a = f(n - 1); g(a)? + f(n - 2)),
        quote!(let a = f(n - 1); (if a > 3 { return 0 } else { a }) + f(n - 2)),
        // A call in a branch may not run; one through a closure that reads the result must
        // wait for it.
        quote!(let a = f(n - 1); if a > 3 { f(n - 2) } else { a }),
        quote!(let a = f(n - 1); a + v.iter().map(|c| f(*c + a)).sum::<u64>()),
    ] {
        // No fork: an error says so, or the fn is kept as written (its only other recursive
        // call is in a closure).
        match parallel(quote!(), quote!(fn f(n: u64) -> u64 { #body })) {
            Ok(got) => assert!(!got.to_string().contains("join"), "{body}: {got}"),
            Err(e) => assert!(e.to_string().contains("no fork point"), "{body}: {e}"),
        }
    }
    // The error says what holds the call back.
    for (body, why) in [
        (
            quote!(let a = f(n - 1); f(n - 2 - a) + a),
            "this statement uses `a`",
        ),
        (
            quote!(let a = f(n - 1); g(a)? + f(n - 2)),
            "may leave first",
        ),
        (
            quote!(let a = f(n - 1); s.0 + a + f(s)),
            "the call may move it",
        ),
    ] {
        let got = error(quote!(), quote!(fn f(n: u64) -> u64 { #body }));
        assert!(got.contains(why), "{body}: {got}");
    }
}

#[test]
fn an_assignment_borrowing_a_result_borrows_after_the_join() {
    let got = normalize(expand_str(
        quote!(),
        quote!(
            fn f(n: u64) -> String {
                let mut s = String::new();
                s += &f(n - 1);
                s += f(n - 2).as_str();
                s
            }
        ),
    ));
    let want = quote!(s += &__blitz_r0; s += __blitz_r1.as_str(););
    assert!(got.contains(&normalize(want)), "{got}");
    assert!(got.contains(".join("), "{got}");
}

#[test]
fn a_dependent_call_sharing_a_mut_parameter_runs_as_written() {
    // As `let a = ..; let b = ..;` with the same calls would: no fork, and no error.
    let got = expand_str(
        quote!(),
        quote!(
            fn cnt(n: u64, c: &mut u64) -> u64 {
                *c += 1;
                if n < 2 {
                    return n;
                }
                let a = cnt(n - 1, c);
                a + cnt(n - 2, c)
            }
        ),
    );
    assert!(!got.contains("join"), "{got}");
}

#[test]
fn a_parenthesized_fork_with_an_operator_stays_an_operand_in_a_plain_branch() {
    // The inner fork's block, cast, is the earlier branch of the statements' fork: its plain
    // arm puts it after a `let`, where unparenthesized it would end at its `}`.
    let got = normalize(expand_str(
        quote!(),
        quote! {
            fn f(n: u64) -> u64 {
                let b = (f(n - 1) < f(n - 2)) as u64;
                b + f(n - 1)
            }
        },
    ));
    assert!(
        got.contains("sibling(__blitz_w);({#[allow(unused_mut)]"),
        "{got}"
    );
}

#[test]
fn effects_through_fn_calls_and_macros_keep_statements_in_order() {
    let forks = |body: TokenStream| {
        let got = expand_str(
            quote!(),
            quote! {
                fn f(n: u64, c: &Counter) -> u64 {
                    if n < 2 {
                        return n;
                    }
                    #body
                }
            },
        );
        got.contains("join")
    };
    // `bump(c)` may change `c` through a shared reference (an atomic, a cell); `bump!(k)` may
    // assign `k`. Each runs before its statement's call, which the other call must not see.
    assert!(!forks(
        quote!(let a = f(n - 1, c); let b = { bump(c); f(n - 2, c) }; a + b)
    ));
    assert!(!forks(
        quote!(let a = f(n - 1, c); let b = { bump(&c.count); f(n - 2, c) }; a + b)
    ));
    assert!(!forks(quote!(
        let mut k = n; let a = f(k - 1, c); let b = { bump!(k); f(k - 2, c) }; a + b
    )));
    // What only reads still forks: a call whose value is used, std's formatting macros.
    assert!(forks(
        quote!(let a = f(n - 1, c); let b = { let m = half(c); f(m, c) }; a + b)
    ));
    assert!(forks(quote!(
        let a = f(n - 1, c); let b = { println!("{n} {c:?}"); f(n - 2, c) }; a + b
    )));
    assert!(forks(quote!(
        let a = f(n - 1, c); let b = { assert!(check(c), "{c:?}"); f(n - 2, c) }; a + b
    )));
}

#[test]
fn a_call_wrapped_in_a_path_call_forks_and_the_wrapper_runs_after_the_join() {
    let got = normalize(expand_str(
        quote!(),
        quote! {
            fn build(d: u32) -> Result<Tree, E> {
                if d == 0 {
                    return Ok(Tree::Leaf);
                }
                let l = Box::new(build(d - 1)?);
                let r: Box<Tree> = Box::new(build(d - 1)?);
                Ok(Tree::Node(l, r, Some(Arc::new(build(d - 1)?)), Box::new(build(d - 1)?)))
            }
        },
    ));
    // The calls fork (the tail's join the statements' run), and the wrappers and `?` follow
    // in source order.
    let want = quote! {
        #[allow(unused_mut)] let (l, r, mut __blitz_d0, mut __blitz_d1): (_, Box<Tree>, _, _) =
            (Box::new(__blitz_r0?), Box::new(__blitz_r1?), __blitz_r2, __blitz_r3);
        Ok(Tree::Node(l, r, Some(Arc::new(__blitz_d0?)), Box::new(__blitz_d1?)))
    };
    assert!(got.contains(&normalize(&want)), "{want} not in {got}");
    // Operands alone, through nested wrappers.
    let got = normalize(expand_str(
        quote!(),
        quote! {
            fn build(d: u32) -> Option<Tree> {
                if d == 0 {
                    return None;
                }
                Some(Tree::Node(Some(Arc::new(build(d - 1)?)), Box::new(build(d - 1)?)))
            }
        },
    ));
    let want = quote!(Tree::Node(
        Some(Arc::new(__blitz_r0?)),
        Box::new(__blitz_r1?)
    ));
    assert!(got.contains(&normalize(&want)), "{want} not in {got}");
    // Without a `?`, a wrapper forks with its call: `expensive(f(x))` stays parallel.
    let got = normalize(expand_str(
        quote!(),
        quote! {
            fn f(d: u32) -> u64 {
                if d == 0 {
                    return 1;
                }
                digest(f(d - 1)) ^ digest(f(d - 2))
            }
        },
    ));
    let want = quote!(|__blitz_w| digest(__blitz_f(__blitz_w, d - 1)));
    assert!(got.contains(&normalize(&want)), "{want} not in {got}");
    // A wrapper whose other arguments compute something is not looked through: those would
    // run after the call instead of before it.
    let err = error(
        quote!(),
        quote! {
            fn build(d: u32) -> Result<Tree, E> {
                if d == 0 {
                    return Ok(Tree::Leaf);
                }
                Ok(Tree::Node(Node::new(next_id(), build(d - 1)?), Box::new(build(d - 1)?)))
            }
        },
    );
    assert!(
        err.contains("`?` cannot be used inside a forked call"),
        "{err}"
    );
}

#[test]
fn a_call_between_forked_calls_keeps_them_in_order_if_it_may_change_what_they_use() {
    let forks = |item: TokenStream| expand_str(quote!(), item).contains("fork_mode");
    // Given a place the calls use, or changing global state: kept in order.
    assert!(!forks(quote! {
        fn f(d: u32, c: &AtomicU64) -> u64 { f(d - 1, c) + bump(c) + f(d - 1, c) }
    }));
    assert!(!forks(quote! {
        fn f(d: u32) -> u64 { f(d - 1) + tick() + f(d - 1) }
    }));
    assert!(!forks(quote! {
        fn f(d: u32, c: &AtomicU64) -> u64 {
            let x = f(d - 1, c);
            c.fetch_add(10, SeqCst);
            x * 100 + f(d - 1, c)
        }
    }));
    assert!(!forks(quote! {
        fn f(d: u32) -> u64 {
            let x = f(d - 1);
            COUNTER.fetch_add(1, SeqCst);
            x + f(d - 1)
        }
    }));
    // Given nothing they use, or computed before them: they fork.
    assert!(forks(quote! {
        fn f(d: u32, k: u64) -> u64 { let j = k + 1; f(d - 1, k) + cost(j) + f(d - 1, k) }
    }));
    assert!(forks(quote! {
        fn sum(n: &Node) -> u64 { weight(n) + sum(&n.left) + sum(&n.right) }
    }));
    assert!(forks(quote! {
        fn sum(v: &[u64]) -> u64 {
            let mid = v.len() / 2;
            let a = sum(&v[..mid]);
            let after = mid + 1;
            let b = sum(&v[mid..]);
            a + b + after as u64
        }
    }));
}
