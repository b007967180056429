//! Expansion tests of the ordering rules: calls that share an exclusive place, results a
//! statement depends on, and calls between forked calls that may change what they use, keep
//! the order they were written in; calls on disjoint places still fork.

use proc_macro2::TokenStream;
use quote::quote;

use super::{error, expand_str, parallel};
use crate::common::normalize;

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
