//! `#[parallel]`: turns sibling self-calls of a recursive fn into fork/joins.
//!
//! Parse the arguments and the fn, analyse the body for fork points (sibling self-calls in one
//! expression, and runs of independent statements that each call the fn), then expand.
//!
//! A free fn becomes a thin wrapper that looks the worker up once (`with_worker`) and calls a
//! nested copy of the fn that takes the worker as an extra parameter and passes it down the
//! recursion, so a fork costs a `Worker::join` and nothing else. Where the worker says a fork
//! cannot be recorded (`Worker::fork_mode`), that copy hands the subtree to a second nested
//! copy, plain recursion that only polls for work requests at its fork points (through a
//! `WorkRequestPoll`, one load); a third one, fork-free, serves `cutoff`, one-worker pools and
//! subtrees under which the worker has nothing to offer. A method cannot have such a
//! nested copy (a nested fn cannot name `Self`, and a sibling method would not compile in a
//! trait impl), so a method runs its body inside `with_worker` and its recursive calls go
//! through the method itself: one thread-local lookup per call.

use std::collections::HashSet;

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::parse::{Parse, ParseStream, Parser};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{
    BinOp, Block, Expr, FnArg, GenericParam, Ident, Item, ItemFn, Lifetime, Pat, Path, Stmt, Token,
    Type,
};

use crate::common::{self, Branch, EscapeCheck};
use crate::fork_join::ForkJoin;

/// `#[parallel(cutoff = expr, crate = path)]`.
#[derive(Default)]
pub(crate) struct Args {
    cutoff: Option<Expr>,
    krate: Option<Path>,
}

impl Parse for Args {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut args = Args::default();
        while !input.is_empty() {
            if common::peek_crate_arg(input) {
                let kw: Token![crate] = input.parse()?;
                input.parse::<Token![=]>()?;
                if args.krate.is_some() {
                    return Err(syn::Error::new_spanned(kw, "duplicate argument `crate`"));
                }
                args.krate = Some(common::parse_crate_value(input)?);
            } else {
                let name: Ident = input.parse().map_err(|e| {
                    syn::Error::new(
                        e.span(),
                        "expected an argument: `cutoff = <bool expr>` or `crate = path`",
                    )
                })?;
                if name != "cutoff" {
                    return Err(syn::Error::new_spanned(
                        &name,
                        format!(
                            "unknown argument `{name}`: `#[parallel]` takes \
                             `cutoff = <bool expr over the parameters>` and `crate = path`"
                        ),
                    ));
                }
                if args.cutoff.is_some() {
                    return Err(syn::Error::new_spanned(
                        &name,
                        "duplicate argument `cutoff`",
                    ));
                }
                input.parse::<Token![=]>()?;
                args.cutoff = Some(input.parse()?);
            }
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        Ok(args)
    }
}

/// Entry point: parse, analyse, expand.
pub(crate) fn parallel(args: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let args = Args::parse.parse2(args)?;
    let func = parse_fn(item)?;
    let mode = analyse_signature(&func)?;
    expand(args, func, mode)
}

fn parse_fn(item: TokenStream) -> syn::Result<ItemFn> {
    if let Ok(f) = syn::parse2::<syn::TraitItemFn>(item.clone()) {
        if f.default.is_none() {
            return Err(syn::Error::new_spanned(
                &f.sig,
                "`#[parallel]` needs a fn with a body: put it on the method in each `impl` \
                 of the trait (or on a default body here)",
            ));
        }
    }
    let item: Item = syn::parse2(item)?;
    let what = |tokens: &dyn ToTokens, kind: &str| {
        let advice = if kind.starts_with("an impl") {
            "put it on the recursive method inside"
        } else {
            "put it on a recursive fn, or use `fork_join!` or `par_for!` inside a fn"
        };
        Err(syn::Error::new_spanned(
            tokens.to_token_stream(),
            format!("`#[parallel]` cannot be used on {kind}: {advice}"),
        ))
    };
    match item {
        Item::Fn(f) => Ok(f),
        Item::Struct(s) => what(&s.struct_token, "a struct"),
        Item::Enum(e) => what(&e.enum_token, "an enum"),
        Item::Impl(i) => what(&i.impl_token, "an impl block"),
        Item::Trait(t) => what(&t.trait_token, "a trait"),
        Item::Mod(m) => what(&m.mod_token, "a module"),
        Item::Const(c) => what(&c.const_token, "a const"),
        Item::Static(s) => what(&s.static_token, "a static"),
        Item::Type(t) => what(&t.type_token, "a type alias"),
        Item::Use(u) => what(&u.use_token, "a `use`"),
        other => what(&other, "this item (a fn with a body is needed)"),
    }
}

/// How the recursion is reached.
enum Mode {
    /// A free fn: self-calls are `name(..)`; rewritten to a nested fn taking the worker.
    Free,
    /// A method or associated fn: self-calls are `Self::name(..)` and `self.name(..)`.
    Method,
}

fn analyse_signature(func: &ItemFn) -> syn::Result<Mode> {
    let sig = &func.sig;
    if let Some(t) = &sig.asyncness {
        return Err(syn::Error::new_spanned(
            t,
            "`#[parallel]` cannot be used on an `async fn`: forked calls run as plain \
             closures on worker threads; make the fn synchronous, or fork inside it with \
             `fork_join!`",
        ));
    }
    if let Some(t) = &sig.constness {
        return Err(syn::Error::new_spanned(
            t,
            "`#[parallel]` cannot be used on a `const fn`: the parallel version needs the \
             thread pool, which does not exist at compile time; remove `const`",
        ));
    }
    if let Some(abi) = &sig.abi {
        return Err(syn::Error::new_spanned(
            abi,
            "`#[parallel]` cannot be used on an `extern` fn: wrap a Rust `#[parallel]` fn \
             in the `extern` one instead",
        ));
    }
    if let Some(v) = &sig.variadic {
        return Err(syn::Error::new_spanned(
            v,
            "`#[parallel]` does not support variadic fns",
        ));
    }
    let has_receiver = sig.receiver().is_some();
    // `Self` in a nested item (an `impl` inside the body) says nothing about this fn.
    let body_tokens = func
        .block
        .stmts
        .iter()
        .filter(|s| !matches!(s, Stmt::Item(_)))
        .map(ToTokens::to_token_stream);
    let mentions_self = mentions_self_type(sig.to_token_stream())
        || body_tokens.into_iter().any(mentions_self_type);
    Ok(if has_receiver || mentions_self {
        Mode::Method
    } else {
        Mode::Free
    })
}

fn mentions_self_type(tokens: TokenStream) -> bool {
    tokens.into_iter().any(|tt| match tt {
        TokenTree::Ident(i) => i == "Self",
        TokenTree::Group(g) => mentions_self_type(g.stream()),
        _ => false,
    })
}

/// The names generated code uses.
struct Names {
    krate: Path,
    worker: Ident,
    name: Ident,
    /// The nested fn taking the worker (free fns only).
    inner: Ident,
    /// The nested fork-free clone (free fns only): below `cutoff`, and on one worker.
    serial: Ident,
    /// The nested clone for subtrees that cannot be promoted (free fns only): plain recursion
    /// that polls for work requests at its fork points.
    plain: Ident,
}

fn expand(args: Args, func: ItemFn, mode: Mode) -> syn::Result<TokenStream> {
    let name = func.sig.ident.clone();
    let names = Names {
        krate: args.krate.clone().unwrap_or_else(common::default_crate),
        worker: common::worker_ident(),
        inner: format_ident!("__blitz_{}", name),
        serial: format_ident!("__blitz_{}_serial", name),
        plain: format_ident!("__blitz_{}_plain", name),
        name,
    };
    let style = match mode {
        Mode::Free => Style::JoinOrPlain,
        Mode::Method => Style::Join,
    };
    let mut body = (*func.block).clone();
    let mut rw = Rewriter::new(&names, &mode, args.krate.clone(), style);
    rw.visit_block_mut(&mut body);
    if let Some(e) = rw.error {
        return Err(e);
    }
    if rw.forks == 0 {
        let call = match mode {
            Mode::Free => format!("`{0}(a) + {0}(b)`", names.name),
            Mode::Method if func.sig.receiver().is_some() => {
                format!("`self.{0}(a) + self.{0}(b)`", names.name)
            }
            Mode::Method => format!("`Self::{0}(a) + Self::{0}(b)`", names.name),
        };
        return Err(syn::Error::new_spanned(
            &func.sig.ident,
            format!(
                "`#[parallel]` found no fork point in `{}`: it needs two recursive calls \
                 that are siblings, such as {call}, or consecutive statements that each \
                 recurse (calls inside closures and loops do not count); restructure the \
                 recursion, or remove the attribute",
                names.name
            ),
        ));
    }
    Ok(match mode {
        Mode::Free => {
            let mut plain_body = (*func.block).clone();
            let mut rw = Rewriter::new(&names, &mode, args.krate.clone(), Style::Plain);
            rw.visit_block_mut(&mut plain_body);
            if let Some(e) = rw.error {
                return Err(e);
            }
            expand_free(&args, &func, body, plain_body, &names)
        }
        Mode::Method => expand_method(&args, &func, body, &names),
    })
}

fn expand_method(args: &Args, func: &ItemFn, par_body: Block, names: &Names) -> TokenStream {
    let ItemFn {
        attrs, vis, sig, ..
    } = func;
    let krate = &names.krate;
    let w = &names.worker;
    // Annotating the closure keeps `?` and `return` inferring the fn's own types; an
    // `impl Trait` return type cannot be written there, so it is left to inference.
    let ret = match &sig.output {
        syn::ReturnType::Default => quote!(-> ()),
        syn::ReturnType::Type(arrow, ty) if !contains_impl_trait(ty) => quote!(#arrow #ty),
        _ => quote!(),
    };
    let par = quote!(#krate::__private::with_worker(|#w| #ret #par_body));
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
    quote! {
        #(#attrs)*
        #vis #sig {
            #body
        }
    }
}

fn expand_free(
    args: &Args,
    func: &ItemFn,
    par_body: Block,
    plain_body: Block,
    names: &Names,
) -> TokenStream {
    let ItemFn {
        attrs, vis, sig, ..
    } = func;
    let krate = &names.krate;
    let w = &names.worker;

    // The nested fns' signature: impl-Trait arguments become generic parameters (a nested
    // fn's body cannot name the caller's opaque types), and elided lifetimes the return type
    // borrows from get a name (the worker parameter would make output elision ambiguous).
    let mut inner_sig = sig.clone();
    let mut synthesized = 0usize;
    for arg in inner_sig.inputs.iter_mut() {
        if let FnArg::Typed(pt) = arg {
            let mut conv = ImplTraitToGeneric {
                params: Vec::new(),
                next: &mut synthesized,
            };
            conv.visit_type_mut(&mut pt.ty);
            for p in conv.params {
                inner_sig.generics.params.push(p);
            }
        }
    }
    name_elided_lifetimes(&mut inner_sig);

    // The wrapper forwards its arguments by name; non-ident patterns get a hygienic name.
    let mut outer_sig = sig.clone();
    let mut forwarded = Vec::new();
    for (i, arg) in outer_sig.inputs.iter_mut().enumerate() {
        if let FnArg::Typed(pt) = arg {
            let ident = match &*pt.pat {
                Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => p.ident.clone(),
                _ => format_ident!("__blitz_arg{}", i, span = Span::mixed_site()),
            };
            *pt.pat = syn::parse_quote!(#ident);
            forwarded.push(ident);
        }
    }

    let turbofish = {
        let mut gargs: Vec<TokenStream> = Vec::new();
        for p in &sig.generics.params {
            match p {
                GenericParam::Type(t) => gargs.push(t.ident.to_token_stream()),
                GenericParam::Const(c) => gargs.push(c.ident.to_token_stream()),
                GenericParam::Lifetime(_) => {}
            }
        }
        gargs.extend((0..synthesized).map(|_| quote!(_)));
        if gargs.is_empty() {
            quote!()
        } else {
            quote!(::<#(#gargs),*>)
        }
    };

    let inner = &names.inner;
    let serial = &names.serial;
    let mut inner_fn_sig = inner_sig.clone();
    inner_fn_sig.ident = inner.clone();
    inner_fn_sig
        .inputs
        .insert(0, syn::parse_quote!(#w: &#krate::__private::Worker));

    // The fork-free clone: the body as written, its self-calls renamed to the clone. Used
    // under `cutoff`, and for the whole call tree when the pool has a single worker (nobody
    // could take a forked job, so this is the program serial elision promises, at full
    // sequential speed: no worker context is threaded through the recursion).
    let mut serial_body = (*func.block).clone();
    RenameSelfCalls { names }.visit_block_mut(&mut serial_body);
    let mut serial_sig = inner_sig.clone();
    serial_sig.ident = serial.clone();
    let serial_fn = quote! {
        #[allow(clippy::too_many_arguments, clippy::only_used_in_recursion)]
        #serial_sig #serial_body
    };
    // Under `cutoff`, the serial body inline (its recursion goes to the clone): the nested
    // fns' parameters may be patterns, which could not be forwarded to the clone by name.
    let with_cutoff = |body: Block| match &args.cutoff {
        None => body.to_token_stream(),
        Some(cutoff) => {
            let cut = Ident::new("__blitz_cut", Span::mixed_site());
            let cut_let = quote_spanned!(cutoff.span()=> let #cut: bool = #cutoff;);
            quote!({
                #cut_let
                if #cut #serial_body else #body
            })
        }
    };
    let inner_body = with_cutoff(par_body);

    // The plain clone: where a fork cannot be recorded, nothing forked below it can be until
    // the worker promotes an older fork (see `Worker::fork_mode`), so the inner fn hands such
    // subtrees to this copy, whose fork points only poll for an idle peer's request. It gets
    // the worker's request flag alone, not the worker: one load per fork.
    let mut plain_sig = inner_sig.clone();
    plain_sig.ident = names.plain.clone();
    plain_sig.inputs.insert(
        0,
        syn::parse_quote!(#w: #krate::__private::WorkRequestPoll<'_>),
    );
    let plain_body = with_cutoff(plain_body);
    let plain_fn = quote! {
        #[allow(clippy::too_many_arguments)]
        #plain_sig #plain_body
    };
    let call = quote!(#inner #turbofish(#w, #(#forwarded),*));
    let serial_call = quote!(#serial #turbofish(#(#forwarded),*));
    let (call, serial_call) = match &sig.unsafety {
        // SAFETY (generated): the user's fn is an `unsafe fn` and its wrapper passes the nested
        // copies exactly the arguments its caller vouched for: the obligations carry over.
        Some(_) => (quote!(unsafe { #call }), quote!(unsafe { #serial_call })),
        None => (call, serial_call),
    };
    quote! {
        #(#attrs)*
        #vis #outer_sig {
            #[allow(clippy::too_many_arguments)]
            #inner_fn_sig #inner_body
            #plain_fn
            #serial_fn
            #krate::__private::with_worker(move |#w| {
                if #w.num_threads() == 1 { #serial_call } else { #call }
            })
        }
    }
}

fn contains_impl_trait(ty: &Type) -> bool {
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
        if let Type::Paren(p) = ty {
            if matches!(*p.elem, Type::ImplTrait(_)) {
                *ty = (*p.elem).clone();
            }
        }
        if let Type::ImplTrait(it) = ty {
            let name = format_ident!("__BlitzImpl{}", *self.next);
            *self.next += 1;
            let bounds = &it.bounds;
            self.params.push(syn::parse_quote!(#name: #bounds));
            *ty = syn::parse_quote!(#name);
            return;
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

/// Elided lifetimes (`&T`, `'_`) in a type, counted or replaced.
struct Elided<'a> {
    count: usize,
    named: HashSet<String>,
    replace: Option<&'a Lifetime>,
}

impl VisitMut for Elided<'_> {
    fn visit_type_reference_mut(&mut self, r: &mut syn::TypeReference) {
        match &mut r.lifetime {
            None => {
                self.count += 1;
                if let Some(l) = self.replace {
                    r.lifetime = Some(l.clone());
                }
            }
            Some(l) => self.visit_lifetime_mut(l),
        }
        self.visit_type_mut(&mut r.elem);
    }

    fn visit_lifetime_mut(&mut self, l: &mut Lifetime) {
        if l.ident == "_" {
            self.count += 1;
            if let Some(new) = self.replace {
                *l = new.clone();
            }
        } else if l.ident != "static" {
            self.named.insert(l.ident.to_string());
        }
    }

    // Trait objects and fn pointers have their own elision rules.
    fn visit_type_bare_fn_mut(&mut self, _: &mut syn::TypeBareFn) {}
    fn visit_type_trait_object_mut(&mut self, _: &mut syn::TypeTraitObject) {}
}

fn name_elided_lifetimes(sig: &mut syn::Signature) {
    let syn::ReturnType::Type(_, ret) = &mut sig.output else {
        return;
    };
    let mut out = Elided {
        count: 0,
        named: HashSet::new(),
        replace: None,
    };
    out.visit_type_mut(&mut ret.clone());
    if out.count == 0 {
        return;
    }
    let mut inputs = Elided {
        count: 0,
        named: HashSet::new(),
        replace: None,
    };
    for arg in sig.inputs.iter_mut() {
        if let FnArg::Typed(pt) = arg {
            inputs.visit_type_mut(&mut pt.ty.clone());
        }
    }
    let name: Lifetime = if inputs.count > 0 {
        let l = Lifetime::new("'__blitz_elided", Span::call_site());
        let mut rep = Elided {
            count: 0,
            named: HashSet::new(),
            replace: Some(&l),
        };
        for arg in sig.inputs.iter_mut() {
            if let FnArg::Typed(pt) = arg {
                rep.visit_type_mut(&mut pt.ty);
            }
        }
        sig.generics.params.insert(0, syn::parse_quote!(#l));
        l
    } else if inputs.named.len() == 1 {
        let n = inputs.named.iter().next().expect("one");
        Lifetime::new(&format!("'{n}"), Span::call_site())
    } else {
        return;
    };
    let mut rep = Elided {
        count: 0,
        named: HashSet::new(),
        replace: Some(&name),
    };
    rep.visit_type_mut(ret);
}

/// Is `expr` a self-call, and if so where is its callee name (for spans)?
fn is_self_call(expr: &Expr, names: &Names, mode: &Mode) -> bool {
    match (expr, mode) {
        (Expr::Call(c), Mode::Free) => match &*c.func {
            Expr::Path(p) => {
                p.qself.is_none()
                    && p.path.leading_colon.is_none()
                    && p.path.segments.len() == 1
                    && p.path.segments[0].ident == names.name
            }
            _ => false,
        },
        (Expr::Call(c), Mode::Method) => match &*c.func {
            Expr::Path(p) => {
                p.qself.is_none()
                    && p.path.segments.len() == 2
                    && p.path.segments[0].ident == "Self"
                    && p.path.segments[1].ident == names.name
            }
            _ => false,
        },
        (Expr::MethodCall(m), Mode::Method) => {
            m.method == names.name
                && matches!(&*m.receiver, Expr::Path(p) if p.path.is_ident("self"))
        }
        _ => false,
    }
}

/// What a fork point becomes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    /// `Worker::join` (methods: they have no nested clones).
    Join,
    /// The inner fn of a free fn: `Worker::join`, unless the worker says a fork here could
    /// never be promoted; then the branches call the plain clone, one after the other.
    JoinOrPlain,
    /// The plain clone: poll for a work request, then the branches one after the other.
    Plain,
}

/// The fork-point rewriter.
struct Rewriter<'a> {
    names: &'a Names,
    mode: &'a Mode,
    forward_crate: Option<Path>,
    style: Style,
    forks: usize,
    error: Option<syn::Error>,
    /// Inside a loop: no forks and no redirected calls, but `fork_join!` still gets the
    /// worker (the loop runs on this thread).
    in_loop: usize,
}

impl<'a> Rewriter<'a> {
    fn new(names: &'a Names, mode: &'a Mode, forward_crate: Option<Path>, style: Style) -> Self {
        Rewriter {
            names,
            mode,
            forward_crate,
            style,
            forks: 0,
            error: None,
            in_loop: 0,
        }
    }

    /// The branch as the plain clone and as the serial clone run it, when this fork point has
    /// those forms (the inner fn's).
    fn twins(&mut self, branch: &Expr) -> Option<(Expr, Expr)> {
        if self.style != Style::JoinOrPlain {
            return None;
        }
        let mut plain = branch.clone();
        let mut rw = Rewriter::new(
            self.names,
            self.mode,
            self.forward_crate.clone(),
            Style::Plain,
        );
        rw.visit_expr_mut(&mut plain);
        if let Some(e) = rw.error {
            self.fail(e);
        }
        let mut serial = branch.clone();
        RenameSelfCalls { names: self.names }.visit_expr_mut(&mut serial);
        Some((plain, serial))
    }

    /// The fork of `branches` in this rewriter's style, and the pattern binding its results.
    /// `plain` and `serial` hold the branches' plain and serial forms (`Style::JoinOrPlain`
    /// only; for `Style::Plain`, `branches` already are plain).
    fn fork(
        &mut self,
        branches: &[Branch],
        plain: &[Branch],
        serial: &[Branch],
        span: Span,
    ) -> (TokenStream, TokenStream) {
        self.forks += 1;
        let w = &self.names.worker;
        let (join, pat) = common::join_nest(w, branches, span);
        match self.style {
            Style::Join => (join, pat),
            Style::Plain => {
                // `w` is the plain clone's `WorkRequestPoll`. The poll is a statement of its
                // own, so the branches stay a plain sequence of self-calls (which the optimiser
                // can turn into a loop, as it does the sequential fn's).
                let seq = common::tuple_nest(branches);
                (quote_spanned!(span=> { #w.poll(); #seq }), pat)
            }
            Style::JoinOrPlain => {
                let plain = common::tuple_nest(plain);
                let serial = common::tuple_nest(serial);
                let krate = &self.names.krate;
                let mode = quote!(#krate::__private::ForkMode);
                (
                    quote_spanned!(span=> match #w.fork_mode() {
                        #mode::Join(#w) => #join,
                        #mode::Plain(#w) => #plain,
                        #mode::Serial => #serial,
                    }),
                    pat,
                )
            }
        }
    }

    fn fail(&mut self, e: syn::Error) {
        if self.error.is_none() {
            self.error = Some(e);
        }
    }

    fn self_call(&self, e: &Expr) -> bool {
        is_self_call(e, self.names, self.mode)
    }

    /// Rewrites a free self-call `f(args)` to `inner(w, args)` (`plain(w, args)` in the
    /// plain clone).
    fn redirect(&self, e: &mut Expr) {
        if let (Expr::Call(c), Mode::Free) = (e, self.mode) {
            if let Expr::Path(p) = &mut *c.func {
                let seg = &mut p.path.segments[0];
                let target = match self.style {
                    Style::Plain => &self.names.plain,
                    Style::Join | Style::JoinOrPlain => &self.names.inner,
                };
                seg.ident = Ident::new(&target.to_string(), seg.ident.span());
                let w = &self.names.worker;
                c.args.insert(0, syn::parse_quote!(#w));
            }
        }
    }

    /// Forks the self-call operands among `ops` if there are at least two, returning the
    /// `let (r0, ..) = join(..)` statement; the operands are replaced by the results.
    fn fork_operands(&mut self, ops: Vec<&mut Expr>, span: Span) -> Option<TokenStream> {
        let (names, mode) = (self.names, self.mode);
        let candidates = ops
            .iter()
            .filter(|e| {
                let mut e = (**e).clone();
                call_slot(&mut e, names, mode).is_some()
            })
            .count();
        if candidates < 2 {
            for e in ops {
                self.visit_expr_mut(e);
            }
            return None;
        }
        let mut branches = Vec::new();
        let mut plain = Vec::new();
        let mut serial = Vec::new();
        for op in ops {
            let span = op.span();
            let Some(slot) = call_slot(op, names, mode) else {
                self.visit_expr_mut(op);
                continue;
            };
            if let Err(e) = common::check_escapes(
                slot,
                &EscapeCheck {
                    place: "a forked call",
                    allow_top_continue: false,
                    advice: "; compute the argument before the call",
                    continue_advice: "; compute the argument before the call",
                },
            ) {
                self.fail(e);
                return None;
            }
            let r = common::result_ident(branches.len());
            let mut call = std::mem::replace(slot, syn::parse_quote!(#r));
            if let Some((plain_call, serial_call)) = self.twins(&call) {
                plain.push(Branch {
                    span,
                    body: plain_call.to_token_stream(),
                });
                serial.push(Branch {
                    span,
                    body: serial_call.to_token_stream(),
                });
            }
            self.visit_expr_mut(&mut call);
            branches.push(Branch {
                span,
                body: call.to_token_stream(),
            });
            // What is applied to the result (`.field`, `.method(args)`, ...) runs after the
            // join; its own operands may still need rewriting.
            self.visit_expr_mut(op);
        }
        let (fork, pat) = self.fork(&branches, &plain, &serial, span);
        Some(quote!(let #pat = #fork;))
    }

    /// Statement-level fork points: runs of independent statements that each make a
    /// self-call.
    fn fork_statements(&mut self, block: &mut Block) {
        let stmts = std::mem::take(&mut block.stmts);
        let mut out: Vec<Stmt> = Vec::new();
        let mut group: Vec<Stmt> = Vec::new();
        let mut bound: HashSet<String> = HashSet::new();
        for stmt in stmts {
            if self.groupable(&stmt) {
                let mut binds = HashSet::new();
                if let Stmt::Local(l) = &stmt {
                    collect_pat_idents(&l.pat, &mut binds);
                }
                // A later statement that uses an earlier one's binding depends on it; one that
                // rebinds a name cannot share the group's single `let` pattern.
                let depends = mentions_any(&stmt, &bound) || !binds.is_disjoint(&bound);
                if !group.is_empty() && depends {
                    self.flush(&mut group, &mut out, false);
                    bound.clear();
                }
                bound.extend(binds);
                group.push(stmt);
            } else {
                self.flush(&mut group, &mut out, false);
                bound.clear();
                out.push(stmt);
            }
        }
        // Only here can the group end with the block's tail expression.
        self.flush(&mut group, &mut out, true);
        block.stmts = out;
    }

    fn groupable(&self, stmt: &Stmt) -> bool {
        let expr = match stmt {
            Stmt::Local(l) => match &l.init {
                Some(init) if init.diverge.is_none() => &*init.expr,
                _ => return false,
            },
            Stmt::Expr(e, _) => e,
            _ => return false,
        };
        let (inner, _) = common::peel_try(expr);
        let no_escape = common::check_escapes(
            inner,
            &EscapeCheck {
                place: "",
                allow_top_continue: false,
                advice: "",
                continue_advice: "",
            },
        )
        .is_ok();
        no_escape && contains_self_call(inner, self.names, self.mode)
    }

    fn flush(&mut self, group: &mut Vec<Stmt>, out: &mut Vec<Stmt>, at_end: bool) {
        if group.len() < 2 {
            out.append(group);
            return;
        }
        let tail = at_end && matches!(group.last(), Some(Stmt::Expr(_, None)));
        let group_span = group[0].span();
        let mut branches = Vec::new();
        let mut plain = Vec::new();
        let mut serial = Vec::new();
        let mut pats = Vec::new();
        let mut types = Vec::new();
        let mut results = Vec::new();
        for (i, stmt) in group.drain(..).enumerate() {
            let span = stmt.span();
            let (pat, ty, mut expr) = match stmt {
                Stmt::Local(l) => {
                    let (pat, ty) = match l.pat {
                        Pat::Type(pt) => (*pt.pat, Some(*pt.ty)),
                        p => (p, None),
                    };
                    (pat.to_token_stream(), ty, *l.init.expect("groupable").expr)
                }
                Stmt::Expr(e, _) => (quote!(_), None, e),
                _ => unreachable!("groupable"),
            };
            let (inner, tries) = peel_try_owned(&mut expr);
            let mut inner = inner;
            let typed = match (&ty, tries.is_empty()) {
                (Some(ty), true) => Some(ty),
                _ => None,
            };
            if let Some((plain_inner, serial_inner)) = self.twins(&inner) {
                plain.push(Branch {
                    span,
                    body: common::typed_value(&plain_inner, typed),
                });
                serial.push(Branch {
                    span,
                    body: common::typed_value(&serial_inner, typed),
                });
            }
            self.visit_expr_mut(&mut inner);
            let body = match typed {
                Some(ty) if self.style != Style::Plain => quote_spanned!(span=> -> #ty { #inner }),
                _ => common::typed_value(&inner, typed),
            };
            branches.push(Branch { span, body });
            results.push(common::apply_tries(&common::result_ident(i), &tries));
            pats.push(pat);
            types.push(ty.map_or_else(|| quote!(_), |t| t.to_token_stream()));
        }
        let (fork, jpat) = self.fork(&branches, &plain, &serial, group_span);
        out.push(syn::parse_quote!(let #jpat = #fork;));
        let tail_value = if tail {
            pats.pop();
            types.pop();
            results.pop()
        } else {
            None
        };
        let ty = if types.iter().all(|t| t.to_string() == "_") {
            quote!()
        } else {
            quote!(: (#(#types,)*))
        };
        out.push(syn::parse_quote!(let (#(#pats,)*) #ty = (#(#results,)*);));
        if let Some(value) = tail_value {
            out.push(Stmt::Expr(syn::parse_quote!(#value), None));
        }
    }
}

/// Peels parens and `?` from an owned expression, returning the inner one and the `?`s.
fn peel_try_owned(expr: &mut Expr) -> (Expr, Vec<Token![?]>) {
    let placeholder: Expr = syn::parse_quote!(());
    let e = std::mem::replace(expr, placeholder);
    let mut tries = Vec::new();
    let mut e = e;
    loop {
        match e {
            Expr::Paren(p) => e = *p.expr,
            Expr::Try(t) => {
                tries.push(t.question_token);
                e = *t.expr;
            }
            other => {
                tries.reverse();
                return (other, tries);
            }
        }
    }
}

/// The self-call an operand is built on, looking through what is applied to its result
/// (parens, `?`, `.field`, `.method(..)`, `[i]`, `as T`, unary operators, `&`): those are
/// applied after the join. `None` if the operand is not built on a self-call.
fn call_slot<'e>(e: &'e mut Expr, names: &Names, mode: &Mode) -> Option<&'e mut Expr> {
    if is_self_call(e, names, mode) {
        return Some(e);
    }
    match e {
        Expr::Paren(p) => call_slot(&mut p.expr, names, mode),
        Expr::Try(t) => call_slot(&mut t.expr, names, mode),
        Expr::Field(f) => call_slot(&mut f.base, names, mode),
        Expr::MethodCall(m) => call_slot(&mut m.receiver, names, mode),
        Expr::Index(i) => call_slot(&mut i.expr, names, mode),
        Expr::Cast(c) => call_slot(&mut c.expr, names, mode),
        Expr::Unary(u) => call_slot(&mut u.expr, names, mode),
        Expr::Reference(r) => call_slot(&mut r.expr, names, mode),
        _ => None,
    }
}

fn is_fork_binop(op: &BinOp) -> bool {
    use BinOp::*;
    matches!(
        op,
        Add(_)
            | Sub(_)
            | Mul(_)
            | Div(_)
            | Rem(_)
            | BitXor(_)
            | BitAnd(_)
            | BitOr(_)
            | Shl(_)
            | Shr(_)
            | Eq(_)
            | Lt(_)
            | Le(_)
            | Ne(_)
            | Ge(_)
            | Gt(_)
    )
}

/// The operands of a chain of (non-short-circuiting, non-assigning) binary operators.
fn binary_leaves<'a>(e: &'a mut Expr, out: &mut Vec<&'a mut Expr>) {
    if !matches!(e, Expr::Binary(b) if is_fork_binop(&b.op)) {
        out.push(e);
        return;
    }
    if let Expr::Binary(b) = e {
        binary_leaves(&mut b.left, out);
        binary_leaves(&mut b.right, out);
    }
}

impl VisitMut for Rewriter<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if self.error.is_some() {
            return;
        }
        match e {
            Expr::Closure(_) | Expr::Async(_) => return,
            Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => {
                self.in_loop += 1;
                syn::visit_mut::visit_expr_mut(self, e);
                self.in_loop -= 1;
                return;
            }
            _ if self.in_loop > 0 => {
                syn::visit_mut::visit_expr_mut(self, e);
                return;
            }
            _ => {}
        }
        let span = e.span();
        let fork = match e {
            Expr::Binary(b) if is_fork_binop(&b.op) => {
                let mut ops = Vec::new();
                binary_leaves(&mut b.left, &mut ops);
                binary_leaves(&mut b.right, &mut ops);
                self.fork_operands(ops, span)
            }
            Expr::Tuple(t) => self.fork_operands(t.elems.iter_mut().collect(), span),
            Expr::Array(a) => self.fork_operands(a.elems.iter_mut().collect(), span),
            Expr::Call(c) => {
                let fork = self.fork_operands(c.args.iter_mut().collect(), span);
                self.visit_expr_mut(&mut c.func);
                fork
            }
            Expr::MethodCall(m) => {
                let mut ops: Vec<&mut Expr> = vec![&mut *m.receiver];
                ops.extend(m.args.iter_mut());
                self.fork_operands(ops, span)
            }
            Expr::Struct(s) => {
                let fields = s.fields.iter_mut().map(|f| &mut f.expr).collect();
                let fork = self.fork_operands(fields, span);
                if let Some(rest) = &mut s.rest {
                    self.visit_expr_mut(rest);
                }
                fork
            }
            _ => {
                syn::visit_mut::visit_expr_mut(self, e);
                None
            }
        };
        // The operands are done; what is left is this node itself being a self-call.
        if self.self_call(e) {
            self.redirect(e);
        }
        if let Some(join) = fork {
            let inner = std::mem::replace(e, syn::parse_quote!(()));
            *e = syn::parse2(quote_spanned!(span=> { #join #inner })).expect("block");
        }
    }

    fn visit_block_mut(&mut self, block: &mut Block) {
        if self.in_loop == 0 {
            self.fork_statements(block);
        }
        // Statements that were grouped are already rewritten; the others still need it, and
        // visiting the generated ones again is harmless (they contain no self-call names).
        for stmt in &mut block.stmts {
            self.visit_stmt_mut(stmt);
        }
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        let is_fork_join = mac
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "fork_join");
        if !is_fork_join {
            return;
        }
        // Invalid input is left for `fork_join!` itself to report.
        let Ok(mut fj) = syn::parse2::<ForkJoin>(mac.tokens.clone()) else {
            return;
        };
        if fj.worker.is_none() {
            fj.worker = Some(self.names.worker.clone());
        }
        if fj.krate.is_none() {
            fj.krate = self.forward_crate.clone();
        }
        for arm in &mut fj.arms {
            self.visit_expr_mut(&mut arm.expr);
        }
        self.forks += 1;
        mac.tokens = fj.to_token_stream();
    }

    fn visit_item_mut(&mut self, _: &mut Item) {}
}

/// Renames self-calls to the serial clone (free fns with a cutoff).
struct RenameSelfCalls<'a> {
    names: &'a Names,
}

impl VisitMut for RenameSelfCalls<'_> {
    fn visit_expr_call_mut(&mut self, c: &mut syn::ExprCall) {
        if let Expr::Path(p) = &mut *c.func {
            if p.qself.is_none() && p.path.segments.len() == 1 {
                let seg = &mut p.path.segments[0];
                if seg.ident == self.names.name {
                    seg.ident = Ident::new(&self.names.serial.to_string(), seg.ident.span());
                }
            }
        }
        syn::visit_mut::visit_expr_call_mut(self, c);
    }

    fn visit_item_mut(&mut self, _: &mut Item) {}
}

fn contains_self_call(e: &Expr, names: &Names, mode: &Mode) -> bool {
    struct Finder<'a> {
        names: &'a Names,
        mode: &'a Mode,
        found: bool,
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_expr(&mut self, e: &'ast Expr) {
            if is_self_call(e, self.names, self.mode) {
                self.found = true;
            }
            match e {
                Expr::Closure(_)
                | Expr::Async(_)
                | Expr::ForLoop(_)
                | Expr::While(_)
                | Expr::Loop(_) => {}
                _ => syn::visit::visit_expr(self, e),
            }
        }
        fn visit_item(&mut self, _: &'ast Item) {}
    }
    let mut f = Finder {
        names,
        mode,
        found: false,
    };
    f.visit_expr(e);
    f.found
}

fn collect_pat_idents(pat: &Pat, out: &mut HashSet<String>) {
    struct C<'a>(&'a mut HashSet<String>);
    impl<'ast> Visit<'ast> for C<'_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0.insert(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    C(out).visit_pat(pat);
}

/// Conservative: any identifier token equal to a bound name counts as a use.
fn mentions_any(stmt: &Stmt, names: &HashSet<String>) -> bool {
    fn go(tokens: TokenStream, names: &HashSet<String>) -> bool {
        tokens.into_iter().any(|tt| match tt {
            TokenTree::Ident(i) => names.contains(&i.to_string()),
            TokenTree::Group(g) => go(g.stream(), names),
            _ => false,
        })
    }
    go(stmt.to_token_stream(), names)
}

#[cfg(test)]
mod tests;
