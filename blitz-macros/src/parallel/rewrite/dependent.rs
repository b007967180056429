//! A statement that uses a result of the run of recursing statements before it, but makes a
//! recursive call that does not: `let a = f(x); a + f(y)`. Its independent calls join the run
//! (`let a = f(x); let d = f(y);` forks), and the statement uses their results after the join
//! (`a + d`), as the operand form `f(x) + f(y)` would.
//!
//! A call can only be taken out when nothing the statement evaluates before it, which now runs
//! after the join, could tell the difference: the same rules as for an operand between two
//! forked calls (see [`between_conflicts`]).

use std::collections::HashSet;

use proc_macro2::Span;
use quote::format_ident;
use syn::{BinOp, Expr, Stmt};

use super::{Rewriter, escapes, hoisted_arguments, is_assign_op};
use crate::parallel::dependencies::{
    Conflict, RunNames, StmtNames, assigned_roots, between_conflicts, mutated_receivers, names_any,
};
use crate::parallel::effects::CallEffects;
use crate::parallel::recursion::Callee;

/// What a walk of a statement's expression meets, in the order it is evaluated.
enum Event<'e> {
    /// A recursive call, or a call that recurses through a closure it is passed, that the run's
    /// results are not needed for: it can run in a branch of the run's fork.
    Candidate(&'e mut Expr),
    /// Anything else evaluated (a part without a candidate in it).
    Other(&'e Expr),
    /// A point past which the rest may not be evaluated (a `?` on a computed value).
    Escape,
}

/// Why no call of a dependent statement could join the run.
pub(super) enum Unsplit {
    /// Its first recursive call uses the run's results (or it has none that could run).
    Dependent,
    /// Its first recursive call and the run would both hold a place one of them changes (a
    /// `&mut` parameter passed to each): they run one after the other, as written.
    InOrder,
    /// What holds its first recursive call back, as the error to report.
    Because(syn::Error),
}

impl Rewriter<'_> {
    /// Splits `stmt`, which depends on the run `run` of statements before it (or leaves the fn
    /// or loop, and so cannot join it), into `let`s of its recursive calls that can join the
    /// run and what is left of it, which uses their results. If no call can be taken, why.
    pub(super) fn split_dependent(
        &mut self,
        stmt: &Stmt,
        run: &RunNames,
    ) -> Result<(Vec<Stmt>, Stmt), Unsplit> {
        self.split_dependent_past(stmt, run, run, &CallEffects::default())
    }

    /// [`split_dependent`](Self::split_dependent) of a statement that follows statements that
    /// do not recurse after the run: sequentially they run before the calls taken out, which
    /// will run in the run's fork, before them. So a call is taken only if it could join
    /// `run_past`, the run with their names: it uses nothing they bind or assign, shares no
    /// place with them that either changes, and names no place that the calls in them
    /// (`between`) may change, nor runs beside a call of theirs with a global effect.
    pub(super) fn split_dependent_past(
        &mut self,
        stmt: &Stmt,
        run: &RunNames,
        run_past: &RunNames,
        between: &CallEffects,
    ) -> Result<(Vec<Stmt>, Stmt), Unsplit> {
        let callee = self.callee;
        let independent = |e: &Expr| {
            let probe: Stmt = syn::parse_quote!(let _ = #e;);
            run_past
                .conflict_with(&StmtNames::of(&probe, callee), callee)
                .is_none()
                && !between.reach(e)
        };
        // First the calls that can be taken, without changing anything.
        let mut probe = stmt.clone();
        let mut events = Vec::new();
        walk_stmt(&mut probe, callee, &independent, &mut |event| {
            events.push(match event {
                Event::Candidate(e) => (true, Some(e.clone())),
                Event::Other(e) => (false, Some(e.clone())),
                Event::Escape => (false, None),
            })
        });
        let (taken, blocked) = self.takeable(run, &events);
        if taken == 0 {
            return Err(blocked);
        }
        // Then the statement with those calls replaced by the names of their results.
        let mut rest = stmt.clone();
        let mut lets = Vec::new();
        walk_stmt(&mut rest, callee, &independent, &mut |event| {
            if let Event::Candidate(slot) = event
                && lets.len() < taken
            {
                let name = format_ident!(
                    "{}{}",
                    crate::common::DEPENDENT_RESULT_PREFIX,
                    self.dependent_results,
                    span = Span::mixed_site()
                );
                self.dependent_results += 1;
                let call = std::mem::replace(slot, syn::parse_quote!(#name));
                // `mut`: what is left may borrow the result mutably (`out.append(&mut f(r))`).
                lets.push(syn::parse_quote!(let mut #name = #call;));
            }
        });
        Ok((lets, rest))
    }

    /// How many of the candidates among `events` (in evaluation order) can be taken out: each
    /// must not escape, must not conflict with the run or the candidates before it, and what
    /// the statement evaluates before it (which will run after the join) must not depend on
    /// its order against the call.
    ///
    /// With none taken, also why.
    fn takeable(&self, run: &RunNames, events: &[(bool, Option<Expr>)]) -> (usize, Unsplit) {
        let callee = self.callee;
        let mut run_and_taken = run.clone();
        let mut calls: Vec<Expr> = run.branches().to_vec();
        let mut before: Vec<&Expr> = Vec::new();
        let mut taken = 0;
        let blocked = |why: &str, rest: &[(bool, Option<Expr>)]| {
            let call = rest
                .iter()
                .find_map(|(candidate, e)| e.as_ref().filter(|_| *candidate));
            let error = call.map(|call| {
                syn::Error::new_spanned(
                    call,
                    format!(
                        "this statement uses a result of the recursive calls before it, and its \
                         own recursive call cannot join them: {why}; if it need not run after \
                         them, give it a `let` of its own before this statement"
                    ),
                )
            });
            error.map_or(Unsplit::Dependent, Unsplit::Because)
        };
        let leaves = "a `?`, `return` or `break` before it may leave first";
        for (at, (candidate, e)) in events.iter().enumerate() {
            let Some(e) = e else {
                // Sequentially, nothing after this point may run.
                return (taken, blocked(leaves, &events[at..]));
            };
            if !candidate {
                if callee.makes_call(e) {
                    // A recursive call that stays (its arguments use the run's results, or it
                    // shares a changed place with the run): later calls keep their place.
                    let probe: Stmt = syn::parse_quote!(let _ = #e;);
                    let names = StmtNames::of(&probe, callee);
                    if let Some(Conflict::Changes) = run_and_taken.conflict_with(&names, callee) {
                        return (taken, Unsplit::InOrder);
                    }
                    break;
                }
                if escapes(e) {
                    return (taken, blocked(leaves, &events[at..]));
                }
                before.push(e);
                continue;
            }
            let probe: Stmt = syn::parse_quote!(let _ = #e;);
            let names = StmtNames::of(&probe, callee);
            if escapes(e) {
                let why = "a `?`, `return` or `break` inside it would leave the closure it runs in";
                return (taken, blocked(why, &events[at..]));
            }
            if run_and_taken.conflict_with(&names, callee).is_some() {
                break;
            }
            calls.push(e.clone());
            let call_refs: Vec<&Expr> = calls.iter().collect();
            // Changes the call (or its arguments, evaluated before the fork) makes that what
            // came before it in the statement would now see.
            let mut changes = assigned_roots([e], callee);
            changes.extend(mutated_receivers(hoisted_arguments(e, callee), callee));
            if between_conflicts(&call_refs, &before, callee)
                || before.iter().any(|b| names_any(b, &changes))
                || before.iter().any(|b| names_any(b, &passed_whole(e)))
            {
                let why = "what the statement evaluates before it, which would run after the \
                           calls, changes or reads what the call uses, or the call may move it";
                return (taken, blocked(why, &events[at..]));
            }
            run_and_taken.add(names);
            taken += 1;
        }
        (taken, Unsplit::Dependent)
    }
}

/// Walks the expression of `stmt` that is evaluated where the statement stands (a `let`'s
/// initialiser, not its `else`).
fn walk_stmt<'e>(
    stmt: &'e mut Stmt,
    callee: &Callee,
    independent: &dyn Fn(&Expr) -> bool,
    on: &mut dyn FnMut(Event<'_>),
) {
    match stmt {
        Stmt::Local(l) => {
            if let Some(init) = &mut l.init {
                walk(&mut init.expr, callee, independent, on);
            }
        }
        Stmt::Expr(e, _) => {
            walk(e, callee, independent, on);
        }
        _ => {}
    }
}

/// Walks the parts of `e` that are always evaluated, in the order they are, reporting the
/// candidates and what is evaluated around them. Parts that may not run, or run any number of
/// times (branches of an `if` or `match`, the right side of `&&`, closures, loops, blocks), are
/// reported whole as [`Event::Other`], unless the whole part is a candidate.
///
/// Returns whether `e` itself was reported as a candidate.
fn walk(
    e: &mut Expr,
    callee: &Callee,
    independent: &dyn Fn(&Expr) -> bool,
    on: &mut dyn FnMut(Event<'_>),
) -> bool {
    if callee.is_call(e) {
        if independent(e) && !args_recurse(e, callee) {
            on(Event::Candidate(e));
            return true;
        }
        on(Event::Other(e));
        return false;
    }
    // A call that recurses only through what it is passed (`o.map_or(0, |c| c.sum())`,
    // `v.iter().map(|c| c.f()).sum()`) forks as a whole, as such an operand does.
    if matches!(
        e,
        Expr::Call(_) | Expr::MethodCall(_) | Expr::If(_) | Expr::Match(_)
    ) && callee.makes_call(e)
        && !has_direct_call(e, callee)
        && independent(e)
    {
        on(Event::Candidate(e));
        return true;
    }
    let go = |e: &mut Expr, on: &mut dyn FnMut(Event<'_>)| {
        walk(e, callee, independent, on);
    };
    match e {
        Expr::Binary(b) if matches!(b.op, BinOp::And(_) | BinOp::Or(_)) => {
            go(&mut b.left, on);
            on(Event::Other(&b.right));
        }
        Expr::Binary(b) if is_assign_op(&b.op) => {
            // The place may be evaluated first (it is for non-primitive operands).
            on(Event::Other(&b.left));
            go(&mut b.right, on);
        }
        Expr::Binary(b) => {
            go(&mut b.left, on);
            go(&mut b.right, on);
        }
        Expr::Assign(a) => {
            // The value is evaluated before the place.
            go(&mut a.right, on);
            on(Event::Other(&a.left));
        }
        Expr::Unary(u) => go(&mut u.expr, on),
        Expr::Cast(c) => go(&mut c.expr, on),
        Expr::Paren(p) => go(&mut p.expr, on),
        Expr::Group(g) => go(&mut g.expr, on),
        Expr::Reference(r) => go(&mut r.expr, on),
        Expr::Field(f) => go(&mut f.base, on),
        Expr::Index(i) => {
            go(&mut i.expr, on);
            go(&mut i.index, on);
        }
        Expr::Try(t) => {
            // `a? + f(y)` with `a` a binding (the run's result), or `f(x)? + f(y)`: the `?` is
            // applied after the join, as a trailing `?` on a forked call is. On a computed
            // value it may skip the calls after it.
            let on_binding = matches!(&*t.expr, Expr::Path(_));
            let on_candidate = walk(&mut t.expr, callee, independent, on);
            if !on_binding && !on_candidate {
                on(Event::Escape);
            }
        }
        Expr::Call(c) => {
            go(&mut c.func, on);
            for arg in &mut c.args {
                go(arg, on);
            }
        }
        Expr::MethodCall(m) => {
            go(&mut m.receiver, on);
            for arg in &mut m.args {
                go(arg, on);
            }
        }
        Expr::Tuple(t) => {
            for elem in &mut t.elems {
                go(elem, on);
            }
        }
        Expr::Array(a) => {
            for elem in &mut a.elems {
                go(elem, on);
            }
        }
        Expr::Struct(s) => {
            for field in &mut s.fields {
                go(&mut field.expr, on);
            }
            if let Some(rest) = &mut s.rest {
                go(rest, on);
            }
        }
        Expr::Return(r) => {
            if let Some(value) = &mut r.expr {
                go(value, on);
            }
        }
        Expr::Let(l) => go(&mut l.expr, on),
        Expr::If(i) => {
            go(&mut i.cond, on);
            // The branches, as one part that is evaluated after the condition.
            let then = &i.then_branch;
            let branches: Expr = match &i.else_branch {
                Some((_, other)) => syn::parse_quote!((#then, #other)),
                None => syn::parse_quote!(#then),
            };
            on(Event::Other(&branches));
        }
        Expr::Match(m) => {
            go(&mut m.expr, on);
            // The arms, as one part that is evaluated after the scrutinee.
            let arms = &m.arms;
            let arms: Expr = syn::parse_quote!(match () { #(#arms)* });
            on(Event::Other(&arms));
        }
        other => on(Event::Other(other)),
    }
    false
}

/// The bindings a call passes whole (`f(s)`): it may move them, and what the statement reads
/// of them before the call (`s.0 + a + f(s)`) would then be read after the move.
fn passed_whole(call: &Expr) -> HashSet<String> {
    let args = match call {
        Expr::Call(c) => &c.args,
        Expr::MethodCall(m) => &m.args,
        _ => return HashSet::new(),
    };
    args.iter()
        .filter_map(|a| match a {
            Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
            _ => None,
        })
        .collect()
}

/// Whether a recursive call's receiver or arguments recurse themselves (`f(f(x))`): the inner
/// call must run first.
fn args_recurse(call: &Expr, callee: &Callee) -> bool {
    match call {
        Expr::Call(c) => c.args.iter().any(|a| callee.makes_call(a)),
        Expr::MethodCall(m) => {
            callee.makes_call(&m.receiver) || m.args.iter().any(|a| callee.makes_call(a))
        }
        _ => false,
    }
}

/// Whether `e` makes a recursive call where it is always evaluated (not only inside a closure
/// it passes, or a branch): such a call is taken out on its own.
fn has_direct_call(e: &Expr, callee: &Callee) -> bool {
    let mut probe = e.clone();
    let mut found = false;
    let everything = |_: &Expr| true;
    // Looks through `e` itself: a whole-call candidate at the top would be `e`.
    let mut children = Vec::new();
    match &mut probe {
        Expr::Call(c) => {
            children.push(&mut *c.func);
            children.extend(c.args.iter_mut());
        }
        Expr::MethodCall(m) => {
            children.push(&mut *m.receiver);
            children.extend(m.args.iter_mut());
        }
        Expr::If(i) => children.push(&mut *i.cond),
        Expr::Match(m) => children.push(&mut *m.expr),
        _ => {}
    }
    for child in children {
        walk(child, callee, &everything, &mut |event| {
            if let Event::Candidate(c) = event
                && callee.is_call(c)
            {
                found = true;
            }
        });
    }
    found
}
