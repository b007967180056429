//! Generating the annotated fn and its fast copy.
//!
//! The copy is the body with its fork points rewritten (see `rewrite`), generic over a
//! `ForkContext` it takes as an extra parameter. The fn itself becomes a wrapper that looks
//! the worker up once and calls the copy with it, or with the serial context on a one-worker
//! pool (nobody could take a fork there, so the whole call tree runs as the sequential
//! program). Where the copy lives depends on the [`Placement`].

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Block, FnArg, GenericParam, Ident, ItemFn, Pat, Signature, Type};

use super::args::Args;
use super::placement::Placement;
use super::recursion::Callee;
use super::rewrite::{Names, Rewriter};
use crate::common;

pub(super) fn expand(
    args: &Args,
    func: &ItemFn,
    callee: &Callee,
    placement: Placement,
) -> syn::Result<TokenStream> {
    let names = Names {
        krate: args.krate.clone().unwrap_or_else(common::default_crate),
        cx: common::worker_ident(),
        copy: format_ident!("__blitz_{}", callee.name),
    };
    let mut body = (*func.block).clone();
    let mut rw = Rewriter::new(&names, callee, placement, args.krate.clone());
    rw.visit_block_mut(&mut body);
    if let Some(e) = rw.error {
        return Err(e);
    }
    if rw.forks == 0 {
        if rw.kept_in_order
            || rw.unparsed_fork_join
            || callee.calls_itself_in_closure_or_loop(&func.block)
            || callee.wrong_arity_call(&func.block)
        {
            // Calls in closures and loops are not fork points, nor are statements that change
            // what each other use: the fn runs as written. So does a fn that calls itself with
            // the wrong number of arguments, for rustc to report that call alone.
            return Ok(func.to_token_stream());
        }
        return Err(rw
            .unforkable_statement
            .unwrap_or_else(|| no_fork_point(func, callee)));
    }
    Ok(match placement {
        Placement::Nested => expand_nested(args, func, body, &names),
        Placement::Sibling => expand_sibling(args, func, body, &names),
        Placement::Detached => expand_detached(args, func, body, &names),
    })
}

fn no_fork_point(func: &ItemFn, callee: &Callee) -> syn::Error {
    let name = &callee.name;
    if let Some(path) = callee.qualified_call(&func.block) {
        return syn::Error::new_spanned(
            &path,
            format!(
                "`#[parallel]` found no fork point in `{name}`: a recursive call must name the \
                 fn as `{name}(..)` (a path such as `{path}` may name another fn); if this call \
                 is `{name}` itself, write `{name}(..)` in a free fn, or `Self::{name}(..)` in \
                 an impl block that a macro writes (whose header the attribute cannot see)",
                path = path.to_token_stream().to_string().replace(' ', "")
            ),
        );
    }
    if let Some(mac) = callee.call_in_macro(&func.block) {
        let mac_name = mac
            .path
            .segments
            .last()
            .map_or(String::new(), |s| s.ident.to_string());
        return syn::Error::new_spanned(
            &mac.path,
            format!(
                "`#[parallel]` found no fork point in `{name}`: it does not look inside macro \
                 invocations, so the recursive calls in this `{mac_name}!` are not fork points; \
                 bind them first (`let a = ..; let b = ..;` on consecutive lines fork) and pass \
                 the results to the macro"
            ),
        );
    }
    if let Some((pair, other)) = sibling_calls_of_another_fn(&func.block, name) {
        if let Some(rename) = use_renaming(&func.block, name, &other) {
            return syn::Error::new_spanned(
                rename,
                format!(
                    "`#[parallel]` found no fork point in `{name}`: it knows a recursive call \
                     only by the fn's own name, and this `use` renames `{name}` to `{other}`; \
                     call `{name}(..)` in the recursive calls"
                ),
            );
        }
        return syn::Error::new_spanned(
            pair,
            format!(
                "`#[parallel]` found no fork point in `{name}`: it forks calls of `{name}` \
                 itself, and `{other}` is another fn; to run these calls in parallel, write \
                 `blitz::fork_join!({other}(..), {other}(..))` (in each fn, for mutual \
                 recursion) and remove the attribute"
            ),
        );
    }
    if let Some(error) = calls_that_never_run_together(&func.block, callee) {
        return error;
    }
    let call = if !callee.is_method {
        format!("`{name}(a) + {name}(b)`")
    } else if callee.has_receiver {
        let args = if callee.arity == 0 { "" } else { ".." };
        format!("`left.{name}({args}) + right.{name}({args})`")
    } else {
        format!("`Self::{name}(a) + Self::{name}(b)`")
    };
    syn::Error::new_spanned(
        &func.sig.ident,
        format!(
            "`#[parallel]` found no fork point in `{name}`: it needs two recursive calls that \
             are siblings, such as {call}, or consecutive statements that each recurse; \
             restructure the recursion, or remove the attribute"
        ),
    )
}

/// The first place where two recursive calls stand that cannot fork because they do not
/// both run, said so: the sides of `&&` or `||`, or the branches of an `if` or a `match` of
/// which only one runs (when no branch has two calls of its own).
fn calls_that_never_run_together(block: &Block, callee: &Callee) -> Option<syn::Error> {
    struct Calls<'a>(&'a Callee, usize);
    impl<'ast> Visit<'ast> for Calls<'_> {
        fn visit_expr(&mut self, e: &'ast syn::Expr) {
            if self.0.is_call(e) {
                self.1 += 1;
            }
            syn::visit::visit_expr(self, e);
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    struct Finder<'a> {
        callee: &'a Callee,
        found: Option<syn::Error>,
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
            let short_circuit = match b.op {
                syn::BinOp::And(_) => Some(("&&", "true")),
                syn::BinOp::Or(_) => Some(("||", "false")),
                _ => None,
            };
            if self.found.is_none()
                && let Some((op, value)) = short_circuit
                && self.calls(|c| c.visit_expr(&b.left)) > 0
                && self.calls(|c| c.visit_expr(&b.right)) > 0
            {
                let name = &self.callee.name;
                self.found = Some(syn::Error::new_spanned(
                    b,
                    format!(
                        "`#[parallel]` found no fork point in `{name}`: `{op}` runs its right \
                         side only if the left one is {value}, so these recursive calls are not \
                         siblings it can run at once; to run both in parallel anyway (both then \
                         always run), bind them first: `let (a, b) = (left, right); a {op} b`"
                    ),
                ));
            }
            syn::visit::visit_expr_binary(self, b);
        }
        fn visit_expr_if(&mut self, i: &'ast syn::ExprIf) {
            if self.found.is_none()
                && let Some((_, other)) = &i.else_branch
            {
                let then = self.calls(|c| c.visit_block(&i.then_branch));
                let otherwise = self.calls(|c| c.visit_expr(other));
                if then == 1 && otherwise == 1 {
                    self.found = Some(self.one_branch_runs(i, "`if`"));
                }
            }
            syn::visit::visit_expr_if(self, i);
        }
        fn visit_expr_match(&mut self, m: &'ast syn::ExprMatch) {
            if self.found.is_none() {
                let per_arm: Vec<usize> = m
                    .arms
                    .iter()
                    .map(|a| self.calls(|c| c.visit_expr(&a.body)))
                    .collect();
                if per_arm.iter().filter(|&&n| n > 0).count() > 1 && per_arm.iter().all(|&n| n < 2)
                {
                    self.found = Some(self.one_branch_runs(m, "`match`"));
                }
            }
            syn::visit::visit_expr_match(self, m);
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    impl Finder<'_> {
        /// The recursive calls `visit` finds.
        fn calls(&self, visit: impl FnOnce(&mut Calls)) -> usize {
            let mut calls = Calls(self.callee, 0);
            visit(&mut calls);
            calls.1
        }

        fn one_branch_runs(&self, at: &dyn ToTokens, what: &str) -> syn::Error {
            let name = &self.callee.name;
            syn::Error::new_spanned(
                at,
                format!(
                    "`#[parallel]` found no fork point in `{name}`: its recursive calls are in \
                     different branches of this {what}, and only one branch runs, so there is \
                     nothing to run in parallel (a search that recurses into one side); \
                     remove the attribute"
                ),
            )
        }
    }
    let mut finder = Finder {
        callee,
        found: None,
    };
    finder.visit_block(block);
    finder.found
}

/// A `use` in `block` that brings a path ending in `name` in as `other` (`use self::fib as
/// g;`).
fn use_renaming(block: &Block, name: &Ident, other: &Ident) -> Option<syn::UseRename> {
    struct Finder<'a> {
        name: &'a Ident,
        other: &'a Ident,
        found: Option<syn::UseRename>,
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_use_rename(&mut self, r: &'ast syn::UseRename) {
            if self.found.is_none() && r.ident == *self.name && r.rename == *self.other {
                self.found = Some(r.clone());
            }
        }
        // Items nested in the body have their own scope, except a `use` itself.
        fn visit_item(&mut self, item: &'ast syn::Item) {
            if let syn::Item::Use(u) = item {
                self.visit_item_use(u);
            }
        }
    }
    let mut finder = Finder {
        name,
        other,
        found: None,
    };
    finder.visit_block(block);
    finder.found
}

/// The first binary operation whose operands are both calls of one fn other than `name`
/// (`odd(n - 1) + odd(n - 2)` in `even`), and that fn's name.
fn sibling_calls_of_another_fn(block: &Block, name: &Ident) -> Option<(syn::ExprBinary, Ident)> {
    struct Finder<'a> {
        name: &'a Ident,
        found: Option<(syn::ExprBinary, Ident)>,
    }
    fn callee_ident(e: &syn::Expr) -> Option<&Ident> {
        match e {
            syn::Expr::Call(c) => common::lone_ident(&c.func),
            _ => None,
        }
    }
    impl<'a> Visit<'a> for Finder<'_> {
        fn visit_expr_binary(&mut self, b: &'a syn::ExprBinary) {
            if self.found.is_none()
                && let (Some(l), Some(r)) = (callee_ident(&b.left), callee_ident(&b.right))
                && l == r
                && l != self.name
            {
                self.found = Some((b.clone(), l.clone()));
            }
            syn::visit::visit_expr_binary(self, b);
        }
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut finder = Finder { name, found: None };
    finder.visit_block(block);
    finder.found
}

/// The context's type parameter in the copy's signature.
fn cx_type() -> Ident {
    Ident::new("__BlitzCx", Span::call_site())
}

/// The copy's signature: the fn's, renamed, with the context parameter (after the receiver)
/// and its type parameter, and `impl Trait` arguments turned into type parameters (a copy
/// nested in a fn cannot name the fn's opaque types, and the wrapper names the copy's
/// parameters with a turbofish).
fn copy_signature(sig: &Signature, names: &Names) -> (Signature, usize) {
    let mut copy = sig.clone();
    copy.ident = names.copy.clone();
    let mut synthesized = 0usize;
    for arg in copy.inputs.iter_mut() {
        if let FnArg::Typed(pt) = arg {
            let mut conv = ImplTraitToGeneric {
                params: Vec::new(),
                next: &mut synthesized,
            };
            conv.visit_type_mut(&mut pt.ty);
            copy.generics.params.extend(conv.params);
        }
    }
    let (krate, cx, cx_ty) = (&names.krate, &names.cx, cx_type());
    copy.generics
        .params
        .push(syn::parse_quote!(#cx_ty: #krate::__private::ForkContext));
    let at = usize::from(sig.receiver().is_some());
    copy.inputs.insert(at, syn::parse_quote!(#cx: #cx_ty));
    (copy, synthesized)
}

/// The wrapper's signature, its parameters bound to plain names (patterns get hygienic ones)
/// so it can forward them, and those names (`self` first, if there is a receiver).
fn wrapper_signature(sig: &Signature) -> (Signature, Vec<TokenStream>) {
    let mut outer = sig.clone();
    let mut forwarded = Vec::new();
    for (i, arg) in outer.inputs.iter_mut().enumerate() {
        match arg {
            FnArg::Receiver(_) => forwarded.push(quote!(self)),
            FnArg::Typed(pt) => {
                let ident = match &*pt.pat {
                    Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => p.ident.clone(),
                    _ => format_ident!("__blitz_arg{}", i, span = Span::mixed_site()),
                };
                *pt.pat = syn::parse_quote!(#ident);
                forwarded.push(ident.to_token_stream());
            }
        }
    }
    // `mut self` is the copy's business (`mut x` went with the pattern).
    if let Some(FnArg::Receiver(r)) = outer.inputs.first_mut()
        && r.reference.is_none()
    {
        r.mutability = None;
    }
    (outer, forwarded)
}

/// `::<T, N, _, _>` naming the copy's type and const parameters, or nothing if inference
/// can do it (the copy has only the context's parameter).
fn turbofish(sig: &Signature, synthesized: usize) -> TokenStream {
    let mut args: Vec<TokenStream> = sig
        .generics
        .params
        .iter()
        .filter_map(|p| match p {
            GenericParam::Type(t) => Some(t.ident.to_token_stream()),
            // Braced: a bare name in a generic argument is read as a type first, which a type
            // of the same name in scope would then be.
            GenericParam::Const(c) => {
                let ident = &c.ident;
                Some(quote!({ #ident }))
            }
            GenericParam::Lifetime(_) => None,
        })
        .collect();
    if args.is_empty() && synthesized == 0 {
        return quote!();
    }
    args.extend((0..=synthesized).map(|_| quote!(_)));
    quote!(::<#(#args),*>)
}

/// The copy's body: the rewritten body, under `cutoff` run with the serial context. The serial
/// instance skips the test (it is serial already), which leaves it one copy of the body: the
/// sequential function.
fn copy_body(args: &Args, body: Block, names: &Names) -> TokenStream {
    match &args.cutoff {
        None => body.to_token_stream(),
        Some(cutoff) => {
            let (krate, cx, cx_ty) = (&names.krate, &names.cx, cx_type());
            let cut = Ident::new("__blitz_cut", Span::mixed_site());
            let cut_let = quote_spanned!(cutoff.span()=> let #cut: bool = #cutoff;);
            // The statements, not the block: the user's braces as a block's tail would draw
            // `unused_braces` on a body that is one expression.
            let stmts = &body.stmts;
            quote!({
                let #cut = !<#cx_ty as #krate::__private::ForkContext>::SERIAL && {
                    #cut_let
                    #cut
                };
                if #cut {
                    let #cx = #krate::__private::SerialContext;
                    #(#stmts)*
                } else #body
            })
        }
    }
}

/// The wrapper's body: look the worker up, call the copy.
fn enter_copy(
    sig: &Signature,
    names: &Names,
    call: impl Fn(TokenStream) -> TokenStream,
) -> TokenStream {
    let (krate, cx) = (&names.krate, &names.cx);
    let serial = call(quote!(#krate::__private::SerialContext));
    let parallel = call(cx.to_token_stream());
    let (serial, parallel) = match &sig.unsafety {
        // SAFETY (generated): the user's fn is an `unsafe fn` and its wrapper passes the copy
        // exactly the arguments its caller vouched for: the obligations carry over.
        Some(_) => (quote!(unsafe { #serial }), quote!(unsafe { #parallel })),
        None => (serial, parallel),
    };
    // Not a `move` closure: rustc then borrows the `Copy` arguments (which need `Sync`, as
    // they do in the forks already) and moves the rest (which need `Send`). A `move` closure
    // would demand `Send` of every argument, which `impl Fn + Sync + Copy` does not promise.
    // The closure is located at the parameters, which it captures: an argument that cannot
    // go to a worker (`Rc`, `&RefCell`) gets its error there, not on the attribute. Only its
    // bars and braces move, which name nothing: the names inside keep their hygiene. rustc
    // reports at the first token of that span, so it starts at the first parameter whose type
    // looks like one that cannot go (see `may_stay_on_its_thread`), if any.
    let at_inputs = sig
        .inputs
        .iter()
        .find(|input| match input {
            syn::FnArg::Typed(t) => may_stay_on_its_thread(&t.ty),
            syn::FnArg::Receiver(_) => false,
        })
        .map_or_else(|| sig.inputs.span(), Spanned::span);
    let bar = || {
        let mut bar = proc_macro2::Punct::new('|', proc_macro2::Spacing::Alone);
        bar.set_span(at_inputs);
        bar
    };
    let mut body = proc_macro2::Group::new(
        proc_macro2::Delimiter::Brace,
        quote!(if #cx.num_threads() == 1 { #serial } else { #parallel }),
    );
    body.set_span(at_inputs);
    let (open, close) = (bar(), bar());
    call_with_worker(sig, names, quote!(#open #cx #close #body))
}

/// `with_worker(closure)`, the call located at the fn's return type: the result goes back
/// from a worker to the caller, so a return type that is not `Send` gets its error there, not
/// on the attribute.
fn call_with_worker(sig: &Signature, names: &Names, closure: TokenStream) -> TokenStream {
    let krate = &names.krate;
    let path = quote!(#krate::__private::with_worker);
    let syn::ReturnType::Type(_, ty) = &sig.output else {
        return quote!(#path(#closure));
    };
    let span = ty.span();
    let mut args = proc_macro2::Group::new(proc_macro2::Delimiter::Parenthesis, closure);
    args.set_span(span);
    let path = common::respan(path, span);
    quote!(#path #args)
}

/// What a wrapper and its copy are made of.
struct Parts {
    copy_sig: Signature,
    copy_body: TokenStream,
    outer_sig: Signature,
    /// The wrapper's arguments, in order, to forward to the copy.
    forwarded: Vec<TokenStream>,
    /// What the wrapper's call of the copy names its type parameters with.
    turbofish: TokenStream,
}

impl Parts {
    fn new(args: &Args, sig: &Signature, body: Block, names: &Names) -> Parts {
        let (copy_sig, synthesized) = copy_signature(sig, names);
        let (outer_sig, forwarded) = wrapper_signature(sig);
        Parts {
            copy_sig,
            copy_body: copy_body(args, body, names),
            outer_sig,
            forwarded,
            turbofish: turbofish(sig, synthesized),
        }
    }
}

/// Rebinds the forwarded parameters whose names start with `_` under hygienic names, in
/// statements that allow `clippy::used_underscore_binding`: the wrapper passes them on, which
/// that lint would report in the user's signature. Returns the statements.
fn rebind_underscored(forwarded: &mut [TokenStream]) -> TokenStream {
    let mut lets = TokenStream::new();
    for (i, name) in forwarded.iter_mut().enumerate() {
        if !name.to_string().starts_with('_') {
            continue;
        }
        let rebound = format_ident!("__blitz_a{}", i, span = Span::mixed_site());
        lets.extend(quote! {
            #[allow(clippy::used_underscore_binding)]
            let #rebound = #name;
        });
        *name = rebound.to_token_stream();
    }
    lets
}

/// The lints a copy of the fn is spared: `too_many_arguments` for the context it takes,
/// `only_used_in_recursion` for a parameter it only passes on, and clippy's lints on the
/// signature alone, which the wrapper with the user's signature already gets once.
fn copy_lint_allows() -> TokenStream {
    quote! {
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
    }
}

/// The user's lint-level attributes, for the wrapper and for a copy beside it: a sibling copy
/// is not inside the wrapper, so `#[allow(..)]` on the fn would not reach its body. An
/// `#[expect(..)]` becomes `#[allow(..)]` on both, since the lint may fire in either.
fn lint_levels(attrs: &[syn::Attribute]) -> (Vec<syn::Attribute>, Vec<syn::Attribute>) {
    let mut wrapper = Vec::new();
    let mut copy = Vec::new();
    for attr in attrs {
        let path = attr.path();
        let level = ["allow", "warn", "deny", "forbid", "expect"]
            .iter()
            .any(|l| path.is_ident(l));
        if !level {
            wrapper.push(attr.clone());
            continue;
        }
        let mut attr = attr.clone();
        if attr.path().is_ident("expect")
            && let syn::Meta::List(list) = &mut attr.meta
        {
            list.path = syn::parse_quote!(allow);
        }
        wrapper.push(attr.clone());
        copy.push(attr);
    }
    (wrapper, copy)
}

/// A free fn: the copy is nested in the wrapper.
fn expand_nested(args: &Args, func: &ItemFn, body: Block, names: &Names) -> TokenStream {
    let ItemFn {
        attrs, vis, sig, ..
    } = func;
    let Parts {
        copy_sig,
        copy_body,
        outer_sig,
        forwarded,
        turbofish: tf,
    } = Parts::new(args, sig, body, names);
    let mut forwarded = forwarded;
    let rebound = rebind_underscored(&mut forwarded);
    let copy = &names.copy;
    let copy_allows = copy_lint_allows();
    let enter = enter_copy(sig, names, |cx| quote!(#copy #tf(#cx, #(#forwarded),*)));
    let body = user_braces(
        func,
        quote! {
            // `#[inline]`: see `expand_sibling`.
            #[inline]
            #copy_allows
            #copy_sig #copy_body
            #rebound
            #enter
        },
    );
    quote! {
        #(#attrs)*
        #vis #outer_sig #body
    }
}

/// `inner` in braces that carry the span of the user's body. rustc reports an unused fn
/// (`dead_code`) only if the whole item comes from the user's code, braces included.
fn user_braces(func: &ItemFn, inner: TokenStream) -> proc_macro2::Group {
    let mut group = proc_macro2::Group::new(proc_macro2::Delimiter::Brace, inner);
    group.set_span(func.block.brace_token.span.join());
    group
}

/// A method of an inherent impl: the copy is a hidden associated fn beside it.
fn expand_sibling(args: &Args, func: &ItemFn, body: Block, names: &Names) -> TokenStream {
    let ItemFn {
        attrs, vis, sig, ..
    } = func;
    let Parts {
        copy_sig,
        copy_body,
        outer_sig,
        forwarded,
        turbofish: tf,
    } = Parts::new(args, sig, body, names);
    let mut forwarded = forwarded;
    let rebound = rebind_underscored(&mut forwarded);
    let (attrs, copy_levels) = lint_levels(attrs);
    let copy = &names.copy;
    let copy_allows = copy_lint_allows();
    let has_receiver = sig.receiver().is_some();
    let enter = enter_copy(sig, names, |cx| {
        let (first, rest) = match has_receiver {
            true => (Some(&forwarded[0]), &forwarded[1..]),
            false => (None, &forwarded[..]),
        };
        let first = first.map(|f| quote!(#f,));
        quote!(Self::#copy #tf(#first #cx, #(#rest),*))
    });
    let wrapper_body = user_braces(
        func,
        quote! {
            #rebound
            #enter
        },
    );
    quote! {
        #(#attrs)*
        #vis #outer_sig #wrapper_body

        #[doc(hidden)]
        #(#copy_levels)*
        // Unused when the method is, and then not reported: its name starts with `_`. (An
        // `allow(dead_code)` would make it a root of the liveness analysis, and with it the
        // method, which a probe's other arm names.)
        // The hint lets LLVM inline one level of the copy into itself. Without
        // it a method's serial instance keeps its unused receiver in a register
        // through the whole recursion (fib as a method ran at x1.20 of
        // sequential on one thread, x1.00 with it), and the fork-mode match
        // costs a call per level.
        #[inline]
        #copy_allows
        #copy_sig #copy_body
    }
}

/// A method that cannot have a copy beside it (a trait impl or default body): the body runs
/// under the worker, and its recursive calls go through the method itself.
fn expand_detached(args: &Args, func: &ItemFn, body: Block, names: &Names) -> TokenStream {
    let ItemFn {
        attrs, vis, sig, ..
    } = func;
    let cx = &names.cx;
    // Annotating the closure keeps `?` and `return` inferring the fn's own types; an
    // `impl Trait` return type cannot be written there, so it is left to inference.
    let ret = match &sig.output {
        syn::ReturnType::Default => quote!(-> ()),
        syn::ReturnType::Type(arrow, ty) if !contains_impl_trait(ty) => quote!(#arrow #ty),
        _ => quote!(),
    };
    let par = call_with_worker(sig, names, quote!(|#cx| #ret #body));
    let body = match &args.cutoff {
        None => par,
        Some(cutoff) => {
            let serial = &func.block;
            let cut = Ident::new("__blitz_cut", Span::mixed_site());
            let cut_let = quote_spanned!(cutoff.span()=> let #cut: bool = #cutoff;);
            quote!({
                #cut_let
                if #cut #serial else { #par }
            })
        }
    };
    let body = user_braces(func, body);
    quote! {
        #(#attrs)*
        #vis #sig #body
    }
}

pub(super) fn contains_impl_trait(ty: &Type) -> bool {
    struct Finder(bool);
    impl<'a> Visit<'a> for Finder {
        fn visit_type_impl_trait(&mut self, _: &'a syn::TypeImplTrait) {
            self.0 = true;
        }
    }
    let mut f = Finder(false);
    f.visit_type(ty);
    f.0
}

struct ImplTraitToGeneric<'a> {
    params: Vec<GenericParam>,
    next: &'a mut usize,
}

impl VisitMut for ImplTraitToGeneric<'_> {
    fn visit_type_mut(&mut self, ty: &mut Type) {
        // `&(impl A + B)` needs its parentheses; `&(T)` would warn.
        if let Type::Paren(p) = ty
            && matches!(*p.elem, Type::ImplTrait(_))
        {
            *ty = (*p.elem).clone();
        }
        if let Type::ImplTrait(it) = ty {
            // Spanned at the `impl`: an error about the parameter then points at the argument's
            // type, not at the attribute.
            let name = format_ident!("__BlitzImpl{}", *self.next, span = it.impl_token.span);
            *self.next += 1;
            let bounds = &it.bounds;
            self.params.push(syn::parse_quote!(#name: #bounds));
            *ty = syn::parse_quote!(#name);
            return;
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

/// Whether a parameter type looks as if its values cannot be sent to a worker or shared with
/// one, as far as its tokens tell: an `Rc`, a `Cell` or `RefCell`, a raw pointer, or a `dyn`
/// trait object that does not name `Sync`. Only where an error is reported depends
/// on it.
fn may_stay_on_its_thread(ty: &syn::Type) -> bool {
    let mut words = Vec::new();
    let mut raw_pointer = false;
    fn walk(tokens: TokenStream, words: &mut Vec<String>, raw_pointer: &mut bool) {
        let mut star = false;
        for tt in tokens {
            match tt {
                proc_macro2::TokenTree::Group(g) => walk(g.stream(), words, raw_pointer),
                proc_macro2::TokenTree::Ident(i) => {
                    let word = i.to_string();
                    *raw_pointer |= star && (word == "const" || word == "mut");
                    words.push(word);
                }
                proc_macro2::TokenTree::Punct(p) => star = p.as_char() == '*',
                proc_macro2::TokenTree::Literal(_) => {}
            }
        }
    }
    walk(ty.to_token_stream(), &mut words, &mut raw_pointer);
    let has = |w: &str| words.iter().any(|x| x == w);
    raw_pointer
        || ["Rc", "Cell", "RefCell", "UnsafeCell", "OnceCell"]
            .iter()
            .any(|w| has(w))
        || (has("dyn") && !has("Sync"))
}
