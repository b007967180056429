//! Statement-level fork points: runs of consecutive independent statements that each make a
//! recursive call (`let a = f(l); let b = f(r);`), forked together, their results bound,
//! assigned or matched after the join in statement order.

use std::collections::{HashSet, VecDeque};

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Block, Expr, Pat, Stmt, Token};

use super::dependent::Unsplit;
use super::{
    Hoisted, Rewriter, bind_hoisted, call_slot, escapes, is_fork_block, peel_try_owned,
    statement_hoisted_arguments,
};
use crate::common::{self, Branch, EscapeCheck};
use crate::parallel::dependencies::{Conflict, RunNames, StmtNames, assignment, changed_roots};
use crate::parallel::effects::CallEffects;
use crate::parallel::recursion::Callee;

/// Whether a statement can join a run of statements that fork together.
enum Grouping {
    /// It recurses and can run in a closure.
    Fork,
    /// It recurses, but a `?`, `return`, `break` or `continue` inside it would leave the
    /// closure it would run in: it stays as written.
    Escapes(syn::Error),
    /// It does not recurse (or carries an attribute): it stays as written.
    Keep,
}

impl Rewriter<'_> {
    /// Statement-level fork points: runs of independent statements that each make a
    /// recursive call. Returns the block's statements, each with whether it is already
    /// rewritten (a generated fork: visiting it again would fork its sequential arms anew).
    pub(super) fn fork_statements(&mut self, block: &mut Block) -> Vec<(Stmt, bool)> {
        let stmts = std::mem::take(&mut block.stmts);
        let mut out = Vec::new();
        let mut group: Vec<Stmt> = Vec::new();
        let mut run = RunNames::default();
        // The statement just before, if it recurses but cannot fork (a `?` or `return` inside
        // it): its error is reported (when the fn ends up with no fork point) only if it would
        // have forked with a neighbour, as the reason the fn has none.
        let mut escaping: Option<(RunNames, syn::Error)> = None;
        // Statements that do not recurse after a run, held back in case a statement after
        // them has calls that can join the run past them (`let mut v = l.f(); v.push(x);
        // v.extend(r.f());`): see `split_dependent_past`.
        let mut between: Vec<Stmt> = Vec::new();
        let mut queue: VecDeque<Stmt> = stmts.into();
        while let Some(stmt) = queue.pop_front() {
            let grouping = self.grouping(&stmt);
            if !between.is_empty() {
                match grouping {
                    Grouping::Fork => {
                        // The run with the statements between: what a call that joins the
                        // run past them must not conflict with.
                        let mut run_past = run.clone();
                        for s in &between {
                            run_past.add(StmtNames::of(s, self.callee));
                        }
                        let names = StmtNames::of(&stmt, self.callee);
                        // What the calls in the statements between may change: a call taken
                        // out of the statement would run before them.
                        let effects =
                            CallEffects::of(between.iter().filter_map(stmt_value), self.callee);
                        // A statement that depends on the run (`v.extend(r.f())` after `let
                        // mut v = l.f()`) or on nothing before it (`let b = f(r)` after `let
                        // a = f(l); let m = mid + 1;`): its calls join the run past them.
                        let conflict = run_past.conflict_with(&names, self.callee);
                        if let Some(Conflict::Depends(_)) | None = conflict
                            && let Ok((lets, rest)) =
                                self.split_dependent_past(&stmt, &run, &run_past, &effects)
                        {
                            group.extend(lets);
                            self.flush(&mut group, &mut out, false);
                            run = RunNames::default();
                            out.extend(between.drain(..).map(|s| (s, false)));
                            out.push((rest, false));
                            continue;
                        }
                        // A call that could join the run but for the statements between (a
                        // call there may change what it uses, `bump(c);` before `f(b, c)`, or
                        // one assigns what it reads, `step += 3;` before `f(b, step)`): it
                        // runs after them, as written.
                        if self.split_dependent(&stmt, &run).is_ok()
                            || matches!(
                                run.conflict_with(&names, self.callee),
                                Some(Conflict::Changes)
                            )
                        {
                            // Or the calls change what each other use (`f(buf, a);
                            // buf.clear(); f(buf, b);` with `buf: &mut _`), which keeps them
                            // in order with nothing between them too.
                            self.kept_in_order = true;
                        } else if let Some(Conflict::Depends(name)) = conflict {
                            // The reason the fn has no fork point, if it ends up with none.
                            self.record_dependent(&stmt, &name);
                        }
                    }
                    Grouping::Keep if between.len() < MAX_BETWEEN && Self::quiet(&stmt) => {
                        between.push(stmt);
                        continue;
                    }
                    _ => {}
                }
                // Nothing joins the run past them: it ends before them, and the statement
                // starts afresh.
                self.flush(&mut group, &mut out, false);
                run = RunNames::default();
                out.extend(between.drain(..).map(|s| (s, false)));
                queue.push_front(stmt);
                continue;
            }
            if let Grouping::Keep = grouping
                && !group.is_empty()
                && Self::quiet(&stmt)
            {
                escaping = None;
                between.push(stmt);
                continue;
            }
            if let Grouping::Fork = grouping {
                let names = StmtNames::of(&stmt, self.callee);
                self.pairs_with_escaping(escaping.take(), &stmt, &names);
                if !group.is_empty()
                    && let Some(conflict) = run.conflict_with(&names, self.callee)
                {
                    match conflict {
                        Conflict::Changes => self.kept_in_order = true,
                        Conflict::Depends(name) => match self.split_dependent(&stmt, &run) {
                            Ok((lets, rest)) => {
                                self.join_run(lets, rest, &mut group, &mut run, &mut out);
                                continue;
                            }
                            Err(Unsplit::Because(blocked)) => self.record_unforkable(blocked),
                            Err(Unsplit::InOrder) => self.kept_in_order = true,
                            Err(Unsplit::Dependent) => self.record_dependent(&stmt, &name),
                        },
                    }
                    self.flush(&mut group, &mut out, false);
                    run = RunNames::default();
                }
                run.add(names);
                group.push(stmt);
                continue;
            }
            let before = escaping.take();
            if let Grouping::Escapes(_) = grouping
                && !group.is_empty()
            {
                match self.split_dependent(&stmt, &run) {
                    // `let a = f(x); return a + f(y);`: the call joins the run, the `return`
                    // stays.
                    Ok((lets, rest)) => {
                        self.join_run(lets, rest, &mut group, &mut run, &mut out);
                        continue;
                    }
                    // Why it did not, if the statement depends on the run (otherwise its
                    // escape is the reason, below).
                    Err(Unsplit::InOrder) => self.kept_in_order = true,
                    Err(Unsplit::Because(blocked))
                        if matches!(
                            run.conflict_with(&StmtNames::of(&stmt, self.callee), self.callee),
                            Some(Conflict::Depends(_))
                        ) =>
                    {
                        self.record_unforkable(blocked);
                    }
                    Err(_) => {}
                }
            }
            if let Grouping::Escapes(error) = grouping {
                let names = StmtNames::of(&stmt, self.callee);
                self.pairs_with_escaping(before, &stmt, &names);
                // With the run before it, or else with the statement after it.
                if !group.is_empty() && run.conflict_with(&names, self.callee).is_none() {
                    self.record_unforkable(error);
                } else {
                    let mut alone = RunNames::default();
                    alone.add(names);
                    escaping = Some((alone, error));
                }
            } else if !group.is_empty() && !Self::quiet(&stmt) {
                // A statement that cannot wait between the run and a later call (a macro, an
                // attribute, an exit): the reason the fn has no fork point if it ends up with
                // none and the call after it would have forked with the run.
                escaping = Some((run.clone(), Self::barrier(&stmt)));
            }
            self.flush(&mut group, &mut out, false);
            run = RunNames::default();
            out.push((stmt, false));
        }
        // Only here can the group end with the block's tail expression.
        self.flush(&mut group, &mut out, between.is_empty());
        out.extend(between.into_iter().map(|s| (s, false)));
        out
    }

    /// Whether `stmt`, which does not recurse, may wait after a run for a later statement's
    /// calls to join the run past it: a `let` or an expression, without an attribute, a macro
    /// (whose tokens the place analysis cannot read), or a `?`, `return` or `break`.
    fn quiet(stmt: &Stmt) -> bool {
        struct Macros(bool);
        impl<'ast> Visit<'ast> for Macros {
            fn visit_macro(&mut self, _: &'ast syn::Macro) {
                self.0 = true;
            }
            fn visit_item(&mut self, _: &'ast syn::Item) {}
        }
        if has_attribute(stmt) {
            return false;
        }
        let expr = match stmt {
            Stmt::Local(l) => match &l.init {
                Some(init) if init.diverge.is_none() => &*init.expr,
                Some(_) => return false,
                None => return true,
            },
            Stmt::Expr(e, _) => e,
            _ => return false,
        };
        let mut macros = Macros(false);
        macros.visit_stmt(stmt);
        !macros.0 && !escapes(expr)
    }

    /// Ends the run `group` with `lets`, the calls taken out of a statement that depends on
    /// it, and puts `rest`, what is left of that statement, after its fork.
    fn join_run(
        &mut self,
        lets: Vec<Stmt>,
        rest: Stmt,
        group: &mut Vec<Stmt>,
        run: &mut RunNames,
        out: &mut Vec<(Stmt, bool)>,
    ) {
        group.extend(lets);
        self.flush(group, out, false);
        *run = RunNames::default();
        out.push((rest, false));
    }

    /// Records `escaping`'s error if its statement (or the run before it) would have forked
    /// with `next` (named `names`), or else the dependency of `next` on it.
    fn pairs_with_escaping(
        &mut self,
        escaping: Option<(RunNames, syn::Error)>,
        next: &Stmt,
        names: &StmtNames,
    ) {
        if let Some((before, error)) = escaping {
            match before.conflict_with(names, self.callee) {
                None => self.record_unforkable(error),
                Some(Conflict::Depends(name)) => self.record_dependent(next, &name),
                Some(Conflict::Changes) => {}
            }
        }
    }

    /// Why `stmt`, which does not recurse, keeps the recursive calls before and after it
    /// apart (see `quiet`).
    fn barrier(stmt: &Stmt) -> syn::Error {
        let why = if has_attribute(stmt) {
            "it has an attribute, which belongs to the statement as written"
        } else if matches!(stmt, Stmt::Local(l) if l.init.as_ref().is_some_and(|i| i.diverge.is_some()))
            || stmt_value(stmt).is_some_and(escapes)
        {
            "it may leave the fn (a `return`, `?`, `break` or `let .. else`), and then the later \
             call would not run"
        } else {
            "it is or holds a macro, whose effects `#[parallel]` cannot see"
        };
        syn::Error::new_spanned(
            stmt,
            format!(
                "this statement runs between two recursive calls, and {why}, so the calls run \
                 in order as written; move it before the first call or after the second (if \
                 it does not need the first call's result) to run them in parallel"
            ),
        )
    }

    fn record_unforkable(&mut self, error: syn::Error) {
        let name = &self.callee.name;
        self.unforkable_statement.get_or_insert_with(|| {
            syn::Error::new(
                error.span(),
                format!("`#[parallel]` found no fork point in `{name}`: {error}"),
            )
        });
    }

    /// `stmt` recurses but uses `name`, the result of the recursing statement before it: the
    /// reason the fn has no fork point, if it ends up with none (`let a = f(x); f(y) + a`).
    fn record_dependent(&mut self, stmt: &Stmt, name: &str) {
        let at = first_ident(stmt.to_token_stream(), name)
            .map_or_else(|| stmt.span(), |ident| ident.span());
        self.record_unforkable(syn::Error::new(
            at,
            format!(
                "this statement uses `{name}`, which a recursive call before it computes, so \
                 the two calls cannot run at the same time; make the calls in consecutive \
                 statements that do not use each other's results (`let a = ..; let b = ..;`) \
                 and combine the results after them"
            ),
        ));
    }

    fn grouping(&mut self, stmt: &Stmt) -> Grouping {
        // An attribute (`#[cfg(..)]`, a lint level) belongs to the statement as written: the
        // statement stays as it is, outside any fork.
        let has_attribute = has_attribute(stmt);
        let expr = match stmt {
            // A `let .. else`'s `else` runs after the join, as a `?` does.
            Stmt::Local(l) => match &l.init {
                Some(init) => &*init.expr,
                None => return Grouping::Keep,
            },
            Stmt::Expr(e, _) => match assignment(e) {
                Some((_, _, value)) => value,
                None => e,
            },
            _ => return Grouping::Keep,
        };
        let (inner, _) = common::peel_try(expr);
        if !self.callee.makes_call(inner) {
            return Grouping::Keep;
        }
        if matches!(stmt, Stmt::Local(_)) && self.borrows_a_result_inside(inner) {
            // `let refs = (&f(a), &f(b));`: in a run the value is made in a closure, and the
            // borrows of its temporaries would be returned from it. As written, the
            // statement's own operands fork, and the temporaries live as long as `refs`.
            return Grouping::Keep;
        }
        if has_attribute {
            let name = &self.callee.name;
            self.unforkable_statement.get_or_insert_with(|| {
                syn::Error::new_spanned(
                    stmt,
                    format!(
                        "`#[parallel]` found no fork point in `{name}`: this statement recurses \
                         but has an attribute, which belongs to the statement as written, so it \
                         runs outside any fork; remove the attribute or move it off the \
                         statement"
                    ),
                )
            });
            return Grouping::Keep;
        }
        // `let l = Box::new(f(x)?);`: only the call runs in the closure.
        let split = applied_after_join(inner, self.callee, &common::result_ident(0));
        let escape = common::check_escapes(
            split.as_ref().map_or(inner, |(call, _)| call),
            &EscapeCheck {
                place: "a statement that recurses",
                allow_top_continue: false,
                advice: " when it forks; keep it out of the statement, deciding it before \
                         (`let Some(x) = .. else { return .. };`)",
                continue_advice: " when it forks; keep it out of the statement",
                try_advice: common::TRY_AFTER_JOIN,
            },
        );
        match escape {
            Ok(()) => Grouping::Fork,
            Err(e) => Grouping::Escapes(e),
        }
    }

    /// Whether `e` borrows a value built on a recursive call somewhere inside it (`(&f(a), 1)`,
    /// `g(&f(a).x)`), not at its top (`&f(a)`, whose call is the branch and whose `&` applies
    /// after the join).
    fn borrows_a_result_inside(&self, e: &Expr) -> bool {
        struct Finder<'a> {
            callee: &'a Callee,
            found: bool,
        }
        let built_on_call = |e: &Expr| call_slot(&mut e.clone(), self.callee).is_some();
        impl<'ast> Visit<'ast> for Finder<'_> {
            fn visit_expr_reference(&mut self, r: &'ast syn::ExprReference) {
                self.found |= call_slot(&mut (*r.expr).clone(), self.callee).is_some();
                syn::visit::visit_expr_reference(self, r);
            }
            fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
            fn visit_item(&mut self, _: &'ast syn::Item) {}
        }
        let top = match e {
            Expr::Reference(r) => &*r.expr,
            other => other,
        };
        let mut finder = Finder {
            callee: self.callee,
            found: false,
        };
        finder.visit_expr(top);
        finder.found && !built_on_call(top)
    }

    /// The branch body of a statement whose value has no type to keep (an assignment's, a
    /// `let .. else`'s): `value` without its trailing `?`s (returned, to apply after the
    /// join), its call's call-making arguments hoisted into `hoisted`, rewritten.
    fn untyped_branch(
        &mut self,
        value: &Expr,
        changed_later: &HashSet<String>,
        hoisted: &mut Vec<Hoisted>,
    ) -> (TokenStream, Vec<Token![?]>) {
        let (mut inner, tries) = peel_try_owned(&mut value.clone());
        if self.callee.is_call(&inner) {
            self.hoist_arguments(&mut inner, changed_later, hoisted);
        }
        self.visit_branch(&mut inner);
        (inner.to_token_stream(), tries)
    }

    fn flush(&mut self, group: &mut Vec<Stmt>, out: &mut Vec<(Stmt, bool)>, at_end: bool) {
        if group.len() < 2 {
            out.extend(group.drain(..).map(|s| (s, false)));
            return;
        }
        let tail =
            at_end && matches!(group.last(), Some(Stmt::Expr(e, None)) if assignment(e).is_none());
        let group_span = group[0].span();
        let mut branches = Vec::new();
        let mut values = Vec::new();
        let mut pats = Vec::new();
        let mut types = Vec::new();
        let mut results = Vec::new();
        // Assignments (`x = f(a);`, `x += f(a);`) fork their value and assign it after the
        // join, in order: the place is not captured by a branch.
        let mut assignments = Vec::new();
        // As for operands: the arguments of a forked call that call something are evaluated
        // before the fork (`let a = f(s.clone()); let b = f(s);`).
        let mut hoisted = Vec::new();
        // Per statement, what the hoisted arguments of the statements after it may change:
        // its call's reads of that are hoisted too.
        let mut changed_later = vec![HashSet::new(); group.len()];
        for i in (0..group.len() - 1).rev() {
            let next = statement_hoisted_arguments(&group[i + 1], self.callee);
            let mut changed = changed_later[i + 1].clone();
            changed.extend(changed_roots(&next, self.callee));
            changed_later[i] = changed;
        }
        let mut let_elses = Vec::new();
        for (i, stmt) in group.drain(..).enumerate() {
            let span = stmt.span();
            if let Stmt::Expr(e, _) = &stmt
                && let Some((place, op, value)) = assignment(e)
            {
                let (place, op) = (place.clone(), op.clone());
                // `s += &f(x);`, `s += f(x).as_str();`: the branch runs the call, and what is
                // applied to its result runs after the join, as for an operand; a branch
                // cannot return a borrow of its own temporary.
                let mut value = value.clone();
                let mut applied = None;
                if !self.callee.is_call(&value)
                    && !matches!(value, Expr::Try(_) | Expr::Paren(_))
                    && let Some(slot) = call_slot(&mut value, self.callee)
                {
                    let result = common::result_ident(i);
                    let call = std::mem::replace(slot, syn::parse_quote!(#result));
                    let mut after = std::mem::replace(&mut value, call);
                    self.visit_expr_mut(&mut after);
                    applied = Some(after.to_token_stream());
                }
                let (body, tries) = self.untyped_branch(&value, &changed_later[i], &mut hoisted);
                let result = applied
                    .unwrap_or_else(|| common::apply_tries(&common::result_ident(i), &tries));
                branches.push(Branch {
                    span,
                    body: body.clone(),
                });
                values.push(Branch { span, body });
                assignments.push(quote_spanned!(span=> #place #op #result;));
                pats.push(quote!(_));
                types.push(quote!(_));
                results.push(quote!(()));
                continue;
            }
            if let Stmt::Local(l) = &stmt
                && let Some(init) = &l.init
                && let Some((_, diverge)) = &init.diverge
            {
                // `let PAT = f(a) else { .. };`: the call forks, the pattern is tried after
                // the join, in statement order.
                let (body, tries) =
                    self.untyped_branch(&init.expr, &changed_later[i], &mut hoisted);
                let (pat, result) = (
                    &l.pat,
                    common::apply_tries(&common::result_ident(i), &tries),
                );
                branches.push(Branch {
                    span,
                    body: body.clone(),
                });
                values.push(Branch { span, body });
                let mut diverge = (**diverge).clone();
                self.visit_expr_mut(&mut diverge);
                let_elses.push(quote_spanned!(span=> let #pat = #result else #diverge;));
                continue;
            }
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
            // `let a = &f(x);`, `let s = &f(x)[1..];`, `let b = &mut f(x).field;`: the branch
            // runs `f(x)`, and the reference is taken after the join, of a result that lives to
            // the end of the block as the temporary did (a `let` extends it); a branch cannot
            // return a reference into its own temporary.
            let mut borrow_after_join = None;
            if ty.is_none() && tries.is_empty() && matches!(&inner, Expr::Reference(_)) {
                let result = common::result_ident(i);
                if let Some(slot) = call_slot(&mut inner, self.callee) {
                    let call = std::mem::replace(slot, syn::parse_quote!(#result));
                    let mut borrow = std::mem::replace(&mut inner, call);
                    self.visit_expr_mut(&mut borrow);
                    borrow_after_join = Some(borrow.to_token_stream());
                }
            }
            // `let l = Box::new(f(x)?);`: the branch runs `f(x)`, and what is applied to its
            // result, `?` included, runs after the join, in statement order.
            let mut applied_later = None;
            if borrow_after_join.is_none()
                && let Some((call, mut applied)) =
                    applied_after_join(&inner, self.callee, &common::result_ident(i))
            {
                inner = call;
                self.visit_expr_mut(&mut applied);
                applied_later = Some(if tries.is_empty() {
                    applied.to_token_stream()
                } else {
                    quote!((#applied) #(#tries)*)
                });
            }
            let typed = match (&ty, tries.is_empty() && applied_later.is_none()) {
                (Some(ty), true) => Some(ty),
                _ => None,
            };
            if self.callee.is_call(&inner) {
                self.hoist_arguments(&mut inner, &changed_later[i], &mut hoisted);
            }
            self.visit_branch(&mut inner);
            // The join's closure and the sequential arms annotate the value the same way, so
            // that a value of the wrong type gets one error, not one per arm.
            let body = common::typed_value(&inner, typed);
            branches.push(Branch {
                span,
                body: body.clone(),
            });
            values.push(Branch { span, body });
            results.push(
                borrow_after_join
                    .or(applied_later)
                    .unwrap_or_else(|| common::apply_tries(&common::result_ident(i), &tries)),
            );
            pats.push(pat);
            types.push(ty.map_or_else(|| quote!(_), |t| t.to_token_stream()));
        }
        let (fork, jpat) = self.fork(&branches, &values, group_span);
        let fork = bind_hoisted(hoisted, fork, group_span.resolved_at(Span::mixed_site()));
        out.push((
            syn::parse_quote!(#[allow(unused_mut)] let #jpat = #fork;),
            true,
        ));
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
        if !pats.is_empty() {
            // The results taken out of a dependent statement bind `mut` (see
            // `split_dependent_past`), whether or not what is left borrows them mutably.
            let taken_out = pats
                .iter()
                .any(|p| p.to_string().contains(common::DEPENDENT_RESULT_PREFIX));
            let allow = taken_out.then(|| quote!(#[allow(unused_mut)]));
            out.push((
                syn::parse_quote!(#allow let (#(#pats,)*) #ty = (#(#results,)*);),
                true,
            ));
        }
        for let_else in let_elses {
            out.push((syn::parse_quote!(#let_else), true));
        }
        for assign in assignments {
            out.push((syn::parse_quote!(#assign), true));
        }
        if let Some(value) = tail_value {
            out.push((Stmt::Expr(syn::parse_quote!(#value), None), true));
        }
    }
}

/// A statement's value built on a recursive call whose applied part holds a `?` that would
/// leave a closure (`Box::new(f(x)?)`, `Some(f(x)?.len())`): the call, and the value with
/// `result` in the call's place, to apply after the join. `None` for a value that is the call
/// itself, one that borrows it (see `borrow_after_join`), one not built on a call, or one whose
/// applied part escapes otherwise (a `return` or `break` there stays an error).
fn applied_after_join(value: &Expr, callee: &Callee, result: &syn::Ident) -> Option<(Expr, Expr)> {
    struct StripTries;
    impl VisitMut for StripTries {
        fn visit_expr_mut(&mut self, e: &mut Expr) {
            syn::visit_mut::visit_expr_mut(self, e);
            if let Expr::Try(t) = e {
                *e = (*t.expr).clone();
            }
        }
    }
    if callee.is_call(value) || matches!(value, Expr::Reference(_)) {
        return None;
    }
    let mut applied = value.clone();
    let slot = call_slot(&mut applied, callee)?;
    let call = std::mem::replace(slot, syn::parse_quote!(#result));
    if !escapes(&applied) {
        return None;
    }
    let mut without_tries = applied.clone();
    StripTries.visit_expr_mut(&mut without_tries);
    (!escapes(&without_tries)).then_some((call, applied))
}

/// Whether `stmt` carries an attribute (`#[cfg(..)]`, a lint level).
fn has_attribute(stmt: &Stmt) -> bool {
    matches!(
        stmt.to_token_stream().into_iter().next(),
        Some(TokenTree::Punct(p)) if p.as_char() == '#'
    )
}

/// The value a statement computes: a `let`'s initializer or an expression statement.
fn stmt_value(stmt: &Stmt) -> Option<&Expr> {
    match stmt {
        Stmt::Local(l) => l.init.as_ref().map(|i| &*i.expr),
        Stmt::Expr(e, _) => Some(e),
        _ => None,
    }
}

/// How many statements that do not recurse a run may wait past (see `quiet`).
const MAX_BETWEEN: usize = 4;

/// `let PAT = { let (r0, ..) = fork; tail };` becomes `let (r0, ..) = fork; let PAT = tail;`:
/// the results then live to the end of the enclosing block, as the temporaries they replace
/// did when the `let` extended them (`let (a, b) = (&f(x), &f(y));`). Only for a block
/// without hoisted values, whose `match`es keep temporaries alive that a `let` would not.
pub(super) fn hoist_fork_out_of_let(stmt: &mut Stmt, before: &mut Vec<Stmt>) {
    let Stmt::Local(l) = stmt else { return };
    let Some(init) = &mut l.init else { return };
    let Expr::Block(b) = &mut *init.expr else {
        return;
    };
    if b.label.is_some() || !b.attrs.is_empty() || !is_fork_block(&b.block) {
        return;
    }
    let Some(Stmt::Expr(_, None)) = b.block.stmts.last() else {
        return;
    };
    let mut stmts = std::mem::take(&mut b.block.stmts);
    let Some(Stmt::Expr(tail, None)) = stmts.pop() else {
        unreachable!("checked")
    };
    before.extend(stmts);
    *init.expr = tail;
}

/// The first identifier `name` in `tokens`, groups included.
fn first_ident(tokens: TokenStream, name: &str) -> Option<proc_macro2::Ident> {
    tokens.into_iter().find_map(|tt| match tt {
        TokenTree::Ident(i) if i == name => Some(i),
        TokenTree::Group(g) => first_ident(g.stream(), name),
        _ => None,
    })
}
