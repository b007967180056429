//! The generated loop: pieces of a runtime source run as plain `for` loops
//! (`for_each_piece`, `reduce_pieces`); an iterator chain runs through `for_each` and `fold`.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, Ident};

use super::{ParFor, krate_of as krate};
use crate::common::respan;

/// The parts of the generated code shared by both kinds of loop.
struct Common {
    pr: TokenStream,
    grain: TokenStream,
    /// The body as a block (a block body is used as is, so its statements are the loop's).
    body: TokenStream,
    /// The `reduce` clauses' code (see [`Reductions`]).
    reductions: Reductions,
    x: Ident,
    y: Ident,
    src: Ident,
    gr: Ident,
}

/// What the `reduce` clauses generate, one entry per target.
#[derive(Default)]
struct Reductions {
    /// `let (target, id, op) = reduce::ops(&mut var, marker);`: the target's reduction.
    types: Vec<TokenStream>,
    /// `id()`: a fresh accumulator.
    ids: Vec<TokenStream>,
    /// `op(x.i, y.i)`: two accumulator tuples combined.
    combines: Vec<TokenStream>,
    /// `*target = op(*target, result)`: the loop's result added to the variable.
    stores: Vec<TokenStream>,
    /// The names the combined results are bound to.
    results: Vec<Ident>,
}

impl Common {
    fn new(pf: &ParFor, targets: &[Ident]) -> Common {
        let krate = krate(pf);
        let pr = quote!(#krate::__private);
        let grain = match &pf.grain {
            // Typed where it is written: a grain of another type gets its error there, not on
            // the call the expansion passes it to.
            Some(g) => {
                let grain = Ident::new("__blitz_grain", Span::mixed_site());
                quote_spanned!(g.span()=> { let #grain: usize = #g; #grain })
            }
            None => quote!(0usize),
        };
        let body = match &pf.body {
            Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => b.block.to_token_stream(),
            // Without a `;`: as the body of a `for` loop, a value other than `()` is an error
            // on the expression, not silently dropped (`=> square(x)` maps nothing).
            other => quote!({ #other }),
        };
        let hygienic = |name: &str| Ident::new(name, Span::mixed_site());
        let (x, y) = (hygienic("__blitz_x"), hygienic("__blitz_y"));
        let reductions = Reductions::new(pf, targets, &pr, &x, &y);
        Common {
            pr,
            grain,
            body,
            reductions,
            x,
            y,
            src: hygienic("__blitz_source"),
            gr: hygienic("__blitz_grain"),
        }
    }
}

impl Reductions {
    fn new(pf: &ParFor, targets: &[Ident], pr: &TokenStream, x: &Ident, y: &Ident) -> Self {
        // Generated names located at the user's tokens (so errors point there) but hygienic.
        let name = |prefix: &str, i: usize, at: Span| {
            Ident::new(
                &format!("__blitz_{prefix}{i}"),
                at.resolved_at(Span::mixed_site()),
            )
        };
        let mut out = Reductions::default();
        for (i, (r, var)) in pf.reduces.iter().zip(targets).enumerate() {
            let at = var.span();
            let (id, op, result) = (name("id", i, at), name("op", i, at), name("a", i, at));
            // The target is named once, here (an undeclared one is one error, not one per use).
            let target = name("t", i, at);
            let marker = r.op.marker();
            let pr_at = respan(pr.clone(), r.op_span);
            let marker = quote_spanned!(r.op_span=> #pr_at::reduce::#marker);
            let index = syn::Index::from(i);
            // Errors about the target (not mutable, no reduction for its type) point at it.
            let borrow = quote_spanned!(at=> &mut #var);
            out.types.push(quote_spanned!(r.op_span=>
                let (#target, #id, #op) = #pr_at::reduce::ops(#borrow, #marker);
            ));
            out.ids.push(quote!(#id()));
            out.combines.push(quote!(#op(#x.#index, #y.#index)));
            // Reduction types are `Copy` (see `__private::reduce`).
            out.stores
                .push(quote_spanned!(at=> *#target = #op(*#target, #result);));
            out.results.push(result);
        }
        out
    }
}

pub(super) fn expand(pf: &ParFor, targets: &[Ident], source: TokenStream) -> TokenStream {
    let Common {
        pr,
        grain,
        body,
        reductions,
        x,
        y,
        src,
        gr,
    } = Common::new(pf, targets);
    let pat = &pf.pat;
    let piece = Ident::new("__blitz_piece", Span::mixed_site());
    let the_loop = quote!(for #pat in #piece #body);
    // The source goes straight to the runtime call, whose bound (`IntoParallelSource`) is the
    // only one on its type: a value that is not a source is one error. The call is located at
    // the source, so that error points there.
    let at = pf.source.span();
    let pr_at = respan(pr.clone(), at);
    if targets.is_empty() {
        let call =
            quote_spanned!(at=> #pr_at::for_each_piece(#source, #grain, |#piece| { #the_loop }));
        return quote!({ #call; });
    }
    let Reductions {
        types,
        ids,
        combines,
        stores,
        results,
    } = reductions;
    // The source and grain first: they may read a target, which is then borrowed. Bound by a
    // `match`, which keeps the source's temporaries (`&make()`) alive to its end, as a `for`
    // loop does.
    // The call and its leaf closure are located at the source, as above: the source's type
    // is named by the call's bound and by the closure's parameter.
    let src_at = Ident::new(&src.to_string(), at.resolved_at(Span::mixed_site()));
    let leaf = quote_spanned!(at=> |#piece| {
        #(
            // The body's accumulator takes the target's name on purpose.
            #[allow(unused_mut, clippy::shadow_unrelated)]
            let mut #targets = #ids;
        )*
        #the_loop
        (#(#targets,)*)
    });
    let call = quote_spanned!(at=> #pr_at::reduce_pieces(
        #src_at,
        #gr,
        #leaf,
        |#x, #y| (#(#combines,)*),
    ));
    quote!({
        match (#source, #grain) {
            (#src, #gr) => {
                #(#types)*
                let (#(#results,)*) = #call;
                #(#stores)*
            }
        }
    })
}

/// The loop over a parallel iterator chain: each item runs the body as a one-item `for` loop
/// (so `continue` and the pattern work as in a `for` loop); `reduce` targets are the fields
/// of a `fold` accumulator, combined in order by `reduce`.
pub(super) fn expand_chain(pf: &ParFor, targets: &[Ident], chain: TokenStream) -> TokenStream {
    let Common {
        pr,
        grain,
        body,
        reductions,
        x,
        y,
        src,
        gr,
    } = Common::new(pf, targets);
    let krate = krate(pf);
    let pat = &pf.pat;
    let item = Ident::new("__blitz_item", Span::mixed_site());
    let the_loop = quote!(for #pat in ::core::iter::once(#item) #body);
    // The chain calls the parallel iterator traits' methods, so they are in scope, unnamed
    // (the body's names stay the user's). Not in a block of the chain's own: in edition 2024
    // a block drops its tail's temporaries (`make()` in `make().iter()`) at its end.
    let traits = quote!(
        #[allow(unused_imports)]
        use #krate::prelude::{
            IndexedParallelIterator as _, IntoParallelIterator as _,
            IntoParallelRefIterator as _, IntoParallelRefMutIterator as _,
            ParallelIterator as _, ParallelSlice as _, ParallelSliceMut as _,
            ParallelString as _,
        };
    );
    let iter = {
        let at = pf.source.span();
        let pr_at = respan(pr.clone(), at);
        quote_spanned!(at=> #pr_at::ParallelIterator::with_min_len(#src, #gr))
    };
    // Bound by a `match`, which keeps the chain's temporaries alive to its end, as a `for`
    // loop does.
    if targets.is_empty() {
        return quote!({
            #traits
            match (#chain, #grain) {
                (#src, #gr) => #pr::ParallelIterator::for_each(#iter, |#item| #the_loop),
            }
        });
    }
    let Reductions {
        types,
        ids,
        combines,
        stores,
        results,
    } = reductions;
    let acc = Ident::new("__blitz_acc", Span::mixed_site());
    quote!({
        #traits
        match (#chain, #grain) {
            (#src, #gr) => {
                #(#types)*
                let (#(#results,)*) = #pr::ParallelIterator::reduce(
                    #pr::ParallelIterator::fold(
                        #iter,
                        || (#(#ids,)*),
                        |#acc, #item| {
                            #[allow(unused_mut, clippy::shadow_unrelated)]
                            let (#(mut #targets,)*) = #acc;
                            #the_loop
                            (#(#targets,)*)
                        },
                    ),
                    || (#(#ids,)*),
                    |#x, #y| (#(#combines,)*),
                );
                #(#stores)*
            }
        }
    })
}
