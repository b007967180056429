//! `fork_join!(a = f(), b = g())` and `let (x, y) = fork_join!(f(), g())`.
//!
//! Parse the arms, check that no arm's control flow would have to leave the closure it runs in,
//! then expand to one nested `Worker::join` whose results are bound (binding form: `let`
//! statements in the caller's block) or returned as a flat tuple (tuple form).

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::parse::discouraged::Speculative;
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, Ident, Pat, Path, Token, Type};

use crate::common::{self, Branch, EscapeCheck, Ungroup};

/// The parsed input of `fork_join!`.
pub(crate) struct ForkJoin {
    /// Set by `#[parallel]` when it forwards its worker context: `@__blitz_worker(w)`.
    pub(crate) worker: Option<Ident>,
    pub(crate) krate: Option<Path>,
    pub(crate) arms: Vec<Arm>,
}

/// One arm: `expr`, `pat = expr` or `pat: Type = expr`.
pub(crate) struct Arm {
    pub(crate) binding: Option<Binding>,
    pub(crate) expr: Expr,
}

pub(crate) struct Binding {
    pub(crate) pat: Pat,
    pub(crate) ty: Option<(Token![:], Type)>,
    pub(crate) eq: Token![=],
}

impl Parse for ForkJoin {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut worker = None;
        let mut krate = None;
        if input.peek(Token![@]) {
            input.parse::<Token![@]>()?;
            let marker: Ident = input.parse()?;
            if marker != "__blitz_worker" {
                return Err(syn::Error::new_spanned(
                    marker,
                    "unexpected `@` in `fork_join!`",
                ));
            }
            let content;
            syn::parenthesized!(content in input);
            worker = Some(content.parse()?);
        }
        if common::peek_crate_arg(input) {
            input.parse::<Token![crate]>()?;
            input.parse::<Token![=]>()?;
            krate = Some(common::parse_crate_value(input)?);
            // Without arms after it, the count check below says what is missing.
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        let mut arms = Vec::new();
        while !input.is_empty() {
            arms.push(input.parse()?);
            if input.is_empty() {
                break;
            }
            if input.peek(Token![:]) && !input.peek(Token![::]) {
                // `a: f()` reads as a binding written with a colon.
                return Err(input.error(
                    "expected `,` after the arm; to bind an arm's value, write `name = expr` \
                     (with a type: `name: Type = expr`)",
                ));
            }
            input.parse::<Token![,]>()?;
        }
        Ok(ForkJoin {
            worker,
            krate,
            arms,
        })
    }
}

impl Parse for Arm {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.peek(Token![let]) {
            let let_token: Token![let] = input.parse()?;
            return Err(syn::Error::new_spanned(
                let_token,
                "a `fork_join!` arm binds without `let`: write `name = expr` \
                 (with a type: `name: Type = expr`)",
            ));
        }
        // `pat = expr` and the expression `place = value` look alike; try the binding first.
        let fork = input.fork();
        if let Ok(binding) = parse_binding(&fork) {
            if let Pat::Or(or) = &binding.pat {
                return Err(syn::Error::new_spanned(
                    or,
                    "a `fork_join!` binding is a `let`, where an or-pattern needs parentheses: \
                     `(A(x) | B(x)) = expr`",
                ));
            }
            input.advance_to(&fork);
            let mut expr = common::parse_reporting_end(input, binding.eq.span)?;
            Ungroup::expr(&mut expr);
            return Ok(Arm {
                binding: Some(binding),
                expr,
            });
        }
        let mut expr = common::parse_reporting_end(input, input.span())?;
        Ungroup::expr(&mut expr);
        Ok(Arm {
            binding: None,
            expr,
        })
    }
}

fn parse_binding(input: ParseStream) -> syn::Result<Binding> {
    // A top-level or-pattern is parsed only to be reported (see `Arm::parse`).
    let pat = Pat::parse_multi(input)?;
    let ty = if input.peek(Token![:]) && !input.peek(Token![::]) {
        Some((input.parse()?, input.parse()?))
    } else {
        None
    };
    if input.peek(Token![==]) || input.peek(Token![=>]) {
        return Err(input.error("not a binding"));
    }
    let eq = input.parse()?;
    Ok(Binding { pat, ty, eq })
}

impl ToTokens for ForkJoin {
    /// Re-emits the macro input (used by `#[parallel]` after rewriting the arms).
    fn to_tokens(&self, out: &mut TokenStream) {
        if let Some(w) = &self.worker {
            out.extend(quote!(@__blitz_worker(#w)));
        }
        if let Some(k) = &self.krate {
            out.extend(quote!(crate = #k,));
        }
        for arm in &self.arms {
            if let Some(Binding { pat, ty, eq }) = &arm.binding {
                pat.to_tokens(out);
                if let Some((colon, ty)) = ty {
                    colon.to_tokens(out);
                    ty.to_tokens(out);
                }
                eq.to_tokens(out);
            }
            arm.expr.to_tokens(out);
            out.extend(quote!(,));
        }
    }
}

/// Parse, analyse, expand: the expansion or the error alone (the unit tests' view).
#[cfg(test)]
pub(crate) fn fork_join(input: TokenStream) -> syn::Result<TokenStream> {
    let fj: ForkJoin = syn::parse2(input)?;
    analyse(&fj)?;
    Ok(expand(&fj))
}

/// Entry point: parse, analyse, expand; an error comes with the names the arms would have
/// bound (see [`error_with_bindings`]).
pub(crate) fn fork_join_or_error(input: TokenStream) -> TokenStream {
    let fj: ForkJoin = match syn::parse2(input.clone()) {
        Ok(fj) => fj,
        Err(e) => return error_with_names(bound_names_of_unparsed(input), e),
    };
    match analyse(&fj) {
        Ok(()) => expand(&fj),
        Err(e) => {
            let label_uses = common::outer_label_uses(fj.arms.iter().map(|a| &a.expr));
            let error = error_with_bindings(&fj, e);
            if label_uses.is_empty() {
                error
            } else if fj.arms.iter().any(|a| a.binding.is_some()) {
                // Statements in the caller's block.
                quote!(#label_uses #error)
            } else {
                quote!({ #label_uses #error })
            }
        }
    }
}

/// The error, and in the binding form the names the arms bind, bound to a diverging value: the
/// code after the macro then type-checks without a "cannot find value" for each name.
fn error_with_bindings(fj: &ForkJoin, error: syn::Error) -> TokenStream {
    let names: Vec<_> = fj
        .arms
        .iter()
        .filter_map(|a| a.binding.as_ref())
        .flat_map(|b| common::pat_bindings(&b.pat))
        .map(|p| (p.mutability.is_some(), p.ident.clone()))
        .collect();
    error_with_names(names, error)
}

/// The names input that did not parse seems to bind: an identifier, or those of a
/// parenthesized pattern, right before a lone `=` or a type's `:` at the top level
/// (`a = f() b = g()`, a comma missing, binds `a` and `b`); and where some arm binds so, an
/// identifier that starts an arm and is followed by another or by `:=` (`a f()`, `a := f()`,
/// the `=` missing or mistyped). A guess, only there to spare the user a "cannot find value"
/// error per name after the parse error.
fn bound_names_of_unparsed(input: TokenStream) -> Vec<(bool, Ident)> {
    use proc_macro2::{Delimiter, Spacing, TokenTree};
    let tokens: Vec<TokenTree> = input.into_iter().collect();
    let binds_before = |i: usize| match tokens.get(i + 1) {
        Some(TokenTree::Punct(p)) if p.as_char() == '=' => !matches!(
            tokens.get(i + 2),
            Some(TokenTree::Punct(q)) if p.spacing() == Spacing::Joint && matches!(q.as_char(), '=' | '>')
        ),
        Some(TokenTree::Punct(p)) if p.as_char() == ':' => p.spacing() == Spacing::Alone,
        _ => false,
    };
    let after_path_separator = |i: usize| {
        i > 0 && matches!(&tokens[i - 1], TokenTree::Punct(p) if matches!(p.as_char(), ':' | '.'))
    };
    let mut names = Vec::new();
    let push = |mutable: bool, ident: &Ident, names: &mut Vec<(bool, Ident)>| {
        let name = ident.to_string();
        if !matches!(name.as_str(), "crate" | "mut" | "ref" | "_" | "self") {
            names.push((mutable, ident.clone()));
        }
    };
    // An arm's first token: the input's, or one after a top-level comma.
    let starts_arm =
        |i: usize| i == 0 || matches!(&tokens[i - 1], TokenTree::Punct(p) if p.as_char() == ',');
    // An identifier, not a keyword (`let a = ..` is reported as such).
    let is_name = |tt: &TokenTree| {
        matches!(tt, TokenTree::Ident(_)) && syn::parse2::<Ident>(tt.clone().into()).is_ok()
    };
    let binds_without_eq = |i: usize| {
        starts_arm(i)
            && is_name(&tokens[i])
            && match (tokens.get(i + 1), tokens.get(i + 2)) {
                (Some(TokenTree::Ident(next)), _) => next != "as",
                (Some(TokenTree::Literal(_)), _) => true,
                (Some(TokenTree::Punct(p)), Some(TokenTree::Punct(q))) => {
                    p.as_char() == ':' && p.spacing() == Spacing::Joint && q.as_char() == '='
                }
                _ => false,
            }
    };
    let binds_with_eq = |i: usize| binds_before(i) && !after_path_separator(i);
    let any_binding = (0..tokens.len()).any(binds_with_eq);
    for (i, tt) in tokens.iter().enumerate() {
        let binds = binds_with_eq(i) || (any_binding && binds_without_eq(i));
        if !binds {
            continue;
        }
        match tt {
            TokenTree::Ident(ident) => {
                let mutable = i > 0 && matches!(&tokens[i - 1], TokenTree::Ident(m) if m == "mut");
                push(mutable, ident, &mut names);
            }
            TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => {
                let mut mutable = false;
                for inner in g.stream() {
                    match inner {
                        TokenTree::Ident(ident) if ident == "mut" => mutable = true,
                        TokenTree::Ident(ident) => {
                            push(mutable, &ident, &mut names);
                            mutable = false;
                        }
                        _ => mutable = false,
                    }
                }
            }
            _ => {}
        }
    }
    names
}

/// `error`, then `names` bound to a diverging value (see [`error_with_bindings`]).
fn error_with_names(mut names: Vec<(bool, Ident)>, error: syn::Error) -> TokenStream {
    let error = error.into_compile_error();
    // Once each: an or-pattern binds its names in every alternative.
    let mut seen = std::collections::HashSet::new();
    names.retain(|(_, name)| seen.insert(name.to_string()));
    if names.is_empty() {
        return error;
    }
    let (muts, names): (Vec<_>, Vec<_>) = names.into_iter().unzip();
    let muts = muts.into_iter().map(|m| m.then(|| quote!(mut)));
    quote! {
        #error;
        #[allow(unused_mut)]
        let (#(#muts #names,)*);
        #[allow(unreachable_code)]
        {
            #(#names = loop {};)*
        }
    }
}

/// The user errors: too few arms, mixed forms, refutable patterns, escaping control flow.
pub(crate) fn analyse(fj: &ForkJoin) -> syn::Result<()> {
    match fj.arms.as_slice() {
        [] => {
            return Err(syn::Error::new(
                Span::call_site(),
                "`fork_join!` needs at least two arms, e.g. `fork_join!(a = f(), b = g())`",
            ));
        }
        [only] => {
            return Err(syn::Error::new_spanned(
                &only.expr,
                "`fork_join!` needs at least two arms to run anything in parallel; \
                 with one arm, call it directly",
            ));
        }
        _ => {}
    }
    let binding_form = fj.arms[0].binding.is_some();
    for arm in &fj.arms {
        if arm.binding.is_some() != binding_form {
            let msg = if binding_form {
                "every arm of this `fork_join!` binds a name (`name = expr`), so this one must too"
            } else {
                "this arm binds a name but the first arm does not: either bind every arm \
                 (`a = f(), b = g()`) or none (`let (a, b) = fork_join!(f(), g())`)"
            };
            return Err(syn::Error::new_spanned(arm_tokens(arm), msg));
        }
        if let Some(b) = &arm.binding {
            check_irrefutable(&b.pat)?;
        }
        if fj.worker.is_none() {
            check_no_earlier_result(&fj.arms, arm)?;
        }
        let (inner, _) = common::peel_try(&arm.expr);
        common::check_escapes(
            inner,
            &EscapeCheck {
                place: "a `fork_join!` arm",
                allow_top_continue: false,
                advice: "; compute a value and act on it after `fork_join!`",
                continue_advice: "; compute a value and act on it after `fork_join!`",
                try_advice: common::TRY_AFTER_JOIN,
            },
        )?;
    }
    Ok(())
}

/// Written as `let` statements, `a = a + 1, b = a * 10` would give `b` the new `a`; run at
/// the same time, the arms see only what was bound before the macro. So an arm may not name
/// what an earlier arm binds (a name the arm binds again itself, as a closure's parameter or
/// in a `let`, is its own). Checked for the user's own macro calls: those `#[parallel]` writes
/// fork only independent statements.
fn check_no_earlier_result(arms: &[Arm], arm: &Arm) -> syn::Result<()> {
    struct Finder<'a> {
        names: &'a [Ident],
        found: Option<&'a Ident>,
        at: Option<Span>,
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            if self.at.is_none()
                && p.qself.is_none()
                && let Some(ident) = p.path.get_ident()
                && let Some(name) = self.names.iter().find(|n| *n == ident)
            {
                self.found = Some(name);
                self.at = Some(ident.span());
            }
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let earlier: Vec<Ident> = arms
        .iter()
        .take_while(|a| !std::ptr::eq(*a, arm))
        .filter_map(|a| a.binding.as_ref())
        .flat_map(|b| common::pat_bindings(&b.pat))
        .map(|p| p.ident.clone())
        .collect();
    if earlier.is_empty() {
        return Ok(());
    }
    // Names the arm binds itself shadow the earlier arms' (wherever they are bound in it: a
    // use the check misses is better than valid code refused).
    let own: Vec<Ident> = {
        struct Bound(Vec<Ident>);
        impl<'ast> Visit<'ast> for Bound {
            fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
                self.0.push(p.ident.clone());
                syn::visit::visit_pat_ident(self, p);
            }
            fn visit_item(&mut self, _: &'ast syn::Item) {}
        }
        let mut bound = Bound(Vec::new());
        bound.visit_expr(&arm.expr);
        bound.0
    };
    let names: Vec<Ident> = earlier.into_iter().filter(|n| !own.contains(n)).collect();
    let mut finder = Finder {
        names: &names,
        found: None,
        at: None,
    };
    finder.visit_expr(&arm.expr);
    match (finder.found, finder.at) {
        (Some(name), Some(at)) => Err(syn::Error::new(
            at,
            format!(
                "`{name}` here is the `{name}` bound before this `fork_join!`, not the result of \
                 the earlier arm that binds `{name}`: the arms run at the same time, so one \
                 cannot use another's result; rename that arm's binding, or compute this \
                 after `fork_join!`"
            ),
        )),
        _ => Ok(()),
    }
}

fn arm_tokens(arm: &Arm) -> TokenStream {
    let mut t = TokenStream::new();
    if let Some(b) = &arm.binding {
        b.pat.to_tokens(&mut t);
        b.eq.to_tokens(&mut t);
    }
    arm.expr.to_tokens(&mut t);
    t
}

/// A `fork_join!` binding becomes a `let`, which needs a pattern that always matches. The
/// check is syntactic and catches what never matches always (a literal, a range, `Some(..)`);
/// what may match always, depending on types (an or-pattern, `Ok(x)` of a `Result<_,
/// Infallible>`, a unit struct or an enum variant's path), is left to rustc, whose own error
/// then points at the user's pattern.
fn check_irrefutable(pat: &Pat) -> syn::Result<()> {
    let refutable = |p: &Pat| {
        syn::Error::new_spanned(
            p,
            "this pattern may not match: a `fork_join!` binding is a `let`, so it needs a \
             pattern that always matches (a name, `_`, a tuple or struct of those); bind the \
             value to a name and `match` on it after `fork_join!`",
        )
    };
    match pat {
        Pat::Ident(p) => match &p.subpat {
            Some((_, sub)) => check_irrefutable(sub),
            None => Ok(()),
        },
        Pat::Wild(_) | Pat::Rest(_) => Ok(()),
        Pat::Tuple(t) => t.elems.iter().try_for_each(check_irrefutable),
        Pat::Paren(p) => check_irrefutable(&p.pat),
        Pat::Reference(r) => check_irrefutable(&r.pat),
        Pat::Type(t) => check_irrefutable(&t.pat),
        Pat::Struct(s) => s.fields.iter().try_for_each(|f| check_irrefutable(&f.pat)),
        Pat::TupleStruct(t) => {
            let last = t.path.segments.last().map(|s| s.ident.to_string());
            if last.as_deref() == Some("Some") {
                return Err(refutable(pat));
            }
            t.elems.iter().try_for_each(check_irrefutable)
        }
        Pat::Slice(s) => s.elems.iter().try_for_each(check_irrefutable),
        Pat::Or(_) | Pat::Path(_) => Ok(()),
        _ => Err(refutable(pat)),
    }
}

/// The expansion. Without a forwarded context it looks the worker up once with `with_worker`
/// (see [`expand_with_worker`]).
pub(crate) fn expand(fj: &ForkJoin) -> TokenStream {
    let krate = fj.krate.clone().unwrap_or_else(common::default_crate);
    let worker = fj.worker.clone().unwrap_or_else(common::worker_ident);
    let p = quote!(#krate::__private);
    let mut results = Vec::new();
    for (i, arm) in fj.arms.iter().enumerate() {
        let (_, tries) = common::peel_try(&arm.expr);
        results.push(common::apply_tries(&common::result_ident(i), &tries));
    }
    let (join, pat) = match fj.worker {
        // Inside a `#[parallel]` copy: the context of the copy decides (each context has a
        // `join` taking closures of its own type, so the arms share the text).
        Some(_) => {
            let branches: Vec<Branch> = fj
                .arms
                .iter()
                .map(|arm| Branch {
                    span: arm.expr.span(),
                    body: common::peel_try(&arm.expr).0.to_token_stream(),
                })
                .collect();
            let (join, pat) = common::join_nest(&worker, &branches, Span::call_site(), false);
            let join = quote!(match #p::ForkContext::join_mode(&#worker) {
                #p::ForkMode::Join(#worker) => #join,
                #p::ForkMode::Plain(#worker) => #join,
                #p::ForkMode::Serial => {
                    let #worker = #p::SerialContext;
                    #join
                }
            });
            (join, pat)
        }
        None => expand_with_worker(fj, &worker, &p),
    };
    if fj.arms[0].binding.is_none() {
        return quote!({
            let #pat = #join;
            (#(#results,)*)
        });
    }
    let lets = fj.arms.iter().zip(&results).map(|(arm, r)| {
        let Binding { pat, ty, eq } = arm.binding.as_ref().expect("binding form");
        if ty.is_none() && matches!(pat, Pat::Wild(_)) {
            // `_ = println!(..)`: an assignment, not a `let`, so that a unit result does not
            // set off `clippy::let_unit_value` on the user's `_`.
            return quote_spanned!(pat.span()=> #pat #eq #r;);
        }
        let ty = ty.as_ref().map(|(c, t)| quote!(#c #t));
        // The result is reported at the end of the arm's expression (a mismatch with `: Type`
        // then points into the arm, and rustc's conversion hint lands after the expression),
        // but resolved where the macro's own names are.
        let r = locate_idents(r, last_token_span(&arm.expr));
        quote_spanned!(pat.span()=> let #pat #ty #eq #r;)
    });
    // No attribute before the first `let`: in expression position (`let t = fork_join!(a =
    // f(), b = g());`) rustc then reports the `let` and the tokens after it, and no attribute
    // on an expression.
    quote! {
        let #pat = #join;
        #(#lets)*
    }
}

/// The fork outside a `#[parallel]` copy: the arms become closures checked one by one to be
/// `Send` (see `blitz::__private::SendArm`), so that an arm that is not (an `Rc` captured or
/// returned) is reported on that arm, once; then `with_worker` runs one nested join of them.
/// The value is the flat tuple of the arms' results, and the pattern names them.
fn expand_with_worker(
    fj: &ForkJoin,
    worker: &Ident,
    p: &TokenStream,
) -> (TokenStream, TokenStream) {
    let mut arms = Vec::new();
    let mut branches = Vec::new();
    for (i, arm) in fj.arms.iter().enumerate() {
        let (inner, _) = common::peel_try(&arm.expr);
        let span = arm.expr.span();
        let name = format_ident!("__blitz_a{}", i, span = Span::mixed_site());
        // The closure takes the macro's edition (see `common::join_nest`).
        let closure = quote_spanned!(span.resolved_at(Span::mixed_site())=> || #inner);
        // The call from the arm's first token to its last, so that a failed bound (reported
        // on the call) covers the arm.
        let new_at_end = locate_tokens(&quote!(new), last_token_span(&arm.expr));
        let new = locate_tokens(&quote!(#p::SendArm::), span);
        let new = quote!(#new #new_at_end);
        let mut args = proc_macro2::Group::new(proc_macro2::Delimiter::Parenthesis, closure);
        args.set_span(last_token_span(&arm.expr));
        arms.push(quote_spanned!(span=> let #name = #new #args;));
        branches.push(Branch {
            span,
            body: quote!(#name.run()),
        });
    }
    let (join, nested) = common::join_nest(worker, &branches, Span::call_site(), false);
    let names: Vec<Ident> = (0..fj.arms.len()).map(common::result_ident).collect();
    let join = quote!({
        #(#arms)*
        let #nested = #p::with_worker(move |#worker| { #join });
        (#(#names.into_inner(),)*)
    });
    (join, quote!((#(#names,)*)))
}

/// The span of the last token of `expr` (a whole group if it ends with one): on stable Rust a
/// proc macro cannot join spans, and the end is where a fix to the expression's type goes.
fn last_token_span(expr: &Expr) -> Span {
    expr.to_token_stream()
        .into_iter()
        .last()
        .map_or_else(|| expr.span(), |tt| tt.span())
}

/// `tokens` with the spans of their identifiers reported at `at` but resolved at their own
/// place (a `?` after the result keeps its span, so a `?` error still points at the `?`).
fn locate_idents(tokens: &TokenStream, at: Span) -> TokenStream {
    use proc_macro2::TokenTree;
    tokens
        .clone()
        .into_iter()
        .map(|mut tt| {
            if let TokenTree::Ident(ident) = &mut tt {
                ident.set_span(ident.span().located_at(at));
            }
            tt
        })
        .collect()
}

/// `tokens` (a path) reported at `at` but resolved at their own place.
fn locate_tokens(tokens: &TokenStream, at: Span) -> TokenStream {
    tokens
        .clone()
        .into_iter()
        .map(|mut tt| {
            tt.set_span(tt.span().located_at(at));
            tt
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand_str(input: TokenStream) -> String {
        fork_join(input).unwrap().to_string()
    }

    fn error(input: TokenStream) -> String {
        fork_join(input).unwrap_err().to_string()
    }

    #[test]
    fn tuple_form_is_one_nested_join() {
        let got = expand_str(quote!(f(), g(), h()));
        // Not formatted: rustfmt would brace the inner joins, which the expansion does not.
        #[rustfmt::skip]
        let want = quote!({
            let (__blitz_r0, __blitz_r1, __blitz_r2) = {
                let __blitz_a0 = ::blitz::__private::SendArm::new(|| f());
                let __blitz_a1 = ::blitz::__private::SendArm::new(|| g());
                let __blitz_a2 = ::blitz::__private::SendArm::new(|| h());
                let (__blitz_r0, (__blitz_r1, __blitz_r2)) =
                    ::blitz::__private::with_worker(move |__blitz_w| {
                        __blitz_w.join(
                            |__blitz_w| __blitz_a0.run(),
                            |__blitz_w| __blitz_w.join(
                                |__blitz_w| __blitz_a1.run(), |__blitz_w| __blitz_a2.run()),
                        )
                    });
                (
                    __blitz_r0.into_inner(),
                    __blitz_r1.into_inner(),
                    __blitz_r2.into_inner(),
                )
            };
            (__blitz_r0, __blitz_r1, __blitz_r2)
        });
        assert_eq!(
            crate::common::normalize(got),
            crate::common::normalize(want)
        );
    }

    /// Four arms nest as two joins of two, so a thief takes half of them at once.
    #[test]
    fn four_arms_nest_balanced() {
        let got = expand_str(quote!(f(), g(), h(), k()));
        // Not formatted: rustfmt would brace the inner joins, which the expansion does not.
        #[rustfmt::skip]
        let want = quote!({
            let (__blitz_r0, __blitz_r1, __blitz_r2, __blitz_r3) = {
                let __blitz_a0 = ::blitz::__private::SendArm::new(|| f());
                let __blitz_a1 = ::blitz::__private::SendArm::new(|| g());
                let __blitz_a2 = ::blitz::__private::SendArm::new(|| h());
                let __blitz_a3 = ::blitz::__private::SendArm::new(|| k());
                let ((__blitz_r0, __blitz_r1), (__blitz_r2, __blitz_r3)) =
                    ::blitz::__private::with_worker(move |__blitz_w| {
                        __blitz_w.join(
                            |__blitz_w| __blitz_w.join(
                                |__blitz_w| __blitz_a0.run(), |__blitz_w| __blitz_a1.run()),
                            |__blitz_w| __blitz_w.join(
                                |__blitz_w| __blitz_a2.run(), |__blitz_w| __blitz_a3.run()),
                        )
                    });
                (
                    __blitz_r0.into_inner(),
                    __blitz_r1.into_inner(),
                    __blitz_r2.into_inner(),
                    __blitz_r3.into_inner(),
                )
            };
            (__blitz_r0, __blitz_r1, __blitz_r2, __blitz_r3)
        });
        assert_eq!(
            crate::common::normalize(got),
            crate::common::normalize(want)
        );
    }

    #[test]
    fn binding_form_applies_try_after_the_join() {
        let got = expand_str(quote!(crate = my_blitz, a = f()?, (x, y): (u8, u8) = g()));
        let want = quote! {
            let (__blitz_r0, __blitz_r1) = {
                let __blitz_a0 = my_blitz::__private::SendArm::new(|| f());
                let __blitz_a1 = my_blitz::__private::SendArm::new(|| g());
                let (__blitz_r0, __blitz_r1) = my_blitz::__private::with_worker(
                    move |__blitz_w| {
                        __blitz_w.join(|__blitz_w| __blitz_a0.run(), |__blitz_w| __blitz_a1.run())
                    }
                );
                (__blitz_r0.into_inner(), __blitz_r1.into_inner())
            };
            let a = __blitz_r0?;
            let (x, y): (u8, u8) = __blitz_r1;
        };
        assert_eq!(
            crate::common::normalize(got),
            crate::common::normalize(want)
        );
    }

    #[test]
    fn forwarded_context_skips_the_lookup() {
        let got = crate::common::normalize(expand_str(quote!(@__blitz_worker(w) f(), g())));
        assert!(
            got.starts_with("{let(__blitz_r0,__blitz_r1)=match::blitz::__private::ForkContext::join_mode(&w){::blitz::__private::ForkMode::Join(w)=>w.join(|w|f(),|w|g()),"),
            "{got}"
        );
        assert!(!got.contains("with_worker"), "{got}");
    }

    #[test]
    fn errors() {
        assert!(error(quote!()).contains("at least two arms"));
        assert!(error(quote!(f())).contains("at least two arms"));
        assert!(error(quote!(Some(a) = f(), b = g())).contains("may not match"));
        assert!(error(quote!(1 = f(), b = g())).contains("may not match"));
        assert!(error(quote!(Ok(x) | Err(x) = f(), b = g())).contains("needs parentheses"));
        // What may match always, depending on types, is rustc's to judge.
        assert!(fork_join(quote!((Ok(x) | Err(x)) = f(), b = g())).is_ok());
        assert!(fork_join(quote!(Ok(x) = f(), E::Unit = g())).is_ok());
        assert!(error(quote!(a = f(), g())).contains("must too"));
        assert!(error(quote!(f(), { return 1 })).contains("`return` cannot leave"));
        assert!(error(quote!(a: 1 + 1, b: 2)).contains("write `name = expr`"));
        assert!(error(quote!(f(), { break })).contains("`break` cannot leave"));
        assert!(error(quote!(f(g()?), h())).contains("`?` cannot be used"));
        assert!(error(quote!(a = a + 1, b = a * 10)).contains("not the result of"));
        assert!(error(quote!((a, b) = f(), c = g(b))).contains("`b` here is"));
    }

    #[test]
    fn an_arm_may_rebind_an_earlier_arms_name() {
        assert!(fork_join(quote!(a = f(), b = v.iter().map(|a| a * 2).sum::<u64>())).is_ok());
        assert!(
            fork_join(quote!(
                a = f(),
                b = {
                    let a = 3;
                    a + 1
                }
            ))
            .is_ok()
        );
        assert!(fork_join(quote!(a = f(), b = s.a + x.a())).is_ok());
        assert!(fork_join(quote!(a = a + 1, b = g())).is_ok());
    }

    #[test]
    fn local_loops_and_closures_are_fine() {
        assert!(
            fork_join(quote!(
                loop {
                    break 1;
                },
                || { return 2 }
            ))
            .is_ok()
        );
        assert!(fork_join(quote!('a: { break 'a 1 }, 2)).is_ok());
    }
}
