//! Expansion and error tests of `par_for!`.

use quote::quote;

use super::*;

fn error(input: TokenStream) -> String {
    par_for(input).unwrap_err().to_string()
}

#[test]
fn plain_loop_over_a_range() {
    let got = par_for(quote!(i in 0..n => out[i].store(i)))
        .unwrap()
        .to_string();
    let want = quote!({
        ::blitz::__private::for_each_piece(0..n, 0usize, |__blitz_piece| {
            for i in __blitz_piece {
                out[i].store(i)
            }
        });
    });
    assert_eq!(
        crate::common::normalize(got),
        crate::common::normalize(want)
    );
}

#[test]
fn block_body_and_grain() {
    let got = par_for(quote!(x in &mut v, grain = 64 => { *x *= 2; }))
        .unwrap()
        .to_string();
    let want = quote!({
        ::blitz::__private::for_each_piece(
            &mut v,
            {
                let __blitz_grain: usize = 64;
                __blitz_grain
            },
            |__blitz_piece| {
                for x in __blitz_piece {
                    *x *= 2;
                }
            },
        );
    });
    assert_eq!(
        crate::common::normalize(got),
        crate::common::normalize(want)
    );
}

#[test]
fn reduce_gives_private_accumulators() {
    let got = par_for(quote!(i in 0..n, reduce(+: sum), reduce(max: hi) => {
        sum += i;
        hi = hi.max(i);
    }))
    .unwrap()
    .to_string();
    let p = quote!(::blitz::__private);
    let want = quote!({
        match (0..n, 0usize) {
            (__blitz_source, __blitz_grain) => {
                let (__blitz_t0, __blitz_id0, __blitz_op0) =
                    #p::reduce::ops(&mut sum, #p::reduce::Add);
                let (__blitz_t1, __blitz_id1, __blitz_op1) =
                    #p::reduce::ops(&mut hi, #p::reduce::Max);
                let (__blitz_a0, __blitz_a1,) = #p::reduce_pieces(
                    __blitz_source,
                    __blitz_grain,
                    |__blitz_piece| {
                        #[allow(unused_mut, clippy::shadow_unrelated)]
                        let mut sum = __blitz_id0();
                        #[allow(unused_mut, clippy::shadow_unrelated)]
                        let mut hi = __blitz_id1();
                        for i in __blitz_piece { sum += i; hi = hi.max(i); }
                        (sum, hi,)
                    },
                    |__blitz_x, __blitz_y| (
                        __blitz_op0(__blitz_x.0, __blitz_y.0),
                        __blitz_op1(__blitz_x.1, __blitz_y.1),
                    ),
                );
                *__blitz_t0 = __blitz_op0(*__blitz_t0, __blitz_a0);
                *__blitz_t1 = __blitz_op1(*__blitz_t1, __blitz_a1);
            }
        }
    });
    assert_eq!(
        crate::common::normalize(got),
        crate::common::normalize(want)
    );
}

#[test]
fn method_sources_are_rewritten() {
    let got = par_for(quote!(c in v.chunks(4) => f(c)))
        .unwrap()
        .to_string();
    assert!(
        got.contains(":: blitz :: __private :: chunks (:: core :: convert :: AsRef :: < [_] > :: as_ref (& (v)) , 4)"),
        "{got}"
    );
    let got = par_for(quote!(c in self.v.chunks_mut(k) => f(c)))
        .unwrap()
        .to_string();
    assert!(
        got.contains("chunks_mut (& mut (self . v) [..] , k)"),
        "{got}"
    );
    // `iter` and `iter_mut` are the collection's parallel iterator, whatever the collection
    // (a slice, a `VecDeque`, a `HashMap`).
    let got = par_for(quote!(x in v.iter() => f(x))).unwrap().to_string();
    assert!(got.contains("(v . par_iter () , 0usize)"), "{got}");
    let got = par_for(quote!(x in self.v.iter_mut() => f(x)))
        .unwrap()
        .to_string();
    assert!(got.contains("self . v . par_iter_mut ()"), "{got}");
    let got = par_for(quote!((i, x) in v.iter().enumerate() => f(i, x)))
        .unwrap()
        .to_string();
    assert!(got.contains("v . par_iter () . enumerate ()"), "{got}");
    // Chains of std iterator methods become the parallel iterator's.
    let got = par_for(quote!((a, b) in v.iter().zip(w.iter()).rev() => f(a, b)))
        .unwrap()
        .to_string();
    assert!(
        got.contains("v . par_iter () . zip (w . par_iter ()) . rev ()"),
        "{got}"
    );
    assert!(got.contains("ParallelIterator :: for_each"), "{got}");
    let got = par_for(quote!(i in (0..n).step_by(2), reduce(+: s) => s += i))
        .unwrap()
        .to_string();
    assert!(
        got.contains("__private :: par_iter (0 .. n) . step_by (2)"),
        "{got}"
    );
    assert!(got.contains("ParallelIterator :: fold"), "{got}");
    let got = par_for(quote!(x in v.into_iter().flat_map(g) => f(x)))
        .unwrap()
        .to_string();
    assert!(
        got.contains("v . into_par_iter () . flat_map_iter (g)"),
        "{got}"
    );
    let got = par_for(quote!(crate = ::b2, i in 0..=n => f(i)))
        .unwrap()
        .to_string();
    assert!(
        got.contains(":: b2 :: __private :: for_each_piece (0 ..= n"),
        "{got}"
    );
}

#[test]
fn errors() {
    assert!(error(quote!(i 0..n => f(i))).contains("expected `in`"));
    assert!(error(quote!(i in 0..n { f(i) })).contains("expected `=>`"));
    assert!(error(quote!(=> f())).contains("expected the loop's pattern and source"));
    assert!(error(quote!(i in 0..n =>)).contains("expected the loop body after `=>`"));
    assert!(error(quote!(i in 0..n, reduce() => f(i))).contains("`reduce` needs an operator"));
    let missing_comma = error(quote!(i in 0..n, reduce(+: s) reduce(max: m) => s += i));
    assert!(
        missing_comma.contains("expected `,` before this clause"),
        "{missing_comma}"
    );
    let missing_comma = error(quote!(i in 0..n grain = 8 => f(i)));
    assert!(
        missing_comma.contains("expected `,` before this clause"),
        "{missing_comma}"
    );
    assert!(
        error(quote!(x in v.iter().peekable() => f(x)))
            .contains("unsupported `par_for!` source `.peekable(..)`")
    );
    assert!(error(quote!(x in it.map(g) => f(x))).contains("`.map(..)`"));
    assert!(error(quote!(i in ..10 => f(i))).contains("write `0..10`"));
    assert!(error(quote!(i in ..=n => f(i))).contains("write `0..=n`"));
    assert!(error(quote!(i in ..v.len() => f(i))).contains("write `0..end`"));
    assert!(error(quote!(i in (3..).rev() => f(i))).contains("needs an end"));
    assert!(error(quote!(i in .. => f(i))).contains("a start and an end"));
    assert!(par_for(quote!(i in (0..n).rev() => f(i))).is_ok());
    assert!(
        error(quote!(i in 0..n => out[i] = i)).contains("cannot assign to an element of `out`")
    );
    assert!(error(quote!(i in 0..n => s.total += i)).contains("a field of `s`"));
    // Bound in the body: its own.
    assert!(par_for(quote!(i in 0..n => { let mut a = [0; 2]; a[0] = i; })).is_ok());
    assert!(error(quote!(i in 0..n => if i > 3 { break })).contains("`break`"));
    assert!(error(quote!(i in 0..n => return)).contains("`return`"));
    assert!(error(quote!(i in 0..n => f(i)?)).contains("`?`"));
    assert!(error(quote!(i in 0..n => f(i).await)).contains("`.await`"));
    assert!(
        error(quote!(i in 0..n, reduce(-: s) => s -= i)).contains("unknown reduce operator `-`")
    );
    assert!(error(quote!(i in 0..n, reduce(+: self.s) => s += i)).contains("mutable local"));
    assert!(error(quote!(i in 0..n => total += i)).contains("reduce(+: total)"));
    assert!(error(quote!(i in 0..n, reduce(+: s), reduce(*: s) => s += i)).contains("already"));
}

#[test]
fn allowed_bodies() {
    assert!(par_for(quote!(i in 0..n => { if i % 2 == 0 { continue; } f(i) })).is_ok());
    assert!(par_for(quote!(i in 0..n => { let mut c = 0; for j in 0..i { if j > 3 { break; } c += j; } g(c) })).is_ok());
    assert!(par_for(quote!(i in 0..n => { let f = || { return 1; }; f() })).is_ok());
    assert!(par_for(quote!(x in &mut v => *x += 1)).is_ok());
}

#[test]
fn an_iterator_argument_without_a_parallel_counterpart_is_named() {
    let e = error(quote!((p, n) in a.iter().zip(names.iter().cycle()) => f(p, n)));
    assert!(
        e.contains("`.cycle(..)` has no parallel counterpart"),
        "{e}"
    );
    assert!(error(quote!(x in a.iter().chain(b.iter().peekable()) => f(x))).contains("`chain`"));
    // Other arguments are passed through.
    assert!(par_for(quote!((p, q) in a.iter().zip(b.clone()) => f(p, q))).is_ok());
    assert!(par_for(quote!((p, q) in a.iter().zip(b.iter().copied()) => f(p, q))).is_ok());
}
