//! Finding fork points in the body and rewriting them.
//!
//! A fork point is two or more sibling recursive calls: the operands of one expression
//! (`a(x) + a(y)`, a tuple, the arguments of a call, struct fields) or a run of consecutive
//! independent statements that each make one (an operand or statement counts when it makes
//! the call itself or in a closure it passes to a call). Calls inside loops are not fork
//! points. Every fork point becomes a match on the runtime's `ForkMode` of the context:
//!
//! ```text
//! match ForkContext::fork_mode(&cx) {
//!     ForkMode::Join(cx) => cx.join(|cx| a, |cx| b),     // recorded fork
//!     ForkMode::Plain(cx) => (a, b),                      // plain recursion, polling
//!     ForkMode::Serial => { let cx = SerialContext; (a, b) } // fork-free
//! }
//! ```
//!
//! The arms hold the same branch text; each recursive call in it is redirected to the copy
//! with the `cx` of its arm, so each arm recurses into the copy's instance for its context.

use std::collections::HashSet;

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{BinOp, Block, Expr, Ident, Item, Pat, Path, Stmt, Token};

use super::placement::Placement;
use super::recursion::{CallForm, Callee};
use crate::common::{self, Branch, EscapeCheck};
use crate::fork_join::ForkJoin;

/// The names generated code uses.
pub(super) struct Names {
    pub(super) krate: Path,
    /// The context parameter (`__blitz_w`, hygienic).
    pub(super) cx: Ident,
    /// The fast copy.
    pub(super) copy: Ident,
}

/// The fork-point rewriter.
pub(super) struct Rewriter<'a> {
    names: &'a Names,
    callee: &'a Callee,
    placement: Placement,
    /// The `crate = path` argument, forwarded to `fork_join!` inside the body.
    forward_crate: Option<Path>,
    pub(super) forks: usize,
    pub(super) error: Option<syn::Error>,
    /// Why the first statement that recurses could not join a statement fork: the `?`,
    /// `return` or `break` inside it. Reported if the fn ends up with no fork point at all.
    pub(super) unforkable_statement: Option<syn::Error>,
    /// Inside a loop: no fork points, but calls are still redirected.
    in_loop: usize,
}

impl<'a> Rewriter<'a> {
    pub(super) fn new(
        names: &'a Names,
        callee: &'a Callee,
        placement: Placement,
        forward_crate: Option<Path>,
    ) -> Self {
        Rewriter {
            names,
            callee,
            placement,
            forward_crate,
            forks: 0,
            error: None,
            unforkable_statement: None,
            in_loop: 0,
        }
    }

    /// The fork of `branches` (closure bodies for the join) and `values` (the same branches
    /// as values, for the sequential arms), and the pattern binding its results.
    fn fork(
        &mut self,
        branches: &[Branch],
        values: &[Branch],
        span: Span,
    ) -> (TokenStream, TokenStream) {
        self.forks += 1;
        let cx = &self.names.cx;
        let krate = &self.names.krate;
        let (join, pat) = common::join_nest(cx, branches, span);
        let seq = common::tuple_nest(values);
        let p = quote!(#krate::__private);
        (
            quote_spanned!(span=> match #p::ForkContext::fork_mode(&#cx) {
                #p::ForkMode::Join(#cx) => #join,
                #p::ForkMode::Plain(#cx) => #seq,
                #p::ForkMode::Serial => {
                    let #cx = #p::SerialContext;
                    #seq
                }
            }),
            pat,
        )
    }

    fn fail(&mut self, e: syn::Error) {
        if self.error.is_none() {
            self.error = Some(e);
        }
    }

    /// Points a recursive call at the copy, passing the context: `f(args)` becomes
    /// `copy(cx, args)`, `x.f(args)` becomes `x.copy(cx, args)`, `Self::f(s, args)` becomes
    /// `Self::copy(s, cx, args)`. Calls that may belong to another type stay as written.
    fn redirect(&self, e: &mut Expr) {
        if self.placement == Placement::Detached {
            return;
        }
        let Some(form) = self.callee.call_form(e) else {
            return;
        };
        let cx = &self.names.cx;
        let copy = &self.names.copy;
        match (form, e) {
            (CallForm::Free | CallForm::SelfPath, Expr::Call(c)) => {
                let Expr::Path(p) = &mut *c.func else {
                    return;
                };
                let seg = p.path.segments.last_mut().expect("a path");
                seg.ident = Ident::new(&copy.to_string(), seg.ident.span());
                if let syn::PathArguments::AngleBracketed(args) = &mut seg.arguments {
                    args.args.push(syn::parse_quote!(_));
                }
                let at = usize::from(form == CallForm::SelfPath && self.callee.has_receiver);
                c.args.insert(at, syn::parse_quote!(#cx));
            }
            (CallForm::PlaceMethod, Expr::MethodCall(m)) => {
                m.method = Ident::new(&copy.to_string(), m.method.span());
                if let Some(t) = &mut m.turbofish {
                    t.args.push(syn::parse_quote!(_));
                }
                m.args.insert(0, syn::parse_quote!(#cx));
            }
            _ => {}
        }
    }

    /// Forks the recursive-call operands among `ops` if there are at least two, returning the
    /// `let (r0, ..) = fork;` statement; the operands are replaced by the results.
    fn fork_operands(&mut self, ops: Vec<&mut Expr>, span: Span) -> Option<TokenStream> {
        let callee = self.callee;
        // An operand built on a recursive call forks that call; one that makes a recursive
        // call otherwise (through a closure passed to a call) forks as a whole.
        let built_on_call = |e: &Expr| call_slot(&mut e.clone(), callee).is_some();
        let candidates = ops
            .iter()
            .filter(|e| built_on_call(e) || callee.makes_call(e))
            .count();
        if candidates < 2 {
            for e in ops {
                self.visit_expr_mut(e);
            }
            return None;
        }
        let mut branches = Vec::new();
        for op in ops {
            let span = op.span();
            let slot = if built_on_call(op) {
                call_slot(op, callee).expect("built on a call")
            } else if callee.makes_call(op) {
                &mut *op
            } else {
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
            self.visit_expr_mut(&mut call);
            branches.push(Branch {
                span,
                body: call.to_token_stream(),
            });
            // What is applied to the result (`.field`, `.method(args)`, ...) runs after the
            // join; its own operands may still need rewriting.
            self.visit_expr_mut(op);
        }
        let (fork, pat) = self.fork(&branches, &branches, span);
        Some(quote!(let #pat = #fork;))
    }

    /// Statement-level fork points: runs of independent statements that each make a
    /// recursive call. Returns the block's statements, each with whether it is already
    /// rewritten (a generated fork: visiting it again would fork its sequential arms anew).
    fn fork_statements(&mut self, block: &mut Block) -> Vec<(Stmt, bool)> {
        let stmts = std::mem::take(&mut block.stmts);
        let mut out = Vec::new();
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
                out.push((stmt, false));
            }
        }
        // Only here can the group end with the block's tail expression.
        self.flush(&mut group, &mut out, true);
        out
    }

    fn groupable(&mut self, stmt: &Stmt) -> bool {
        let expr = match stmt {
            Stmt::Local(l) => match &l.init {
                Some(init) if init.diverge.is_none() => &*init.expr,
                _ => return false,
            },
            Stmt::Expr(e, _) => e,
            _ => return false,
        };
        let (inner, _) = common::peel_try(expr);
        if !self.callee.makes_call(inner) {
            return false;
        }
        let escape = common::check_escapes(
            inner,
            &EscapeCheck {
                place: "a statement that recurses",
                allow_top_continue: false,
                advice: " when it forks; keep it out of the statement",
                continue_advice: " when it forks; keep it out of the statement",
            },
        );
        match escape {
            Ok(()) => true,
            Err(e) => {
                self.unforkable_statement.get_or_insert(e);
                false
            }
        }
    }

    fn flush(&mut self, group: &mut Vec<Stmt>, out: &mut Vec<(Stmt, bool)>, at_end: bool) {
        if group.len() < 2 {
            out.extend(group.drain(..).map(|s| (s, false)));
            return;
        }
        let tail = at_end && matches!(group.last(), Some(Stmt::Expr(_, None)));
        let group_span = group[0].span();
        let mut branches = Vec::new();
        let mut values = Vec::new();
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
            let (mut inner, tries) = peel_try_owned(&mut expr);
            let typed = match (&ty, tries.is_empty()) {
                (Some(ty), true) => Some(ty),
                _ => None,
            };
            self.visit_expr_mut(&mut inner);
            let body = match typed {
                Some(ty) => quote_spanned!(span=> -> #ty { #inner }),
                None => inner.to_token_stream(),
            };
            branches.push(Branch { span, body });
            values.push(Branch {
                span,
                body: common::typed_value(&inner, typed),
            });
            results.push(common::apply_tries(&common::result_ident(i), &tries));
            pats.push(pat);
            types.push(ty.map_or_else(|| quote!(_), |t| t.to_token_stream()));
        }
        let (fork, jpat) = self.fork(&branches, &values, group_span);
        out.push((syn::parse_quote!(let #jpat = #fork;), true));
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
        out.push((
            syn::parse_quote!(let (#(#pats,)*) #ty = (#(#results,)*);),
            true,
        ));
        if let Some(value) = tail_value {
            out.push((Stmt::Expr(syn::parse_quote!(#value), None), true));
        }
    }
}

/// Peels parens and `?` from an owned expression, returning the inner one and the `?`s.
fn peel_try_owned(expr: &mut Expr) -> (Expr, Vec<Token![?]>) {
    let mut e = std::mem::replace(expr, syn::parse_quote!(()));
    let mut tries = Vec::new();
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

/// The recursive call an operand is built on, looking through what is applied to its result
/// (parens, `?`, `.field`, `.method(..)`, `[i]`, `as T`, unary operators, `&`): those are
/// applied after the join. `None` if the operand is not built on a recursive call.
fn call_slot<'e>(e: &'e mut Expr, callee: &Callee) -> Option<&'e mut Expr> {
    if callee.is_call(e) {
        return Some(e);
    }
    match e {
        Expr::Paren(p) => call_slot(&mut p.expr, callee),
        Expr::Try(t) => call_slot(&mut t.expr, callee),
        Expr::Field(f) => call_slot(&mut f.base, callee),
        Expr::MethodCall(m) => call_slot(&mut m.receiver, callee),
        Expr::Index(i) => call_slot(&mut i.expr, callee),
        Expr::Cast(c) => call_slot(&mut c.expr, callee),
        Expr::Unary(u) => call_slot(&mut u.expr, callee),
        Expr::Reference(r) => call_slot(&mut r.expr, callee),
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
            // A closure may run anywhere, and the context must not leave its thread.
            Expr::Closure(_) | Expr::Async(_) => return,
            Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => {
                self.in_loop += 1;
                syn::visit_mut::visit_expr_mut(self, e);
                self.in_loop -= 1;
                return;
            }
            _ if self.in_loop > 0 => {
                syn::visit_mut::visit_expr_mut(self, e);
                self.redirect(e);
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
        // The operands are done; what is left is this node itself being a recursive call.
        self.redirect(e);
        if let Some(join) = fork {
            let inner = std::mem::replace(e, syn::parse_quote!(()));
            *e = syn::parse2(quote_spanned!(span=> { #join #inner })).expect("block");
        }
    }

    fn visit_block_mut(&mut self, block: &mut Block) {
        if self.in_loop > 0 {
            syn::visit_mut::visit_block_mut(self, block);
            return;
        }
        for (mut stmt, rewritten) in self.fork_statements(block) {
            if !rewritten {
                self.visit_stmt_mut(&mut stmt);
            }
            block.stmts.push(stmt);
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
            fj.worker = Some(self.names.cx.clone());
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
