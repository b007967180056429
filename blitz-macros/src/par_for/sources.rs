//! Where a loop's items come from: a runtime source (`0..n`, `&v`, `v.iter()`, `v.chunks(k)`,
//! ..) or a chain of `std` iterator methods rewritten to the parallel iterator's.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote, quote_spanned};
use syn::{Expr, Ident, Path};

use super::{ParFor, krate_of as krate};

/// What a loop runs over.
pub(super) enum Source {
    /// A runtime source (`IntoParallelSource`): the pieces run as plain `for` loops.
    Runtime(TokenStream),
    /// A sequential iterator chain rewritten to the parallel iterator's methods
    /// (`a.iter().zip(&b)` to `a.par_iter().zip(&b)`): run by `fold` and `for_each`.
    Chain(TokenStream),
}

/// Maps the iterator-looking sources to runtime sources: `v.iter()` to `&v[..]`, `v.chunks(k)`
/// to `chunks(&v[..], k)` and so on. Other chains of `std` iterator adaptors become the same
/// chain of parallel iterator methods (see [`parallel_chain`]); any other expression is passed
/// through and must implement `IntoParallelSource`.
pub(super) fn rewrite_source(pf: &ParFor) -> syn::Result<Source> {
    check_not_float_range(&pf.source)?;
    check_range_is_bounded(&pf.source)?;
    let runtime = rewrite_runtime_source(pf)?;
    if let Some(source) = runtime {
        return Ok(Source::Runtime(source));
    }
    check_positions(&pf.source)?;
    check_iterable_arguments(&pf.source, &krate(pf))?;
    match parallel_chain(&pf.source, &krate(pf)) {
        Some(chain) => Ok(Source::Chain(chain)),
        None => {
            let name = match &pf.source {
                Expr::MethodCall(call) => call.method.to_string(),
                _ => unreachable!("only method chains are left"),
            };
            Err(syn::Error::new_spanned(
                &pf.source,
                format!(
                    "unsupported `par_for!` source `.{name}(..)`: use an integer range (`0..n`), \
                     `&v`, `&mut v`, or a chain of iterator methods that parallel iterators \
                     have too, starting at a collection (`v.iter()`, `v.iter_mut()`, \
                     `v.chunks(k)`, `v.windows(k)`, `s.chars()`, ..) or a range, such as \
                     `a.iter().zip(&b)` or `(0..n).rev().step_by(2)`"
                ),
            ))
        }
    }
}

/// Rejects an argument of `zip` or `chain` in the source that is a chain of iterator methods
/// ending in one with no parallel counterpart (`a.iter().zip(names.iter().cycle())`): passed
/// through as it stands, a sequential iterator, it gets rustc's errors about parallel iterator
/// traits, several of them. Any other argument (`&b`, `v.clone()`) is passed through.
fn check_iterable_arguments(source: &Expr, krate: &Path) -> syn::Result<()> {
    let Expr::MethodCall(call) = source else {
        return Ok(());
    };
    check_iterable_arguments(&call.receiver, krate)?;
    if !matches!(call.method.to_string().as_str(), "zip" | "chain") {
        return Ok(());
    }
    for arg in &call.args {
        if let Expr::MethodCall(inner) = arg
            && parallel_chain(arg, krate).is_none()
            && parallel_chain(&inner.receiver, krate).is_some()
        {
            return Err(syn::Error::new_spanned(
                &inner.method,
                format!(
                    "`.{}(..)` has no parallel counterpart, so `par_for!` cannot `{}` with this \
                     iterator: collect it into a `Vec` first, or compute the item from the \
                     index (`a.iter().enumerate()` and `names[i % names.len()]` for a `cycle`)",
                    inner.method, call.method
                ),
            ));
        }
        check_iterable_arguments(arg, krate)?;
    }
    Ok(())
}

/// Rejects a range with a float literal at either end (`0.0..1.0`), which a `std` range
/// cannot step through either: without this, rustc reports it once per place the expansion
/// uses the source.
fn check_not_float_range(source: &Expr) -> syn::Result<()> {
    fn is_float(e: &Expr) -> bool {
        match e {
            Expr::Lit(l) => matches!(l.lit, syn::Lit::Float(_)),
            Expr::Unary(u) => matches!(u.op, syn::UnOp::Neg(_)) && is_float(&u.expr),
            Expr::Paren(p) => is_float(&p.expr),
            Expr::Group(g) => is_float(&g.expr),
            _ => false,
        }
    }
    let range = match source {
        Expr::Paren(p) => &*p.expr,
        other => other,
    };
    if let Expr::Range(r) = range
        && r.start.iter().chain(r.end.iter()).any(|e| is_float(e))
    {
        return Err(syn::Error::new_spanned(
            source,
            "`par_for!` cannot loop over a range of floats (it has no step to count by): loop \
             over an integer index and compute the float from it, e.g. \
             `i in 0..n => { let x = i as f64 / n as f64; .. }`",
        ));
    }
    Ok(())
}

/// Rejects a range without a start or an end (`..n`, `a..`, `..`), as the source or at the
/// root of its chain (`(..n).rev()`): neither is a parallel source nor an iterator, and
/// passed through, it gets two of rustc's errors, one of them on the whole macro.
fn check_range_is_bounded(source: &Expr) -> syn::Result<()> {
    let mut root = source;
    loop {
        root = match root {
            Expr::MethodCall(call) => &call.receiver,
            Expr::Paren(p) => &p.expr,
            Expr::Group(g) => &g.expr,
            _ => break,
        };
    }
    let Expr::Range(range) = root else {
        return Ok(());
    };
    let limits = range.limits.to_token_stream();
    let message = match (&range.start, &range.end) {
        (Some(_), Some(_)) => return Ok(()),
        (None, Some(end)) => {
            // Echo a short end as written; a longer one would come back with token spacing.
            let end = match &**end {
                Expr::Lit(_) | Expr::Path(_) => end.to_token_stream().to_string(),
                _ => "end".to_owned(),
            };
            format!(
                "a `par_for!` range needs a start: write `0{limits}{end}` (or the first index \
                 you want) instead of `{limits}{end}`"
            )
        }
        (Some(_), None) => "a `par_for!` range needs an end: `a..` never ends, and a \
            parallel loop must split its items before it starts; write `a..n`"
            .to_owned(),
        (None, None) => "a `par_for!` range needs a start and an end: write `0..n`".to_owned(),
    };
    Err(syn::Error::new_spanned(range, message))
}

/// The runtime source of `pf`, if it has one: `None` for an iterator chain that has no
/// source of its own.
fn rewrite_runtime_source(pf: &ParFor) -> syn::Result<Option<TokenStream>> {
    let krate = krate(pf);
    let Expr::MethodCall(call) = &pf.source else {
        return Ok(Some(pf.source.to_token_stream()));
    };
    let name = call.method.to_string();
    let span = call.method.span();
    let recv = &call.receiver;
    let args = &call.args;
    match (name.as_str(), args.len()) {
        // The slice through `AsRef` (a `Vec`, an array, a slice or a reference to one), not
        // `&v[..]`: on a `v` that is a slice already, that is clippy's `redundant_slicing` in
        // the user's code.
        ("chunks", 1) => {
            return Ok(Some(quote_spanned!(span=> #krate::__private::chunks(
                ::core::convert::AsRef::<[_]>::as_ref(&(#recv)),
                #args
            ))));
        }
        // `&mut v[..]` reborrows through a `v: &mut [T]` that is not itself `mut`, which
        // `AsMut::as_mut(&mut v)` could not.
        ("chunks_mut", 1) => {
            return Ok(Some(
                quote_spanned!(span=> #krate::__private::chunks_mut(&mut (#recv)[..], #args)),
            ));
        }
        _ => {}
    }
    // An iterator chain (a known link, or any method on one): `rewrite_source` tries the
    // parallel iterator's methods, and reports a link that has none.
    let on_a_chain = parallel_chain(recv, &krate).is_some();
    if on_a_chain
        || (args.is_empty() && matches!(name.as_str(), "keys" | "values" | "values_mut"))
        || parallel_method(&name, true).is_some()
        || parallel_method(&name, false).is_some()
    {
        return Ok(None);
    }
    Ok(Some(pf.source.to_token_stream()))
}

/// Rejects a link that needs the positions of its items (`enumerate`, `zip`, `rev`, ..)
/// after one that decides the number of items as it goes (`filter`, `flat_map`, a string's
/// `split`, ..): in parallel, a piece cannot know where its items stand before the pieces
/// left of it have run, so the parallel iterators have no such method there, as in rayon.
fn check_positions(source: &Expr) -> syn::Result<()> {
    /// Sources whose items are found as the pieces run.
    const UNCOUNTED: &[&str] = &[
        "chars",
        "char_indices",
        "lines",
        "split",
        "split_mut",
        "split_inclusive",
        "split_inclusive_mut",
        "split_terminator",
        "split_whitespace",
        "split_ascii_whitespace",
        "chunk_by",
        "chunk_by_mut",
        "matches",
        "match_indices",
        "encode_utf16",
    ];
    /// Adaptors that keep or make any number of items per input item.
    const FILTERS: &[&str] = &["filter", "filter_map", "flat_map", "flatten"];
    /// Links that need each item's position.
    const POSITIONAL: &[&str] = &["enumerate", "zip", "rev", "step_by", "skip", "take"];
    // The links of the parallel chain, outermost first: adaptors down to the first link that
    // is not one, the source (what it is called on is a plain value: `v.split(..).collect::<
    // Vec<_>>().iter()` starts at `iter`).
    let mut links = Vec::new();
    let mut e = source;
    while let Expr::MethodCall(call) = e {
        links.push(call);
        if parallel_method(&call.method.to_string(), false).is_none() {
            break;
        }
        e = &call.receiver;
    }
    let written = |call: &syn::ExprMethodCall| {
        let dots = if call.args.is_empty() { "" } else { ".." };
        format!(".{}({dots})", call.method)
    };
    let mut uncounted: Option<&syn::ExprMethodCall> = None;
    for (i, call) in links.iter().rev().enumerate() {
        let name = call.method.to_string();
        if let Some(first) = uncounted
            && POSITIONAL.contains(&name.as_str())
        {
            let (link, first_name) = (written(call), first.method.to_string());
            let why = if !FILTERS.contains(&first_name.as_str()) {
                format!(
                    "a parallel `{first_name}` finds its items only as its pieces run, so none \
                     knows where its own items stand; collect the items into a `Vec` first"
                )
            } else {
                // Moving `enumerate` or `zip` first keeps the items and numbers the input;
                // moving the others first would change which items come through.
                let reorder = if matches!(name.as_str(), "enumerate" | "zip") {
                    format!(
                        "put `{link}` before `{}` if the positions of the input are meant, or ",
                        written(first)
                    )
                } else {
                    String::new()
                };
                format!(
                    "the parallel pieces learn how many items `{first_name}` yields only as \
                     they run, so none knows where its own items stand; {reorder}collect the \
                     items into a `Vec` first"
                )
            };
            return Err(syn::Error::new_spanned(
                &call.method,
                format!(
                    "`par_for!` cannot `{link}` after `{}`: {why}",
                    written(first)
                ),
            ));
        }
        // A string or slice splitter counts only as the source (`v.split(..)` on an
        // iterator would be another method).
        let is_source_link = i == 0;
        let uncounted_here = FILTERS.contains(&name.as_str())
            || (is_source_link && UNCOUNTED.contains(&name.as_str()));
        if uncounted.is_none() && uncounted_here {
            uncounted = Some(call);
        }
    }
    Ok(())
}

/// The parallel iterator method that stands for the `std` method `name`: on a collection or a
/// string (`source`: `iter` to `par_iter`, `chunks` to `par_chunks`, `chars` to
/// `par_chars`), or on an iterator (`zip`, `rev`, ..., with `flat_map` and `flatten` taking
/// sequential iterators as in `std`).
fn parallel_method(name: &str, source: bool) -> Option<&'static str> {
    const SOURCES: &[(&str, &str)] = &[
        ("iter", "par_iter"),
        ("iter_mut", "par_iter_mut"),
        ("into_iter", "into_par_iter"),
        ("chunks", "par_chunks"),
        ("chunks_mut", "par_chunks_mut"),
        ("chunks_exact", "par_chunks_exact"),
        ("chunks_exact_mut", "par_chunks_exact_mut"),
        ("rchunks", "par_rchunks"),
        ("rchunks_mut", "par_rchunks_mut"),
        ("rchunks_exact", "par_rchunks_exact"),
        ("rchunks_exact_mut", "par_rchunks_exact_mut"),
        ("split", "par_split"),
        ("split_mut", "par_split_mut"),
        ("split_inclusive", "par_split_inclusive"),
        ("split_inclusive_mut", "par_split_inclusive_mut"),
        ("split_terminator", "par_split_terminator"),
        ("chunk_by", "par_chunk_by"),
        ("chunk_by_mut", "par_chunk_by_mut"),
        ("matches", "par_matches"),
        ("match_indices", "par_match_indices"),
        ("encode_utf16", "par_encode_utf16"),
        ("windows", "par_windows"),
        ("chars", "par_chars"),
        ("char_indices", "par_char_indices"),
        ("bytes", "par_bytes"),
        ("lines", "par_lines"),
        ("split_whitespace", "par_split_whitespace"),
        ("split_ascii_whitespace", "par_split_ascii_whitespace"),
    ];
    const ADAPTORS: &[(&str, &str)] = &[
        ("zip", "zip"),
        ("chain", "chain"),
        ("enumerate", "enumerate"),
        ("rev", "rev"),
        ("step_by", "step_by"),
        ("skip", "skip"),
        ("take", "take"),
        ("map", "map"),
        ("filter", "filter"),
        ("filter_map", "filter_map"),
        ("copied", "copied"),
        ("cloned", "cloned"),
        ("inspect", "inspect"),
        ("flat_map", "flat_map_iter"),
        ("flatten", "flatten_iter"),
    ];
    let table = if source { SOURCES } else { ADAPTORS };
    table.iter().find(|(s, _)| *s == name).map(|(_, p)| *p)
}

/// `e`, a chain of `std` iterator methods, as the same chain of parallel iterator methods:
/// `a.iter().zip(b.iter()).rev()` to `a.par_iter().zip(b.par_iter()).rev()`, a range to
/// the range's parallel iterator. `None` if some link has no parallel counterpart (or the
/// chain does not start at a collection or a range).
fn parallel_chain(e: &Expr, krate: &Path) -> Option<TokenStream> {
    match e {
        Expr::MethodCall(call) => {
            let name = call.method.to_string();
            let (recv, args) = (&call.receiver, &call.args);
            let method = |m: &str| Ident::new(m, call.method.span());
            if let Some(adaptor) = parallel_method(&name, false)
                && let Some(base) = parallel_chain(recv, krate)
            {
                let adaptor = method(adaptor);
                // `zip` and `chain` take another iterable: a chain of its own, or anything
                // that converts into a parallel iterator (`&v`, a range, a `Vec`).
                let args = args.iter().map(|a| match (name.as_str(), a) {
                    ("zip" | "chain", Expr::MethodCall(_)) => {
                        parallel_chain(a, krate).unwrap_or_else(|| a.to_token_stream())
                    }
                    _ => a.to_token_stream(),
                });
                return Some(quote!(#base.#adaptor(#(#args),*)));
            }
            // A map's keys or values: its pairs' parallel iterator, projected.
            let projection = match (name.as_str(), args.is_empty()) {
                ("keys", true) => Some((method("par_iter"), quote!(|(k, _)| k))),
                ("values", true) => Some((method("par_iter"), quote!(|(_, v)| v))),
                ("values_mut", true) => Some((method("par_iter_mut"), quote!(|(_, v)| v))),
                _ => None,
            };
            if let Some((pairs, project)) = projection {
                let map = method("map");
                return Some(quote!(#recv.#pairs().#map(#project)));
            }
            let source = method(parallel_method(&name, true)?);
            Some(quote!(#recv.#source(#args)))
        }
        Expr::Range(_) => Some(quote!(#krate::__private::par_iter(#e))),
        // Without the parentheses, which `unused_parens` would flag in an argument.
        Expr::Paren(p) if matches!(&*p.expr, Expr::Range(_)) => parallel_chain(&p.expr, krate),
        _ => None,
    }
}
