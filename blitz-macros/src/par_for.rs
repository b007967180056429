//! `par_for!(pat in source [, grain = g] [, reduce(op: var)]* => body)`.
//!
//! Parse the loop header and clauses, check the body (no control flow leaving it, no mutation
//! of captured variables other than reduce targets), then expand to `for_each_piece` or
//! `reduce_pieces` with a leaf that runs a plain sequential `for` loop over its piece.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, Ident, Pat, Path, Token};

use crate::common::{self, EscapeCheck};

/// The parsed input of `par_for!`.
pub(crate) struct ParFor {
    krate: Option<Path>,
    pat: Pat,
    source: Expr,
    grain: Option<Expr>,
    reduces: Vec<Reduce>,
    body: Expr,
}

/// `reduce(op: target)`.
struct Reduce {
    op: Op,
    op_span: Span,
    target: Expr,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op {
    Add,
    Mul,
    Min,
    Max,
    BitAnd,
    BitOr,
    BitXor,
}

impl Op {
    fn marker(self) -> Ident {
        Ident::new(&format!("{self:?}"), Span::call_site())
    }
}

const USAGE: &str = "`par_for!(pattern in source => body)`";

impl Parse for ParFor {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut krate = None;
        if common::peek_crate_arg(input) {
            input.parse::<Token![crate]>()?;
            input.parse::<Token![=]>()?;
            krate = Some(common::parse_crate_value(input)?);
            input.parse::<Token![,]>()?;
        }
        if input.is_empty() {
            return Err(input.error(format!("expected a loop: {USAGE}")));
        }
        let pat = Pat::parse_single(input)?;
        if !input.peek(Token![in]) {
            return Err(input.error(format!("expected `in` after the loop pattern: {USAGE}")));
        }
        input.parse::<Token![in]>()?;
        // Like `for`: a `{` after the source starts the body, not a struct literal.
        let source = Expr::parse_without_eager_brace(input)?;
        let mut grain = None;
        let mut reduces: Vec<Reduce> = Vec::new();
        while input.peek(Token![,]) {
            input.parse::<Token![,]>()?;
            let clause: Ident = input.parse().map_err(|e| {
                syn::Error::new(
                    e.span(),
                    "expected a clause: `grain = n` or `reduce(op: var)`",
                )
            })?;
            if clause == "grain" {
                if grain.is_some() {
                    return Err(syn::Error::new_spanned(clause, "duplicate `grain` clause"));
                }
                input.parse::<Token![=]>()?;
                grain = Some(input.parse()?);
            } else if clause == "reduce" {
                reduces.push(parse_reduce(input)?);
            } else {
                return Err(syn::Error::new_spanned(
                    &clause,
                    format!(
                        "unknown clause `{clause}`: `par_for!` takes `grain = n` and \
                         `reduce(op: var)`"
                    ),
                ));
            }
        }
        if !input.peek(Token![=>]) {
            return Err(input.error(format!("expected `=>` before the loop body: {USAGE}")));
        }
        input.parse::<Token![=>]>()?;
        let body = input.parse()?;
        if input.peek(Token![,]) {
            input.parse::<Token![,]>()?;
        }
        if !input.is_empty() {
            return Err(input.error(
                "unexpected tokens after the loop body; wrap a multi-statement body in `{ .. }`",
            ));
        }
        Ok(ParFor {
            krate,
            pat,
            source,
            grain,
            reduces,
            body,
        })
    }
}

fn parse_reduce(input: ParseStream) -> syn::Result<Reduce> {
    let content;
    syn::parenthesized!(content in input);
    let op_span = content.span();
    let op = if content.peek(Token![+]) {
        content.parse::<Token![+]>()?;
        Op::Add
    } else if content.peek(Token![*]) {
        content.parse::<Token![*]>()?;
        Op::Mul
    } else if content.peek(Token![&]) && !content.peek(Token![&&]) {
        content.parse::<Token![&]>()?;
        Op::BitAnd
    } else if content.peek(Token![|]) && !content.peek(Token![||]) {
        content.parse::<Token![|]>()?;
        Op::BitOr
    } else if content.peek(Token![^]) {
        content.parse::<Token![^]>()?;
        Op::BitXor
    } else if content.peek(Ident) && (content.fork().parse::<Ident>()? == "min") {
        content.parse::<Ident>()?;
        Op::Min
    } else if content.peek(Ident) && (content.fork().parse::<Ident>()? == "max") {
        content.parse::<Ident>()?;
        Op::Max
    } else {
        let tt: proc_macro2::TokenTree = content.parse()?;
        return Err(syn::Error::new_spanned(
            &tt,
            format!(
                "unknown reduce operator `{tt}`: use one of `+`, `*`, `min`, `max`, `&`, `|`, `^`"
            ),
        ));
    };
    if !content.peek(Token![:]) {
        return Err(
            content.error("expected `:` and a variable after the operator: `reduce(+: total)`")
        );
    }
    content.parse::<Token![:]>()?;
    let target = content.parse()?;
    if !content.is_empty() {
        return Err(content.error("expected `)`: `reduce` takes one operator and one variable"));
    }
    Ok(Reduce {
        op,
        op_span,
        target,
    })
}

/// Entry point: parse, analyse, expand.
pub(crate) fn par_for(input: TokenStream) -> syn::Result<TokenStream> {
    let pf: ParFor = syn::parse2(input)?;
    let targets = analyse(&pf)?;
    let source = rewrite_source(&pf)?;
    Ok(expand(&pf, &targets, source))
}

/// Checks the reduce targets and the body; returns the targets' names.
fn analyse(pf: &ParFor) -> syn::Result<Vec<Ident>> {
    let mut targets: Vec<Ident> = Vec::new();
    for r in &pf.reduces {
        let ident = match &r.target {
            Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                p.path.get_ident().cloned().expect("checked")
            }
            other => {
                let shown = other.to_token_stream().to_string().replace(" . ", ".");
                return Err(syn::Error::new_spanned(
                    other,
                    format!(
                        "a `reduce` target must be a mutable local variable, not `{shown}`: \
                         reduce into a local (`let mut acc = ..;` before the loop, \
                         `reduce(op: acc)`), then assign it to `{shown}` after the loop"
                    ),
                ));
            }
        };
        if targets.contains(&ident) {
            return Err(syn::Error::new_spanned(
                &ident,
                format!("`{ident}` is already a `reduce` target of this loop"),
            ));
        }
        targets.push(ident);
    }
    common::check_escapes(
        &pf.body,
        &EscapeCheck {
            place: "a `par_for!` body",
            allow_top_continue: true,
            advice: "; use `continue` to skip an iteration, or a sequential loop if it must \
                     stop early",
            continue_advice: "; a `continue` without a label skips an iteration of the \
                              `par_for!` loop",
        },
    )?;
    check_mutation(pf, &targets)?;
    Ok(targets)
}

/// Assigning to a captured variable from a body that runs on several threads at once is a
/// data race; rustc reports it as an `Fn` closure error, which does not say what to do. This
/// catches the common case (assignment to a plain name not bound in the body) with advice.
fn check_mutation(pf: &ParFor, targets: &[Ident]) -> syn::Result<()> {
    #[derive(Default)]
    struct Bound(Vec<Ident>);
    impl<'a> Visit<'a> for Bound {
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            self.0.push(p.ident.clone());
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut bound = Bound::default();
    bound.visit_pat(&pf.pat);
    bound.visit_expr(&pf.body);
    bound.0.extend(targets.iter().cloned());

    struct Assigns<'b> {
        bound: &'b [Ident],
        error: Option<syn::Error>,
    }
    impl Assigns<'_> {
        fn check(&mut self, left: &Expr, op: Option<&str>) {
            let Expr::Path(p) = left else { return };
            let Some(ident) = p.path.get_ident() else {
                return;
            };
            if self.bound.contains(ident) || self.error.is_some() {
                return;
            }
            let op = op.unwrap_or("+");
            self.error = Some(syn::Error::new_spanned(
                left,
                format!(
                    "cannot assign to `{ident}` inside `par_for!`: the body runs on several \
                     threads at once and `{ident}` is captured from outside the loop; \
                     to combine values across iterations add `reduce({op}: {ident})` \
                     (operators: + * min max & | ^)"
                ),
            ));
        }
    }
    impl<'a> Visit<'a> for Assigns<'_> {
        fn visit_expr_assign(&mut self, e: &'a syn::ExprAssign) {
            self.check(&e.left, None);
            syn::visit::visit_expr_assign(self, e);
        }
        fn visit_expr_binary(&mut self, e: &'a syn::ExprBinary) {
            use syn::BinOp::*;
            let op = match e.op {
                AddAssign(_) => Some("+"),
                MulAssign(_) => Some("*"),
                BitAndAssign(_) => Some("&"),
                BitOrAssign(_) => Some("|"),
                BitXorAssign(_) => Some("^"),
                SubAssign(_) | DivAssign(_) | RemAssign(_) | ShlAssign(_) | ShrAssign(_) => {
                    Some("+")
                }
                _ => None,
            };
            if op.is_some() {
                self.check(&e.left, op);
            }
            syn::visit::visit_expr_binary(self, e);
        }
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut assigns = Assigns {
        bound: &bound.0,
        error: None,
    };
    assigns.visit_expr(&pf.body);
    match assigns.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Maps the iterator-looking sources to runtime sources: `v.iter()` to `&v[..]`, `v.chunks(k)`
/// to `chunks(&v[..], k)` and so on. Other iterator adaptors are rejected; any other expression
/// is passed through and must implement `IntoParallelSource`.
fn rewrite_source(pf: &ParFor) -> syn::Result<TokenStream> {
    let krate = krate(pf);
    let Expr::MethodCall(call) = &pf.source else {
        return Ok(pf.source.to_token_stream());
    };
    let name = call.method.to_string();
    let span = call.method.span();
    let recv = &call.receiver;
    let args = &call.args;
    match (name.as_str(), args.len()) {
        ("chunks", 1) => {
            return Ok(quote_spanned!(span=> #krate::__private::chunks(&(#recv)[..], #args)));
        }
        ("chunks_mut", 1) => {
            return Ok(
                quote_spanned!(span=> #krate::__private::chunks_mut(&mut (#recv)[..], #args)),
            );
        }
        // The slice's items, as `&v` and `&mut v` give them.
        ("iter", 0) => return Ok(quote_spanned!(span=> &(#recv)[..])),
        ("iter_mut", 0) => return Ok(quote_spanned!(span=> &mut (#recv)[..])),
        ("enumerate", 0) => {
            if let Expr::MethodCall(inner) = &*call.receiver {
                let base = &inner.receiver;
                if inner.args.is_empty() && inner.method == "iter" {
                    return Ok(quote_spanned!(span=> #krate::__private::enumerate(&(#base)[..])));
                }
                if inner.args.is_empty() && inner.method == "iter_mut" {
                    return Ok(quote_spanned!(span=>
                        #krate::__private::enumerate_mut(&mut (#base)[..])
                    ));
                }
            }
        }
        _ => {}
    }
    const ADAPTORS: &[&str] = &[
        "iter",
        "iter_mut",
        "into_iter",
        "enumerate",
        "zip",
        "map",
        "filter",
        "rev",
        "step_by",
        "skip",
        "take",
        "windows",
        "chunks",
        "chunks_mut",
        "chunks_exact",
        "chunks_exact_mut",
        "copied",
        "cloned",
        "par_iter",
    ];
    if ADAPTORS.contains(&name.as_str()) {
        return Err(syn::Error::new_spanned(
            &pf.source,
            format!(
                "unsupported `par_for!` source `.{name}(..)`: use an integer range (`0..n`), \
                 `&v`, `&mut v`, `v.iter()`, `v.iter_mut()`, `v.chunks(k)`, `v.chunks_mut(k)`, \
                 `v.iter().enumerate()` or `v.iter_mut().enumerate()`"
            ),
        ));
    }
    Ok(pf.source.to_token_stream())
}

/// The same tokens with every span set to `span`, so errors in generated paths point at the
/// user's token.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tt| {
            if let proc_macro2::TokenTree::Group(g) = &tt {
                let mut ng = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                ng.set_span(span);
                tt = ng.into();
            } else {
                tt.set_span(span);
            }
            tt
        })
        .collect()
}

fn krate(pf: &ParFor) -> Path {
    pf.krate.clone().unwrap_or_else(common::default_crate)
}

fn expand(pf: &ParFor, targets: &[Ident], source: TokenStream) -> TokenStream {
    let krate = krate(pf);
    let pr = quote!(#krate::__private);
    let pat = &pf.pat;
    let grain = match &pf.grain {
        Some(g) => g.to_token_stream(),
        None => quote!(0usize),
    };
    let piece = Ident::new("__blitz_piece", Span::mixed_site());
    // A block body is used as the loop's block, so its statements are the loop body.
    let body = match &pf.body {
        Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => b.block.to_token_stream(),
        other => quote!({ #other; }),
    };
    let the_loop = quote!(for #pat in #piece #body);
    let source = {
        let at = pf.source.span();
        let pr_at = respan(pr.clone(), at);
        quote_spanned!(at=> #pr_at::source(#source))
    };
    if targets.is_empty() {
        return quote!({
            #pr::for_each_piece(#source, #grain, |#piece| { #the_loop });
        });
    }
    // Generated names located at the user's tokens (so errors point there) but hygienic.
    let name = |prefix: &str, i: usize, at: Span| {
        Ident::new(
            &format!("__blitz_{prefix}{i}"),
            at.resolved_at(Span::mixed_site()),
        )
    };
    let (x, y) = (
        Ident::new("__blitz_x", Span::mixed_site()),
        Ident::new("__blitz_y", Span::mixed_site()),
    );
    let mut types = Vec::new();
    let mut inits = Vec::new();
    let mut combines = Vec::new();
    let mut stores = Vec::new();
    let mut accs = Vec::new();
    for (i, (r, var)) in pf.reduces.iter().zip(targets).enumerate() {
        let at = var.span();
        let (id, op, acc) = (name("id", i, at), name("op", i, at), name("a", i, at));
        // The target is named once, here (an undeclared one is one error, not one per use).
        let target = name("t", i, at);
        let marker = r.op.marker();
        let pr_at = respan(pr.clone(), r.op_span);
        let marker = quote_spanned!(r.op_span=> #pr_at::reduce::#marker);
        let index = syn::Index::from(i);
        // Errors about the target (not mutable, no reduction for its type) point at it.
        let borrow = quote_spanned!(at=> &mut #var);
        types.push(quote_spanned!(r.op_span=>
            let (#target, #id, #op) = #pr_at::reduce::ops(#borrow, #marker);
        ));
        inits.push(quote! {
            #[allow(unused_mut)]
            let mut #var = #id();
        });
        combines.push(quote!(#op(#x.#index, #y.#index)));
        // Reduction types are `Copy` (see `__private::reduce`).
        stores.push(quote_spanned!(at=> *#target = #op(*#target, #acc);));
        accs.push(acc);
    }
    // The source and grain first: they may read a target, which is then borrowed.
    let (src, gr) = (
        Ident::new("__blitz_source", Span::mixed_site()),
        Ident::new("__blitz_grain", Span::mixed_site()),
    );
    quote!({
        let #src = #source;
        let #gr = #grain;
        #(#types)*
        let (#(#accs,)*) = #pr::reduce_pieces(
            #src,
            #gr,
            |#piece| {
                #(#inits)*
                #the_loop
                (#(#targets,)*)
            },
            |#x, #y| (#(#combines,)*),
        );
        #(#stores)*
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(input: TokenStream) -> String {
        par_for(input).unwrap_err().to_string()
    }

    #[test]
    fn plain_loop_over_a_range() {
        let got = par_for(quote!(i in 0..n => out[i] = i))
            .unwrap()
            .to_string();
        let want = quote!({
            ::blitz::__private::for_each_piece(
                ::blitz::__private::source(0..n),
                0usize,
                |__blitz_piece| {
                    for i in __blitz_piece {
                        out[i] = i;
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
    fn block_body_and_grain() {
        let got = par_for(quote!(x in &mut v, grain = 64 => { *x *= 2; }))
            .unwrap()
            .to_string();
        let want = quote!({
            ::blitz::__private::for_each_piece(
                ::blitz::__private::source(&mut v),
                64,
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
            let __blitz_source = #p::source(0..n);
            let __blitz_grain = 0usize;
            let (__blitz_t0, __blitz_id0, __blitz_op0) = #p::reduce::ops(&mut sum, #p::reduce::Add);
            let (__blitz_t1, __blitz_id1, __blitz_op1) = #p::reduce::ops(&mut hi, #p::reduce::Max);
            let (__blitz_a0, __blitz_a1,) = #p::reduce_pieces(
                __blitz_source,
                __blitz_grain,
                |__blitz_piece| {
                    #[allow(unused_mut)]
                    let mut sum = __blitz_id0();
                    #[allow(unused_mut)]
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
            got.contains(":: blitz :: __private :: chunks (& (v) [..] , 4)"),
            "{got}"
        );
        let got = par_for(quote!(c in self.v.chunks_mut(k) => f(c)))
            .unwrap()
            .to_string();
        assert!(
            got.contains("chunks_mut (& mut (self . v) [..] , k)"),
            "{got}"
        );
        let got = par_for(quote!(x in v.iter() => f(x))).unwrap().to_string();
        assert!(got.contains("source (& (v) [..])"), "{got}");
        let got = par_for(quote!(x in self.v.iter_mut() => f(x)))
            .unwrap()
            .to_string();
        assert!(got.contains("source (& mut (self . v) [..])"), "{got}");
        let got = par_for(quote!((i, x) in v.iter().enumerate() => f(i, x)))
            .unwrap()
            .to_string();
        assert!(got.contains("__private :: enumerate (& (v) [..])"), "{got}");
        let got = par_for(quote!((i, x) in v.iter_mut().enumerate() => f(i, x)))
            .unwrap()
            .to_string();
        assert!(
            got.contains("__private :: enumerate_mut (& mut (v) [..])"),
            "{got}"
        );
        let got = par_for(quote!(crate = ::b2, i in 0..=n => f(i)))
            .unwrap()
            .to_string();
        assert!(
            got.contains(":: b2 :: __private :: source (0 ..= n)"),
            "{got}"
        );
    }

    #[test]
    fn errors() {
        assert!(error(quote!(i 0..n => f(i))).contains("expected `in`"));
        assert!(error(quote!(i in 0..n { f(i) })).contains("expected `=>`"));
        assert!(
            error(quote!(x in v.iter().rev() => f(x))).contains("unsupported `par_for!` source")
        );
        assert!(error(quote!(x in v.into_iter() => f(x))).contains("`.into_iter(..)`"));
        assert!(error(quote!(i in 0..n => if i > 3 { break })).contains("`break`"));
        assert!(error(quote!(i in 0..n => return)).contains("`return`"));
        assert!(error(quote!(i in 0..n => f(i)?)).contains("`?`"));
        assert!(error(quote!(i in 0..n => f(i).await)).contains("`.await`"));
        assert!(
            error(quote!(i in 0..n, reduce(-: s) => s -= i))
                .contains("unknown reduce operator `-`")
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
}
