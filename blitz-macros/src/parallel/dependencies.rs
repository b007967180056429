//! What the statements of a run read, bind and change, by name: whether a statement can
//! join a run of statements forked together (see `Rewriter::fork_statements`).
//!
//! A macro sees no types, so the analysis is by identifier and conservative: any identifier
//! in a branch counts as a read of the binding of that name.

use std::collections::HashSet;

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::visit::Visit;
use syn::{Expr, Item, Stmt};

use super::recursion::Callee;
use super::rewrite::is_assign_op;
use crate::common::pat_bindings;

/// `place = value` or `place op= value` where `place` is a binding (`x`), as a statement
/// form whose value can be forked and assigned after the join.
pub(super) fn assignment(e: &Expr) -> Option<(&Expr, TokenStream, &Expr)> {
    let (place, op, value) = match e {
        Expr::Assign(a) => (&*a.left, a.eq_token.to_token_stream(), &*a.right),
        Expr::Binary(b) if is_assign_op(&b.op) => (&*b.left, b.op.to_token_stream(), &*b.right),
        _ => return None,
    };
    let binding =
        matches!(place, Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some());
    binding.then_some((place, op, value))
}

/// What one statement of a run binds, reads and changes, by name (conservative: any
/// identifier counts as a read).
#[derive(Default)]
pub(super) struct StmtNames {
    /// Bound by a `let`.
    lets: HashSet<String>,
    /// Assigned after the join (an assignment statement's binding).
    assigned: HashSet<String>,
    /// Every identifier of what its branch runs.
    reads: HashSet<String>,
    /// Roots of the places its branch assigns to, borrows `&mut`, or calls a method on at
    /// its top (`out.extend(f(a))`): two branches must not both hold them.
    changes: HashSet<String>,
}

impl StmtNames {
    pub(super) fn of(stmt: &Stmt, callee: &Callee) -> StmtNames {
        let mut names = StmtNames::default();
        let mut finder = ChangeFinder {
            callee,
            out: &mut names.changes,
        };
        let branch = match stmt {
            Stmt::Local(l) => {
                names
                    .lets
                    .extend(pat_bindings(&l.pat).iter().map(|p| p.ident.to_string()));
                let init = l.init.as_ref().map(|i| &*i.expr);
                init.inspect(|e| finder.visit_expr(e));
                init.map(ToTokens::to_token_stream).unwrap_or_default()
            }
            Stmt::Expr(e, _) => match assignment(e) {
                Some((place, _, value)) => {
                    names.assigned.extend(idents(place.to_token_stream()));
                    finder.visit_expr(value);
                    value.to_token_stream()
                }
                None => {
                    finder.method_statement(e);
                    finder.visit_expr(e);
                    e.to_token_stream()
                }
            },
            other => other.to_token_stream(),
        };
        names.reads = idents(branch);
        names
    }
}

/// Why a statement cannot join a run.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Conflict {
    /// It uses or rebinds an earlier statement's result.
    Depends,
    /// It and an earlier statement change something the other one uses.
    Changes,
}

/// The names of the run of statements gathered so far.
#[derive(Default)]
pub(super) struct RunNames(StmtNames);

impl RunNames {
    /// Whether `next` cannot join the run: it reads what an earlier statement binds or
    /// assigns (it depends on that result), rebinds it with a `let` (the run's results share
    /// one `let`, and assignments follow it), or one of them changes what the other's branch
    /// holds (the branches would borrow it at once). Assigning what an earlier statement
    /// binds or assigns is fine: the assignments run after the join, in order.
    pub(super) fn conflict_with(&self, next: &StmtNames) -> Option<Conflict> {
        let run = &self.0;
        let bound = |names: &HashSet<String>| {
            !names.is_disjoint(&run.lets) || !names.is_disjoint(&run.assigned)
        };
        if bound(&next.reads) || bound(&next.lets) {
            Some(Conflict::Depends)
        } else if !next.reads.is_disjoint(&run.changes) || !next.changes.is_disjoint(&run.reads) {
            Some(Conflict::Changes)
        } else {
            None
        }
    }

    pub(super) fn add(&mut self, names: StmtNames) {
        let run = &mut self.0;
        run.lets.extend(names.lets);
        run.assigned.extend(names.assigned);
        run.reads.extend(names.reads);
        run.changes.extend(names.changes);
    }
}

/// Collects the roots of places a branch may change (outside nested items): assigned to,
/// borrowed `&mut`, or the receiver of a method call whose value is discarded
/// (`out.push(x);`, which is there for what it does to `out`).
struct ChangeFinder<'a> {
    callee: &'a Callee,
    out: &'a mut HashSet<String>,
}

impl ChangeFinder<'_> {
    fn method_statement(&mut self, e: &Expr) {
        if let Expr::MethodCall(m) = e
            && !self.callee.is_call(e)
            && let Some(root) = place_root(&m.receiver)
        {
            self.out.insert(root);
        }
    }
}

impl<'ast> Visit<'ast> for ChangeFinder<'_> {
    fn visit_expr(&mut self, e: &'ast Expr) {
        let target = match e {
            Expr::Assign(a) => Some(&*a.left),
            Expr::Binary(b) if is_assign_op(&b.op) => Some(&*b.left),
            Expr::Reference(r) if r.mutability.is_some() => Some(&*r.expr),
            _ => None,
        };
        if let Some(root) = target.and_then(place_root) {
            self.out.insert(root);
        }
        syn::visit::visit_expr(self, e);
    }

    fn visit_stmt(&mut self, stmt: &'ast Stmt) {
        if let Stmt::Expr(e, _) = stmt {
            self.method_statement(e);
        }
        syn::visit::visit_stmt(self, stmt);
    }

    fn visit_item(&mut self, _: &'ast Item) {}
}

/// The binding a place expression starts from: `x` of `x`, `x.a[i]`, `*x`, `(x)`.
pub(super) fn place_root(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(ToString::to_string),
        Expr::Field(f) => place_root(&f.base),
        Expr::Index(i) => place_root(&i.expr),
        Expr::Paren(p) => place_root(&p.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => place_root(&u.expr),
        _ => None,
    }
}

/// Every identifier in `tokens`.
fn idents(tokens: TokenStream) -> HashSet<String> {
    fn go(tokens: TokenStream, out: &mut HashSet<String>) {
        for tt in tokens {
            match tt {
                TokenTree::Ident(i) => {
                    out.insert(i.to_string());
                }
                TokenTree::Group(g) => go(g.stream(), out),
                _ => {}
            }
        }
    }
    let mut out = HashSet::new();
    go(tokens, &mut out);
    out
}
