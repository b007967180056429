//! The generated loop: pieces of a runtime source run as plain `for` loops
//! (`for_each_piece`, `reduce_pieces`); an iterator chain runs through `for_each` and `fold`.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, Ident};

use super::{ParFor, krate_of as krate};

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

pub(super) fn expand(pf: &ParFor, targets: &[Ident], source: TokenStream) -> TokenStream {
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

/// The loop over a parallel iterator chain: each item runs the body as a one-item `for` loop
/// (so `continue` and the pattern work as in a `for` loop); `reduce` targets are the fields
/// of a `fold` accumulator, combined in order by `reduce`.
pub(super) fn expand_chain(pf: &ParFor, targets: &[Ident], chain: TokenStream) -> TokenStream {
    let krate = krate(pf);
    let pr = quote!(#krate::__private);
    let pat = &pf.pat;
    let grain = match &pf.grain {
        Some(g) => g.to_token_stream(),
        None => quote!(0usize),
    };
    let item = Ident::new("__blitz_item", Span::mixed_site());
    let body = match &pf.body {
        Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => b.block.to_token_stream(),
        other => quote!({ #other; }),
    };
    let the_loop = quote!(for #pat in ::core::iter::once(#item) #body);
    let (src, gr) = (
        Ident::new("__blitz_source", Span::mixed_site()),
        Ident::new("__blitz_grain", Span::mixed_site()),
    );
    // The chain calls the parallel iterator traits' methods: in scope for it alone.
    let chain = quote!({
        use #krate::prelude::*;
        #chain
    });
    let iter = {
        let at = pf.source.span();
        let pr_at = respan(pr.clone(), at);
        quote_spanned!(at=> #pr_at::ParallelIterator::with_min_len(#src, #gr))
    };
    if targets.is_empty() {
        return quote!({
            let #src = #chain;
            let #gr = #grain;
            #pr::ParallelIterator::for_each(#iter, |#item| #the_loop);
        });
    }
    let name = |prefix: &str, i: usize, at: Span| {
        Ident::new(
            &format!("__blitz_{prefix}{i}"),
            at.resolved_at(Span::mixed_site()),
        )
    };
    let (x, y, acc) = (
        Ident::new("__blitz_x", Span::mixed_site()),
        Ident::new("__blitz_y", Span::mixed_site()),
        Ident::new("__blitz_acc", Span::mixed_site()),
    );
    let mut types = Vec::new();
    let mut ids = Vec::new();
    let mut combines = Vec::new();
    let mut stores = Vec::new();
    let mut results = Vec::new();
    for (i, (r, var)) in pf.reduces.iter().zip(targets).enumerate() {
        let at = var.span();
        let (id, op, result) = (name("id", i, at), name("op", i, at), name("a", i, at));
        let target = name("t", i, at);
        let marker = r.op.marker();
        let pr_at = respan(pr.clone(), r.op_span);
        let marker = quote_spanned!(r.op_span=> #pr_at::reduce::#marker);
        let index = syn::Index::from(i);
        let borrow = quote_spanned!(at=> &mut #var);
        types.push(quote_spanned!(r.op_span=>
            let (#target, #id, #op) = #pr_at::reduce::ops(#borrow, #marker);
        ));
        ids.push(quote!(#id()));
        combines.push(quote!(#op(#x.#index, #y.#index)));
        stores.push(quote_spanned!(at=> *#target = #op(*#target, #result);));
        results.push(result);
    }
    quote!({
        let #src = #chain;
        let #gr = #grain;
        #(#types)*
        let (#(#results,)*) = #pr::ParallelIterator::reduce(
            #pr::ParallelIterator::fold(
                #iter,
                || (#(#ids,)*),
                |#acc, #item| {
                    #[allow(unused_mut)]
                    let (#(mut #targets,)*) = #acc;
                    #the_loop
                    (#(#targets,)*)
                },
            ),
            || (#(#ids,)*),
            |#x, #y| (#(#combines,)*),
        );
        #(#stores)*
    })
}
