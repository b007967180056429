//! Expansion tests: what `#[parallel]` generates, as normalised token strings.
//!
//! Outside the compiler the enclosing impl of a method cannot be read, so a method without a
//! visibility expands as [`Placement::Detached`] here and one with a visibility as
//! [`Placement::Sibling`].

use proc_macro2::TokenStream;
use quote::quote;

use super::parallel;
use crate::common::normalize;

mod ordering;

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
    // A place other than `self` may be another type's with a same-named method: a probe
    // picks the copy, with the context, or the call as written, by the receiver's type.
    let probed = |receiver: TokenStream| {
        quote! {
            match {
                #[allow(unused_imports)]
                use ::blitz::__private::{IntoProbe as _, ViaOther as _, ViaOwn as _};
                #receiver.__blitz_probe::<Self>().__blitz_which()
            } {
                #[allow(unreachable_patterns, unreachable_code)]
                ::blitz::__private::Which::Own(__blitz_own, __blitz_same) =>
                    __blitz_same.__blitz_same(__blitz_own.__blitz_eval(__blitz_w, k)),
                ::blitz::__private::Which::Other(_) => #receiver.eval(k),
            }
        }
    };
    let (l, r, o) = (probed(quote!(l)), probed(quote!(r)), probed(quote!(o)));
    for want in [
        quote!(|__blitz_w| #l),
        quote!((#l, #r)),
        quote!(|__blitz_w| Self::__blitz_eval(l, __blitz_w, k)),
        probed(quote!(a.as_ref().unwrap())),
        probed(quote!((*b))),
        quote!(|__blitz_w| #o),
        // `self` itself: redirected outside a fork too.
        quote!((*self).__blitz_eval(__blitz_w, k - 1)),
        // So is a field of `self` (it holds `Self` only behind a pointer, if at all).
        probed(quote!(self.own)),
        // An argument other than a binding passes through `same` in the copy's arm, where
        // a receiver of another type would give it the type the copy takes.
        quote!(__blitz_own.__blitz_eval(__blitz_w, __blitz_same.__blitz_arg(k + 1))),
        quote!(::blitz::__private::Which::Other(_) => self.own.eval(k + 1)),
        // A place outside a fork's branch may be another type's (a leaf's `Vec`) and is not
        // worth a probe: the call stays as written.
        quote!(-e.eval(k)),
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
fn calls_on_places_of_a_by_value_receiver_fn_are_redirected_directly() {
    let got = normalize(expand_str(
        quote!(),
        quote! {
            pub fn eval(self, k: u8) -> i64 {
                match self {
                    Expr::Add(l, r) => l.eval(k) + r.eval(k),
                    Expr::Num(n) => n,
                }
            }
        },
    ));
    let want = quote!((l.__blitz_eval(__blitz_w, k), r.__blitz_eval(__blitz_w, k)));
    assert!(got.contains(&normalize(&want)), "{want} not in {got}");
    assert!(!got.contains("__blitz_probe"), "{got}");
}

#[test]
fn probed_calls_evaluate_their_arguments_in_each_arm() {
    // Each arm gives a closure its parameter types and an `&mut` its reborrow. A `&mut self`
    // fn whose argument names the receiver is redirected directly: the probe would hold the
    // receiver's exclusive borrow while the argument reads it.
    let got = normalize(expand_str(
        quote!(),
        quote! {
            pub fn walk(&mut self, f: &impl Fn(u8) -> u8, k: u8) -> i64 {
                match self {
                    Expr::Map(l, r) => l.walk(&|x| x + k, k) + r.walk(f, k),
                    Expr::Pair(l, r) => l.walk(f, l.k) + r.walk(f, k),
                    Expr::Num(n) => n,
                }
            }
        },
    ));
    for want in [
        quote!(__blitz_own.__blitz_walk(__blitz_w, &|x| x + k, k)),
        // Through the exclusive probe's borrow: a second one would conflict with it.
        quote!((*__blitz_other).walk(&|x| x + k, k)),
        quote!(::blitz::__private::{IntoProbe as _, ViaOtherMut as _, ViaOwnMut as _}),
        quote!(r.__blitz_probe_mut::<Self>()),
        quote!(l.__blitz_walk(__blitz_w, f, l.k)),
    ] {
        assert!(got.contains(&normalize(&want)), "{want} not in {got}");
    }
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
