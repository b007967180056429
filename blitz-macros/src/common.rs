//! Pieces shared by the three macros: the `crate = path` argument, the k-way join builder and
//! the check for control flow that would escape a closure.

use proc_macro_crate::FoundCrate;
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::parse::ParseStream;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Expr, Ident, LitStr, Path, Token};

/// The facade's package name, under which the calling crate's Cargo.toml lists it.
const FACADE_PACKAGE: &str = "blitz-par";

/// The facade's library name: what an unrenamed dependency is called in code.
const FACADE_LIB: &str = "blitz";

/// The path generated code uses to reach the facade when no `crate = path` is given: the name
/// the calling crate's Cargo.toml gives the `blitz-par` package, so a renamed dependency
/// (`par = { package = "blitz-par", .. }`) gives `::par`, and `::blitz` otherwise.
pub(crate) fn default_crate() -> Path {
    facade_path(proc_macro_crate::crate_name(FACADE_PACKAGE).ok())
}

/// [`default_crate`] for the answer of the manifest lookup (`None`: no answer).
fn facade_path(found: Option<FoundCrate>) -> Path {
    let name = match found {
        // Inside the facade package: its library (which declares `extern crate self as
        // blitz;`), examples and doctests all reach it as `blitz`.
        Some(FoundCrate::Itself) => FACADE_LIB.to_owned(),
        // The dependency key with `-` as `_`. An unrenamed `blitz-par = ..` gives `blitz_par`,
        // but the crate is then known by its library name; proc-macro-crate answers the same
        // for the facade's own integration tests and benches. (A dependency renamed to
        // `blitz_par` itself needs `crate = blitz_par`.)
        Some(FoundCrate::Name(name)) if name == FACADE_PACKAGE.replace('-', "_") => {
            FACADE_LIB.to_owned()
        }
        Some(FoundCrate::Name(name)) => name,
        // Not a direct dependency (a crate that re-exports Blitz passes `crate = path`), or no
        // Cargo manifest to read (a build outside Cargo).
        None => FACADE_LIB.to_owned(),
    };
    let ident = Ident::new(&name, Span::call_site());
    syn::parse_quote!(::#ident)
}

/// Parses the value of `crate = ..`: a path, or a string holding one (tokio's spelling).
pub(crate) fn parse_crate_value(input: ParseStream) -> syn::Result<Path> {
    if input.peek(LitStr) {
        let lit: LitStr = input.parse()?;
        return lit.parse_with(Path::parse_mod_style);
    }
    Path::parse_mod_style(input)
}

/// True if the stream starts with `crate =`.
pub(crate) fn peek_crate_arg(input: ParseStream) -> bool {
    input.peek(Token![crate]) && input.peek2(Token![=]) && !input.peek2(Token![==])
}

/// Hygienic names for generated locals: the user cannot see or shadow them.
pub(crate) fn worker_ident() -> Ident {
    Ident::new("__blitz_w", Span::mixed_site())
}

/// How the names of the results taken out of a dependent statement start (`#[parallel]`,
/// `Rewriter::split_dependent_past`): `__blitz_d0`, `__blitz_d1`, ...
pub(crate) const DEPENDENT_RESULT_PREFIX: &str = "__blitz_d";

/// The i-th result of a join, hygienic like [`worker_ident`].
pub(crate) fn result_ident(i: usize) -> Ident {
    format_ident!("__blitz_r{}", i, span = Span::mixed_site())
}

/// One branch of a fork: the expression it evaluates and the span errors should point at.
pub(crate) struct Branch {
    pub(crate) span: Span,
    pub(crate) body: TokenStream,
}

/// Builds one balanced nest of joins over k >= 2 branches, and the pattern that destructures
/// its result into `result_ident(0..k)`: the branches are halved, the first `k / 2` in the
/// first closure and the rest in the second, recursively, so three branches give
/// `w.join(|w| b0, |w| w.join(|w| b1, |w| b2))` and `(r0, (r1, r2))`, and four give
/// `w.join(|w| w.join(..b0, b1..), |w| w.join(..b2, b3..))` and `((r0, r1), (r2, r3))`.
///
/// Balanced, not nested to the right: the second closure, which a thief takes, holds half the
/// branches, and a thief that takes it publishes half of those in turn, so the last of k
/// branches starts after about `log2(k)` steals instead of `k - 1`.
///
/// Each closure takes the worker as a parameter with the same (hygienic) name as the outer
/// one, so a self-call rewritten inside a branch picks up the worker that runs that branch.
/// Closures carry the user's spans, and the `join` calls carry `span` (the forking expression),
/// so a borrow conflict between branches is reported on the user's code.
///
/// With `results_mut`, the pattern binds the results `mut` (what follows a `#[parallel]` fork
/// may borrow a result mutably, as in `&mut f(a)`), and the `let` that binds it must allow
/// `unused_mut`.
pub(crate) fn join_nest(
    worker: &Ident,
    branches: &[Branch],
    span: Span,
    results_mut: bool,
) -> (TokenStream, TokenStream) {
    /// One side of a join: a closure over one branch, or over a nested join of several.
    fn side(
        worker: &Ident,
        branches: &[Branch],
        first: usize,
        span: Span,
        results_mut: bool,
    ) -> (TokenStream, TokenStream) {
        if let [
            Branch {
                span: branch_span,
                body,
            },
        ] = branches
        {
            let pat = result_ident(first);
            let pat = if results_mut {
                quote!(mut #pat)
            } else {
                quote!(#pat)
            };
            // The closure takes the macro's edition (mixed-site resolution), whatever the
            // caller's: 2021 closures capture disjoint fields apart (`s.a` in one branch, `s.b`
            // in the other), where a 2018 closure would capture all of `s`.
            let span = branch_span.resolved_at(Span::mixed_site());
            (quote_spanned!(span=> |#worker| #body), pat)
        } else {
            let (join, pat) = nest(worker, branches, first, span, results_mut);
            let span = span.resolved_at(Span::mixed_site());
            (quote_spanned!(span=> |#worker| #join), pat)
        }
    }
    fn nest(
        worker: &Ident,
        branches: &[Branch],
        first: usize,
        span: Span,
        results_mut: bool,
    ) -> (TokenStream, TokenStream) {
        let mid = branches.len() / 2;
        let (a, pat_a) = side(worker, &branches[..mid], first, span, results_mut);
        let (b, pat_b) = side(worker, &branches[mid..], first + mid, span, results_mut);
        (
            quote_spanned!(span=> #worker.join(#a, #b)),
            quote!((#pat_a, #pat_b)),
        )
    }
    assert!(branches.len() >= 2, "join_nest needs two branches");
    nest(worker, branches, 0, span, results_mut)
}

/// The branches of a fork evaluated one after the other, in order, as the nested tuple that
/// matches the pattern [`join_nest`] returns.
pub(crate) fn tuple_nest(branches: &[Branch]) -> TokenStream {
    if let [Branch { span, body }] = branches {
        return quote_spanned!(*span=> #body);
    }
    assert!(branches.len() >= 2, "tuple_nest needs two branches");
    let mid = branches.len() / 2;
    let first = tuple_nest(&branches[..mid]);
    let second = tuple_nest(&branches[mid..]);
    quote!((#first, #second))
}

/// `expr` as a value of type `ty` when one is given: the annotation a closure's return type
/// carries in a join, for a branch evaluated in place.
pub(crate) fn typed_value(expr: &Expr, ty: Option<&syn::Type>) -> TokenStream {
    match ty {
        None => expr.to_token_stream(),
        Some(ty) => {
            let value = Ident::new("__blitz_typed", Span::mixed_site());
            quote_spanned!(expr.span()=> { let #value: #ty = #expr; #value })
        }
    }
}

/// What escaping control flow is checked for, and how to phrase the error.
pub(crate) struct EscapeCheck<'a> {
    /// Where the code runs, for messages: "a forked call", "a `fork_join!` arm", ...
    pub(crate) place: &'a str,
    /// Unlabelled `continue` at the top level is allowed (the loop body of `par_for!`).
    pub(crate) allow_top_continue: bool,
    /// Extra advice for `break`/`return`.
    pub(crate) advice: &'a str,
    /// Extra advice for a `continue` that would leave.
    pub(crate) continue_advice: &'a str,
    /// Extra advice for a `?`.
    pub(crate) try_advice: &'a str,
}

/// The advice for a `?` where the code runs in a closure whose result is joined: move it
/// after the join.
pub(crate) const TRY_AFTER_JOIN: &str =
    "; handle the error there, or put `?` at the very end where it is applied after the join";

/// Finds the first `return`, `break`/`continue` leaving `expr`, `?` or `.await` in `expr`
/// (looking through neither closures, async blocks nor nested items, where they are local).
pub(crate) fn check_escapes(expr: &Expr, check: &EscapeCheck) -> syn::Result<()> {
    let mut v = Escapes::new(check);
    v.visit_expr(expr);
    match v.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Statements that use each label of an enclosing loop or block that `exprs` break or
/// continue to: emitted next to the escape error, where the culprit itself is dropped, so that
/// the error does not come with an "unused label" warning on the user's loop. Dead code
/// (`if false`) that keeps the user's form: a value for a `break` that had one.
pub(crate) fn outer_label_uses<'e>(exprs: impl IntoIterator<Item = &'e Expr>) -> TokenStream {
    let check = EscapeCheck {
        place: "",
        allow_top_continue: true,
        advice: "",
        continue_advice: "",
        try_advice: TRY_AFTER_JOIN,
    };
    let mut v = Escapes::new(&check);
    for expr in exprs {
        v.visit_expr(expr);
    }
    if v.outer_labels.is_empty() {
        return TokenStream::new();
    }
    let uses = v.outer_labels.iter().map(|(label, kind)| match kind {
        OuterJump::Continue => quote!(if false { continue #label; }),
        OuterJump::Break => quote!(if false { break #label; }),
        OuterJump::BreakWithValue => quote!(if false { break #label loop {}; }),
    });
    quote! {
        #[allow(unreachable_code)]
        { #(#uses)* }
    }
}

/// How a `break`/`continue` to an enclosing label is written (see [`outer_label_uses`]).
enum OuterJump {
    Continue,
    Break,
    BreakWithValue,
}

struct Escapes<'c, 'a> {
    check: &'c EscapeCheck<'a>,
    loops: usize,
    labels: Vec<String>,
    error: Option<syn::Error>,
    /// The labels outside the expression that it jumps to, first use of each.
    outer_labels: Vec<(syn::Lifetime, OuterJump)>,
}

impl<'c, 'a> Escapes<'c, 'a> {
    fn new(check: &'c EscapeCheck<'a>) -> Self {
        Escapes {
            check,
            loops: 0,
            labels: Vec::new(),
            error: None,
            outer_labels: Vec::new(),
        }
    }

    fn note_outer_label(&mut self, label: Option<&syn::Lifetime>, jump: OuterJump) {
        if let Some(label) = label
            && !self.labels.contains(&label.ident.to_string())
            && !self
                .outer_labels
                .iter()
                .any(|(l, _)| l.ident == label.ident)
        {
            self.outer_labels.push((label.clone(), jump));
        }
    }

    fn fail(&mut self, tokens: impl quote::ToTokens, msg: String) {
        if self.error.is_none() {
            self.error = Some(syn::Error::new_spanned(tokens, msg));
        }
    }

    fn in_loop<F: FnOnce(&mut Self)>(&mut self, label: Option<&syn::Label>, f: F) {
        self.loops += 1;
        if let Some(l) = label {
            self.labels.push(l.name.ident.to_string());
        }
        f(self);
        if label.is_some() {
            self.labels.pop();
        }
        self.loops -= 1;
    }

    fn leaves(&self, label: Option<&syn::Lifetime>) -> bool {
        match label {
            Some(l) => !self.labels.contains(&l.ident.to_string()),
            None => self.loops == 0,
        }
    }
}

impl<'ast> Visit<'ast> for Escapes<'_, '_> {
    fn visit_expr_return(&mut self, e: &'ast syn::ExprReturn) {
        let msg = format!(
            "`return` cannot leave {}: it runs in a closure on another thread{}",
            self.check.place, self.check.advice
        );
        self.fail(e.return_token, msg);
    }

    fn visit_expr_break(&mut self, e: &'ast syn::ExprBreak) {
        let jump = match e.expr {
            Some(_) => OuterJump::BreakWithValue,
            None => OuterJump::Break,
        };
        self.note_outer_label(e.label.as_ref(), jump);
        if self.leaves(e.label.as_ref()) {
            let msg = format!(
                "`break` cannot leave {}: it runs in a closure on another thread{}",
                self.check.place, self.check.advice
            );
            self.fail(e, msg);
            return;
        }
        syn::visit::visit_expr_break(self, e);
    }

    fn visit_expr_continue(&mut self, e: &'ast syn::ExprContinue) {
        self.note_outer_label(e.label.as_ref(), OuterJump::Continue);
        let top = e.label.is_none() && self.loops == 0 && self.check.allow_top_continue;
        if !top && self.leaves(e.label.as_ref()) {
            let msg = format!(
                "`continue` cannot leave {}: it runs in a closure on another thread{}",
                self.check.place, self.check.continue_advice
            );
            self.fail(e, msg);
        }
    }

    fn visit_expr_try(&mut self, e: &'ast syn::ExprTry) {
        let msg = format!(
            "`?` cannot be used inside {}: it runs in a closure on another thread{}",
            self.check.place, self.check.try_advice
        );
        self.fail(e.question_token, msg);
    }

    fn visit_expr_await(&mut self, e: &'ast syn::ExprAwait) {
        let msg = format!(
            "`.await` cannot be used inside {}: it runs in a plain closure on a worker thread",
            self.check.place
        );
        self.fail(e.await_token, msg);
    }

    fn visit_expr_for_loop(&mut self, e: &'ast syn::ExprForLoop) {
        // The iterated expression is outside the loop.
        self.visit_expr(&e.expr);
        self.in_loop(e.label.as_ref(), |v| v.visit_block(&e.body));
    }

    fn visit_expr_while(&mut self, e: &'ast syn::ExprWhile) {
        self.in_loop(e.label.as_ref(), |v| {
            v.visit_expr(&e.cond);
            v.visit_block(&e.body);
        });
    }

    fn visit_expr_loop(&mut self, e: &'ast syn::ExprLoop) {
        self.in_loop(e.label.as_ref(), |v| v.visit_block(&e.body));
    }

    fn visit_expr_block(&mut self, e: &'ast syn::ExprBlock) {
        // A labelled block is a `break 'label` target but not a `continue` target; counting
        // it as a loop is harmless because rustc rejects `continue 'block` anyway.
        match &e.label {
            Some(label) => {
                self.labels.push(label.name.ident.to_string());
                syn::visit::visit_expr_block(self, e);
                self.labels.pop();
            }
            None => syn::visit::visit_expr_block(self, e),
        }
    }

    // Closures, async blocks and items have their own `return`/`?`/loops.
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Peels parentheses and trailing `?`s off an expression: `(f(x)?)` gives `f(x)` and the
/// `?`s, outermost last, to re-apply after the join.
pub(crate) fn peel_try(expr: &Expr) -> (&Expr, Vec<Token![?]>) {
    let mut tries = Vec::new();
    let mut e = expr;
    loop {
        match e {
            Expr::Paren(p) => e = &p.expr,
            Expr::Try(t) => {
                tries.push(t.question_token);
                e = &t.expr;
            }
            _ => break,
        }
    }
    tries.reverse();
    (e, tries)
}

/// `r??` for the `?`s peeled by [`peel_try`], each with the user's span so an error in the
/// `?` conversion points at the user's `?`.
pub(crate) fn apply_tries(result: &Ident, tries: &[Token![?]]) -> TokenStream {
    let mut out = quote!(#result);
    for q in tries {
        let span = q.span();
        out = quote_spanned!(span=> #out?);
    }
    out
}

/// The places the left side of an assignment writes: the place itself (`x`, `s.f[i]`), or
/// each place a destructuring assignment names (`(a, _) = ..`, `[x, ..] = ..`,
/// `S { f: a, .. } = ..`, `T(a, b) = ..`).
pub(crate) fn assignees(left: &Expr) -> Vec<&Expr> {
    fn go<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
        match e {
            Expr::Tuple(t) => t.elems.iter().for_each(|e| go(e, out)),
            Expr::Array(a) => a.elems.iter().for_each(|e| go(e, out)),
            Expr::Struct(s) => s.fields.iter().for_each(|f| go(&f.expr, out)),
            // A tuple struct or variant: its arguments are the places.
            Expr::Call(c) => c.args.iter().for_each(|e| go(e, out)),
            Expr::Paren(p) => go(&p.expr, out),
            // `_` and `..` write nothing.
            Expr::Infer(_) => {}
            Expr::Range(r) if r.start.is_none() && r.end.is_none() => {}
            place => out.push(place),
        }
    }
    let mut out = Vec::new();
    go(left, &mut out);
    out
}

/// The identifier `e` is, if it is one alone (`x`, not `a::x`, `<T>::x` or `x::<T>`): a
/// binding, a parameter, or a fn or constant in scope.
pub(crate) fn lone_ident(e: &Expr) -> Option<&Ident> {
    match e {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident(),
        _ => None,
    }
}

/// Parses a `T` from `input`, where running out of tokens is reported at the last token left
/// (`s +=` in `par_for!(i in 0..n => s += )`), or at `before` if none is left: at the top
/// level of a macro's input, syn would report it on the whole macro call.
pub(crate) fn parse_reporting_end<T: syn::parse::Parse>(
    input: ParseStream,
    before: Span,
) -> syn::Result<T> {
    // The tokens are looked at only on that error, from a fork taken before the parse.
    let rest = input.fork();
    input.parse().map_err(|e| {
        if !e.to_string().starts_with("unexpected end of input") {
            return e;
        }
        let last = rest
            .parse::<TokenStream>()
            .ok()
            .and_then(|t| t.into_iter().last());
        syn::Error::new(
            last.map_or(before, |tt| tt.span()),
            format!("{e} after this"),
        )
    })
}

/// `e` as an error message quotes it: `*t`, `totals[0]`, `s.total`, not the token stream's
/// `* t`, `totals [0]`, `s . total`.
pub(crate) fn shown(e: &Expr) -> String {
    match e {
        Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Deref(_),
            expr,
            ..
        }) => format!("*{}", shown(expr)),
        Expr::Reference(r) => {
            let mutability = if r.mutability.is_some() { "mut " } else { "" };
            format!("&{mutability}{}", shown(&r.expr))
        }
        Expr::Index(i) => format!("{}[{}]", shown(&i.expr), shown(&i.index)),
        Expr::Field(f) => format!("{}.{}", shown(&f.base), f.member.to_token_stream()),
        Expr::Paren(p) => format!("({})", shown(&p.expr)),
        other => other
            .to_token_stream()
            .to_string()
            .replace(" . ", ".")
            .replace(" (", "(")
            .replace(" [", "["),
    }
}

/// Whether `e` holds a closure (outside nested items): its parameter types may come from
/// the call it is passed to.
pub(crate) fn contains_closure(e: &Expr) -> bool {
    struct Finder(bool);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {
            self.0 = true;
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut finder = Finder(false);
    finder.visit_expr(e);
    finder.0
}

/// Whether the receiver chain `e` calls one of the methods `names` (`kid.lock().unwrap()`,
/// `(*cell.borrow()).items`).
pub(crate) fn through_method(e: &Expr, names: &[&str]) -> bool {
    match e {
        Expr::MethodCall(m) => {
            names.iter().any(|n| m.method == n) || through_method(&m.receiver, names)
        }
        Expr::Paren(p) => through_method(&p.expr, names),
        Expr::Try(t) => through_method(&t.expr, names),
        Expr::Reference(r) => through_method(&r.expr, names),
        Expr::Unary(u) => through_method(&u.expr, names),
        Expr::Field(f) => through_method(&f.base, names),
        Expr::Index(i) => through_method(&i.expr, names),
        _ => false,
    }
}

/// The bindings a pattern introduces (`a`, `mut b`, `c @ ..`), in order.
pub(crate) fn pat_bindings(pat: &syn::Pat) -> Vec<&syn::PatIdent> {
    struct Bindings<'ast>(Vec<&'ast syn::PatIdent>);
    impl<'ast> syn::visit::Visit<'ast> for Bindings<'ast> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0.push(p);
            syn::visit::visit_pat_ident(self, p);
        }
    }
    let mut b = Bindings(Vec::new());
    syn::visit::Visit::visit_pat(&mut b, pat);
    b.0
}

/// The same tokens with every span set to `span`, so errors in generated paths point at the
/// user's token.
pub(crate) fn respan(tokens: TokenStream, span: Span) -> TokenStream {
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

/// Removes the invisible groups that `macro_rules!` puts around an `$x:expr` fragment, so the
/// macros see `f(a)?` or `v.iter().map(..)` passed through another macro as they see it
/// written directly. A group around an expression that binds less tightly than a method call
/// (`$a * 2` with `$a` = `1 + 1`) becomes parentheses, which keep its precedence.
pub(crate) struct Ungroup;

impl Ungroup {
    /// `Ungroup` applied to every expression in `e`.
    pub(crate) fn expr(e: &mut Expr) {
        Ungroup.visit_expr_mut(e);
    }
}

impl VisitMut for Ungroup {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        syn::visit_mut::visit_expr_mut(self, e);
        let Expr::Group(group) = e else { return };
        let inner = std::mem::replace(&mut *group.expr, Expr::Verbatim(TokenStream::new()));
        *e = if is_postfix_or_primary(&inner) && group.attrs.is_empty() {
            inner
        } else {
            Expr::Paren(syn::ExprParen {
                attrs: std::mem::take(&mut group.attrs),
                paren_token: syn::token::Paren(group.group_token.span),
                expr: Box::new(inner),
            })
        };
    }

    // Items have their own expansion (an inner `#[parallel]` fn sees its own groups).
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// `body`, an expression, as the tail of a block: parenthesized when it starts with a
/// block-like expression that something follows (`{ ..; r0 } as u64`, `match x { .. } * 2`),
/// which in statement position would end at the block.
pub(crate) fn as_block_tail(body: &TokenStream) -> TokenStream {
    match syn::parse2::<Expr>(body.clone()) {
        Ok(e) if !is_block_like(&e) && starts_with_block_like(&e) => quote!((#body)),
        _ => body.clone(),
    }
}

/// Whether `e` ends at its closing brace in statement position.
fn is_block_like(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Block(_)
            | Expr::Const(_)
            | Expr::ForLoop(_)
            | Expr::If(_)
            | Expr::Loop(_)
            | Expr::Match(_)
            | Expr::TryBlock(_)
            | Expr::Unsafe(_)
            | Expr::While(_)
    )
}

/// Whether the leftmost operand of `e` (what its first token starts) is block-like.
fn starts_with_block_like(e: &Expr) -> bool {
    let left = match e {
        Expr::Assign(a) => &a.left,
        Expr::Await(a) => &a.base,
        Expr::Binary(b) => &b.left,
        Expr::Call(c) => &c.func,
        Expr::Cast(c) => &c.expr,
        Expr::Field(f) => &f.base,
        Expr::Index(i) => &i.expr,
        Expr::MethodCall(m) => &m.receiver,
        Expr::Range(syn::ExprRange { start: Some(s), .. }) => s,
        Expr::Try(t) => &t.expr,
        _ => return false,
    };
    is_block_like(left) || starts_with_block_like(left)
}

/// `e` as the receiver or base of a postfix operation: parenthesized unless it binds at least
/// as tightly as a method call.
pub(crate) fn parenthesized_operand(e: Expr) -> Expr {
    if is_postfix_or_primary(&e) {
        return e;
    }
    Expr::Paren(syn::ExprParen {
        attrs: Vec::new(),
        paren_token: syn::token::Paren::default(),
        expr: Box::new(e),
    })
}

/// Whether `e` binds at least as tightly as a method call, so it means the same wherever an
/// invisible group around it is dropped.
fn is_postfix_or_primary(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Array(_)
            | Expr::Async(_)
            | Expr::Await(_)
            | Expr::Block(_)
            | Expr::Call(_)
            | Expr::Const(_)
            | Expr::Field(_)
            | Expr::Index(_)
            | Expr::Lit(_)
            | Expr::Macro(_)
            | Expr::MethodCall(_)
            | Expr::Paren(_)
            | Expr::Path(_)
            | Expr::Repeat(_)
            | Expr::Struct(_)
            | Expr::Try(_)
            | Expr::TryBlock(_)
            | Expr::Tuple(_)
            | Expr::Unsafe(_)
    )
}

#[cfg(test)]
pub(crate) fn normalize(tokens: impl ToString) -> String {
    let s = tokens.to_string();
    let mut out = String::with_capacity(s.len());
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
        if c == ',' && matches!(next, Some(')' | ']' | '}')) {
            continue;
        }
        out.push(c);
    }
    out.retain(|c| !c.is_whitespace());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(found: Option<FoundCrate>) -> String {
        normalize(facade_path(found).to_token_stream())
    }

    #[test]
    fn facade_path_follows_the_manifest() {
        assert_eq!(path(Some(FoundCrate::Itself)), "::blitz");
        assert_eq!(path(Some(FoundCrate::Name("blitz_par".into()))), "::blitz");
        assert_eq!(path(Some(FoundCrate::Name("blitz".into()))), "::blitz");
        assert_eq!(path(Some(FoundCrate::Name("par".into()))), "::par");
        assert_eq!(path(None), "::blitz");
    }

    /// This crate's tests see the facade through its dev-dependency `blitz-par = ..`, so the
    /// expansion tests' `::blitz` is what the lookup gives here.
    #[test]
    fn default_crate_in_this_package() {
        assert_eq!(normalize(default_crate().to_token_stream()), "::blitz");
    }
}
