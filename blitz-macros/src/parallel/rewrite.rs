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
//!     ForkMode::Plain(cx) => ({ let cx = sibling(cx); a }, b), // plain recursion, polling
//!     ForkMode::Serial => { let cx = SerialContext; (a, b) } // fork-free
//! }
//! ```
//!
//! The arms hold the same branch text; each recursive call in it is redirected to the copy
//! with the `cx` of its arm, so each arm recurses into the copy's instance for its context.

use std::collections::HashSet;

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{BinOp, Block, Expr, Ident, Item, Path, Token};

use super::dependencies::{
    PlaceUses, any_conflict, assigned_roots, between_conflicts, changed_roots, mutated_receivers,
    names_any, place_root,
};
use super::effects::CallEffects;
use super::placement::Placement;
use super::recursion::{CallForm, Callee, ReceiverBorrow, is_fork_join};
use crate::common::{self, Branch, EscapeCheck};
use crate::fork_join::ForkJoin;

mod dependent;
mod fork_block;
mod hoist;
mod statements;

use fork_block::{is_fork_block, sink_into_fork_block};
use hoist::{
    Hoisted, bind_hoisted, escapes, has_effects, hoist_place_parts, hoisted_argument,
    hoisted_arguments, hoisted_receiver, is_hoistable_value, is_place, statement_hoisted_arguments,
};
use statements::hoist_fork_out_of_let;

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
    /// Inside a branch of a fork point (an operand, a statement or a `fork_join!` arm that
    /// forks): method calls on places are redirected there (see [`Rewriter::redirect`]).
    in_branch: usize,
    /// Some statements that recurse were kept in order because they change a binding that
    /// another one uses (`total += l.sum();` twice).
    pub(super) kept_in_order: bool,
    /// A `fork_join!` in the body did not parse: it reports that itself, and the fn has no
    /// other fork point to miss.
    pub(super) unparsed_fork_join: bool,
    /// How many results of calls taken out of a dependent statement were named (see
    /// [`dependent`]): each gets a name of its own.
    dependent_results: usize,
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
            in_branch: 0,
            kept_in_order: false,
            unparsed_fork_join: false,
            dependent_results: 0,
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
        let (join, pat) = common::join_nest(cx, branches, span, true);
        let seq = common::tuple_nest(values);
        let p = quote!(#krate::__private);
        // The plain arm runs its earlier branches in the sibling instance of the plain copy
        // and the last in its own (see `ForkContext::Sibling`).
        let (last, earlier) = values.split_last().expect("a fork has two branches");
        let mut plain_values: Vec<Branch> = earlier
            .iter()
            .map(|Branch { span, body }| Branch {
                span: *span,
                body: {
                    let body = common::as_block_tail(body);
                    quote_spanned!(*span=> {
                        let #cx = #p::ForkContext::sibling(#cx);
                        #body
                    })
                },
            })
            .collect();
        plain_values.push(Branch {
            span: last.span,
            body: last.body.clone(),
        });
        let plain = common::tuple_nest(&plain_values);
        (
            quote_spanned!(span=> match #p::ForkContext::fork_mode(&#cx) {
                #p::ForkMode::Join(#cx) => #join,
                #p::ForkMode::Plain(#cx) => #plain,
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

    /// Visits the branch of a fork point (see `in_branch`).
    fn visit_branch(&mut self, e: &mut Expr) {
        self.in_branch += 1;
        self.visit_expr_mut(e);
        self.in_branch -= 1;
    }

    /// Points a recursive call at the copy, passing the context: `f(args)` becomes
    /// `copy(cx, args)`, `x.f(args)` becomes `x.copy(cx, args)`, `Self::f(s, args)` becomes
    /// `Self::copy(s, cx, args)`. Calls that may belong to another type stay as written.
    ///
    /// A method call on a place other than `self` may be another type's same-named method
    /// (`v.len()` on the `Vec` of a leaf, in a `fn len`), where the copy does not exist. It is
    /// redirected only inside a fork's branch, where it is a sibling of another recursive
    /// call; elsewhere it calls the fn as written, which works whatever the receiver's type
    /// and looks the worker up again. In a `&self` or `&mut self` fn it becomes a probe (see
    /// [`Rewriter::probed_call`]), which is right for any receiver, fields of `self` included.
    /// In other fns it is redirected directly, but never on a field of `self`
    /// (`self.items.len()`): a struct cannot hold itself but through an `Option`, a collection
    /// or another type, which the receiver would then name (`self.left.as_ref().unwrap()`,
    /// `self.kids[0]`).
    fn redirect(&self, e: &mut Expr) {
        if self.placement == Placement::Detached {
            return;
        }
        let Some(form) = self.callee.call_form(e) else {
            return;
        };
        if let Expr::MethodCall(m) = &*e
            && form == CallForm::PlaceMethod
            && self.in_branch > 0
            && !is_self(&m.receiver)
            && self.probes_receiver(m)
        {
            *e = self.probed_call(m);
            return;
        }
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
                    // The copy's `impl Trait` parameters, then its context's.
                    for _ in 0..=self.callee.impl_trait_args {
                        args.args.push(syn::parse_quote!(_));
                    }
                }
                let at = usize::from(form == CallForm::SelfPath && self.callee.has_receiver);
                c.args.insert(at, syn::parse_quote!(#cx));
            }
            (CallForm::PlaceMethod, Expr::MethodCall(m))
                if is_self(&m.receiver)
                    || (self.in_branch > 0 && !is_field_of_self(&m.receiver)) =>
            {
                m.method = Ident::new(&copy.to_string(), m.method.span());
                if let Some(t) = &mut m.turbofish {
                    for _ in 0..=self.callee.impl_trait_args {
                        t.args.push(syn::parse_quote!(_));
                    }
                }
                m.args.insert(0, syn::parse_quote!(#cx));
            }
            _ => {}
        }
    }

    /// Whether the call `m` on a place other than `self`, in a fork's branch, is written as a
    /// probe: in a `&self` or `&mut self` fn, unless the fn takes `&mut self` and an argument
    /// names the receiver's binding (the probe holds the receiver's exclusive borrow while the
    /// arguments are evaluated, where the plain call's borrow starts after them).
    fn probes_receiver(&self, m: &syn::ExprMethodCall) -> bool {
        match self.callee.receiver_borrow {
            None => false,
            Some(ReceiverBorrow::Shared) => true,
            Some(ReceiverBorrow::Exclusive) => {
                let mut receiver = &*m.receiver;
                // Down to the place: `&mut x`, `x.as_mut().unwrap()`.
                loop {
                    match receiver {
                        Expr::Reference(r) => receiver = &r.expr,
                        Expr::MethodCall(c) => receiver = &c.receiver,
                        _ => break,
                    }
                }
                let roots: HashSet<String> = place_root(receiver).into_iter().collect();
                !m.args.iter().any(|a| names_any(a, &roots))
            }
        }
    }

    /// The method call `m` on a place other than `self` in a `&self` or `&mut self` fn, as a
    /// probe that lets the type checker pick the copy for a receiver of the impl's type and
    /// the call as written for any other (see `blitz::__private`'s `Which`):
    ///
    /// ```text
    /// match { use ..; x.__blitz_probe::<Self>().__blitz_which() } {
    ///     Which::Own(s, same) => same.__blitz_same(s.copy(cx, args)),
    ///     Which::Other(_) => x.name(args),   // `WhichMut::Other(o) => (*o).name(args)`
    /// }
    /// ```
    fn probed_call(&self, m: &syn::ExprMethodCall) -> Expr {
        let krate = &self.names.krate;
        let p = quote!(#krate::__private);
        let cx = &self.names.cx;
        let copy = Ident::new(&self.names.copy.to_string(), m.method.span());
        let site = Span::mixed_site();
        let own = Ident::new("__blitz_own", site);
        let same = Ident::new("__blitz_same", site);
        let mut redirected = m.clone();
        *redirected.receiver = Expr::Verbatim(quote!(#own));
        redirected.method = copy;
        if let Some(t) = &mut redirected.turbofish {
            for _ in 0..=self.callee.impl_trait_args {
                t.args.push(syn::parse_quote!(_));
            }
        }
        // An argument the copy does not take (`&other.key` beside `a.cmp(b)` in a `fn
        // cmp(&self, other: &Self)`, `&k` for a map's `get` beside `c.get(i)`) would fail the
        // arm the receiver's type rules out: `same` passes it through there, as whatever type
        // the copy takes. A binding stays as it is (an `&mut` one is reborrowed, not moved),
        // and so does a closure (it takes its parameter types from the copy's).
        for arg in redirected.args.iter_mut() {
            if common::lone_ident(arg).is_none() && !common::contains_closure(arg) {
                *arg = syn::parse_quote!(#same.__blitz_arg(#arg));
            }
        }
        redirected.args.insert(0, syn::parse_quote!(#cx));
        // The other arm: the call as written. A shared probe's borrow may stay live there
        // (when the copy's result borrows from it), which another shared borrow does not
        // mind, so the call takes the receiver as written: the probe's reference would start
        // the method lookup one reference further (`&u32`, whose `max` is `Ord`'s for
        // `&u32`), and could not be moved out of for a method that takes the receiver by
        // value. An exclusive probe's borrow would conflict with a second one, so the call
        // goes through it, dereferenced to the place it borrows.
        let other = Ident::new("__blitz_other", site);
        let mut through_probe = m.clone();
        *through_probe.receiver = Expr::Verbatim(quote!((*#other)));
        let (probe, which, via, other_arm) = match self.callee.receiver_borrow {
            Some(ReceiverBorrow::Exclusive) => (
                quote!(__blitz_probe_mut),
                quote!(#p::WhichMut),
                quote!(#p::{IntoProbe as _, ViaOtherMut as _, ViaOwnMut as _}),
                quote!(#p::WhichMut::Other(#other) => #through_probe),
            ),
            _ => (
                quote!(__blitz_probe),
                quote!(#p::Which),
                quote!(#p::{IntoProbe as _, ViaOther as _, ViaOwn as _}),
                quote!(#p::Which::Other(_) => #m),
            ),
        };
        let receiver = &m.receiver;
        syn::parse_quote_spanned! {m.method.span()=>
            match {
                #[allow(unused_imports)]
                use #via;
                #receiver.#probe::<Self>().__blitz_which()
            } {
                // Where the receiver is not `Self`, this arm matches no value.
                #[allow(unreachable_patterns, unreachable_code)]
                #which::Own(#own, #same) => #same.__blitz_same(#redirected),
                #other_arm,
            }
        }
    }

    /// Forks the recursive-call operands among `ops` if there are at least two. Returns what
    /// must be evaluated before the fork, in source order (see [`Hoisted`]), and the
    /// `let (r0, ..) = fork;` statement; the operands are replaced by the results.
    fn fork_operands(
        &mut self,
        ops: Vec<&mut Expr>,
        receiver_first: bool,
        span: Span,
    ) -> Option<(Vec<Hoisted>, TokenStream)> {
        let callee = self.callee;
        // An operand built on a recursive call forks that call; one that makes a recursive
        // call otherwise (through a closure passed to a call) forks as a whole.
        let built_on_call = |e: &Expr| call_slot(&mut e.clone(), callee).is_some();
        let forks = |e: &Expr| built_on_call(e) || callee.makes_call(e);
        let calls: Vec<&Expr> = ops.iter().map(|e| &**e).filter(|e| forks(e)).collect();
        let candidates = calls.len();
        let shared = candidates >= 2 && {
            // The operands between the first and the last forked call.
            let first = ops.iter().position(|e| forks(e)).expect("two calls");
            let last = ops.iter().rposition(|e| forks(e)).expect("two calls");
            let between: Vec<&Expr> = ops[first + 1..last]
                .iter()
                .map(|e| &**e)
                .filter(|e| !forks(e))
                .collect();
            let effects = CallEffects::of(between.iter().copied(), callee);
            any_conflict(&PlaceUses::of_branches(calls.iter().copied(), callee))
                || between_conflicts(&calls, &between, callee)
                // `f(a, c) + bump(c) + f(b, c)`, `f(a) + tick() + f(b)`: see `effects`.
                || calls.iter().any(|call| effects.reach(call))
                // `f(a) + (if c { return x } else { 0 }) + f(b)`: sequentially `f(b)` may
                // never run.
                || between.iter().any(|e| escapes(e))
        };
        // The arguments each forked operand's call evaluates before the fork.
        let early_args: Vec<Vec<Expr>> = ops
            .iter()
            .map(|e| {
                let mut e = (**e).clone();
                call_slot(&mut e, callee)
                    .map(|call| {
                        hoisted_arguments(call, callee)
                            .into_iter()
                            .cloned()
                            .collect()
                    })
                    .unwrap_or_default()
            })
            .collect();
        // Per operand, what the hoisted arguments of the calls after it may change.
        let mut changed_later = vec![HashSet::new(); ops.len()];
        for i in (0..ops.len().saturating_sub(1)).rev() {
            let mut changed = changed_later[i + 1].clone();
            changed.extend(changed_roots(&early_args[i + 1], callee));
            changed_later[i] = changed;
        }
        // An operand that is read after the join but sequentially ran before a change the
        // branches or the hoisted arguments make (`x + f(a) + { x += 1; f(x) }`,
        // `f(a) + q[0] + f(q.remove(0))`) would see the change.
        let read_before_change = candidates >= 2 && {
            let last = ops.iter().rposition(|e| forks(e)).expect("two calls");
            let mut changes = assigned_roots(calls.iter().copied(), callee);
            changes.extend(mutated_receivers(early_args.iter().flatten(), callee));
            ops[..last]
                .iter()
                .any(|e| !forks(e) && !is_hoistable_value(e) && names_any(e, &changes))
        };
        let shared = shared || read_before_change;
        // With a place that two calls would both hold (`f(a, cnt) + f(b, cnt)` with `cnt: &mut
        // u64`, `self.f(a) + self.f(b)` with `&mut self`), or that an operand between them
        // changes (`f(n - i) + { i += 1; i } + f(n - i)`), the calls run one after the other,
        // as written.
        self.kept_in_order |= shared;
        if candidates < 2 || shared {
            for e in ops {
                self.visit_expr_mut(e);
            }
            return None;
        }
        let mut hoisted = Vec::new();
        let mut branches = Vec::new();
        for (index, op) in ops.into_iter().enumerate() {
            let span = op.span();
            let slot = if built_on_call(op) {
                call_slot(op, callee).expect("built on a call")
            } else if callee.makes_call(op) {
                &mut *op
            } else {
                self.visit_expr_mut(op);
                // Sequentially, an operand left of the first forked call runs before it. A
                // method's receiver may be borrowed mutably by the method: it binds `mut`. A
                // place is not moved: what its base or index computes is (`v[next()]`,
                // `make().field`).
                if branches.is_empty() && is_hoistable_value(op) {
                    let mutable = receiver_first && index == 0;
                    hoisted.push(Hoisted::take(op, hoisted.len(), mutable));
                } else if branches.is_empty() && has_effects(op) {
                    hoist_place_parts(op, &HashSet::new(), &mut hoisted);
                }
                continue;
            };
            if let Err(e) = common::check_escapes(
                slot,
                &EscapeCheck {
                    place: "a forked call",
                    allow_top_continue: false,
                    advice: "; compute the argument before the call",
                    continue_advice: "; compute the argument before the call",
                    try_advice: common::TRY_AFTER_JOIN,
                },
            ) {
                self.fail(e);
                return None;
            }
            let r = common::result_ident(branches.len());
            let mut call = std::mem::replace(slot, syn::parse_quote!(#r));
            // Parentheses the operand needed where it was written (`(if c { f(a) } else { 0 })
            // + ..`) are noise around a closure body, where `unused_parens` would flag them.
            while let Expr::Paren(p) = call {
                call = *p.expr;
            }
            if callee.is_call(&call) {
                self.hoist_arguments(&mut call, &changed_later[index], &mut hoisted);
            }
            self.visit_branch(&mut call);
            branches.push(Branch {
                span,
                body: call.to_token_stream(),
            });
            // What is applied to the result (`.field`, `.method(args)`, ...) runs after the
            // join; its own operands may still need rewriting.
            self.visit_expr_mut(op);
        }
        let (fork, pat) = self.fork(&branches, &branches, span);
        Some((hoisted, quote!(#[allow(unused_mut)] let #pat = #fork;)))
    }

    /// Evaluates the arguments of a forked recursive call that call something before the
    /// fork, as the sequential call would before running: the branch then only moves the value
    /// in, so one call may take a clone of what the next one takes by value
    /// (`f(s.clone()) + f(s)`), and effects in arguments happen in source order. Arguments
    /// that only read (`n - 1`, `&v[..mid]`) stay, and so do closures (their parameter types
    /// are inferred from the callee) and arguments that recurse themselves (they fork where
    /// they are).
    ///
    /// What the call evaluates before a hoisted argument is hoisted with it when it reads a
    /// place that argument may change: sequentially `f(i, bump(&mut i))` passes the old `i`,
    /// and `v[i].f({ i += 1; i })` calls the method on the old `v[i]`. So is a receiver that
    /// computes something. (For the sequential call to compile, such a read is a copy or a
    /// move, never a borrow still alive during the change, so it can be taken early.)
    ///
    /// `changed_later` is what the hoisted arguments of the forked calls after this one may
    /// change: they too run before the fork, so this call's reads of it are hoisted as well
    /// (`f(q[0]) + f(q.remove(0))`).
    fn hoist_arguments(
        &mut self,
        call: &mut Expr,
        changed_later: &HashSet<String>,
        hoisted: &mut Vec<Hoisted>,
    ) {
        let callee = self.callee;
        let receiver_hoists = hoisted_receiver(call, callee);
        // The call is not redirected to the copy (see `CallForm::OtherMethod`).
        let other_method = callee.call_form(call) == Some(CallForm::OtherMethod);
        let (receiver, args) = match call {
            Expr::Call(c) => (None, &mut c.args),
            Expr::MethodCall(m) => (Some(&mut *m.receiver), &mut m.args),
            _ => return,
        };
        let hoists: Vec<bool> = args
            .iter()
            .map(|arg| hoisted_argument(arg, callee))
            .collect();
        if !hoists.contains(&true) && !receiver_hoists && changed_later.is_empty() {
            return;
        }
        // Per argument, what the hoisted arguments after it may change.
        let mut changed_after = vec![changed_later.clone(); args.len()];
        for i in (0..args.len().saturating_sub(1)).rev() {
            let mut changed = changed_after[i + 1].clone();
            if hoists[i + 1] {
                changed.extend(changed_roots([&args[i + 1]], callee));
            }
            changed_after[i] = changed;
        }
        if let Some(receiver) = receiver {
            let mut changed = changed_after
                .first()
                .cloned()
                .unwrap_or_else(|| changed_later.clone());
            if hoists.first() == Some(&true) {
                changed.extend(changed_roots([&args[0]], callee));
            }
            if is_place(receiver) {
                hoist_place_parts(receiver, &changed, hoisted);
            } else if receiver_hoists
                || (!callee.makes_call(receiver)
                    && !matches!(receiver, Expr::Lit(_))
                    && names_any(receiver, &changed))
            {
                self.visit_expr_mut(receiver);
                let value = Hoisted::take(receiver, hoisted.len(), !other_method);
                if other_method {
                    // It stays a value, `{ v }`, not the binding (a place), which would redirect
                    // the call to the copy: a value's method may be a same-named one of another
                    // type. The block is a temporary, so a `&mut self` method needs no `mut`.
                    let name = &value.name;
                    *receiver = syn::parse_quote!({ #name });
                }
                hoisted.push(value);
            }
        }
        for (i, arg) in args.iter_mut().enumerate() {
            let read_before_change = !matches!(arg, Expr::Closure(_) | Expr::Lit(_))
                && !callee.makes_call(arg)
                && names_any(arg, &changed_after[i]);
            if hoists[i] || read_before_change {
                self.visit_expr_mut(arg);
                hoisted.push(Hoisted::take(arg, hoisted.len(), false));
            }
        }
    }
}

pub(super) fn is_assign_op(op: &BinOp) -> bool {
    use BinOp::*;
    matches!(
        op,
        AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
            | RemAssign(_)
            | BitXorAssign(_)
            | BitAndAssign(_)
            | BitOrAssign(_)
            | ShlAssign(_)
            | ShrAssign(_)
    )
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
/// (parens, `?`, `.field`, `.method(..)`, `[i]`, `as T`, unary operators, `&`, and a call of a
/// path that wraps it with a `?`, `Box::new(f(x)?)`): those are applied after the join. `None`
/// if the operand is not built on a recursive call.
fn call_slot<'e>(e: &'e mut Expr, callee: &Callee) -> Option<&'e mut Expr> {
    if callee.is_call(e) {
        return Some(e);
    }
    match e {
        // `Box::new(f(x)?)`, `Node::new(f(x)?, depth)`: one argument built on the call, with a
        // `?` that cannot run in a branch, and others that compute nothing, which then run
        // after the call instead of around it. Without a `?` the wrapper forks with the call
        // (`expensive(f(x))` stays parallel).
        Expr::Call(c) if matches!(&*c.func, Expr::Path(_)) => {
            let built: Vec<bool> = c
                .args
                .iter()
                .map(|a| call_slot(&mut a.clone(), callee).is_some())
                .collect();
            let quiet = |a: &Expr| !has_effects(a) && !callee.makes_call(a);
            let wraps_one = built.iter().filter(|b| **b).count() == 1
                && c.args.iter().zip(&built).all(|(a, b)| *b || quiet(a));
            let at = built.iter().position(|b| *b)?;
            if wraps_one && escapes(&c.args[at]) {
                call_slot(&mut c.args[at], callee)
            } else {
                None
            }
        }
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

/// `self`, behind parentheses, `&` or `*`.
fn is_self(e: &Expr) -> bool {
    match e {
        Expr::Path(p) => p.qself.is_none() && p.path.is_ident("self"),
        Expr::Paren(p) => is_self(&p.expr),
        Expr::Reference(r) => is_self(&r.expr),
        Expr::Unary(u) => matches!(u.op, syn::UnOp::Deref(_)) && is_self(&u.expr),
        _ => false,
    }
}

/// A field of `self` or of one of its fields (`self.items`, `&mut self.a.b`, `*self.next`).
fn is_field_of_self(e: &Expr) -> bool {
    match e {
        Expr::Field(f) => is_self(&f.base) || is_field_of_self(&f.base),
        Expr::Paren(p) => is_field_of_self(&p.expr),
        Expr::Reference(r) => is_field_of_self(&r.expr),
        Expr::Unary(u) => matches!(u.op, syn::UnOp::Deref(_)) && is_field_of_self(&u.expr),
        _ => false,
    }
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
                self.fork_operands(ops, false, span)
            }
            Expr::Tuple(t) => self.fork_operands(t.elems.iter_mut().collect(), false, span),
            Expr::Array(a) => self.fork_operands(a.elems.iter_mut().collect(), false, span),
            Expr::Call(c) => {
                // The callee is evaluated before the arguments (`pick()(f(a), f(b))`): an
                // operand left of them, never forked itself.
                let mut ops: Vec<&mut Expr> = vec![&mut *c.func];
                ops.extend(c.args.iter_mut());
                self.fork_operands(ops, false, span)
            }
            Expr::MethodCall(m) => {
                let mut ops: Vec<&mut Expr> = vec![&mut *m.receiver];
                ops.extend(m.args.iter_mut());
                self.fork_operands(ops, true, span)
            }
            Expr::Struct(s) => {
                // The base of `..base` is evaluated after the fields.
                let fields = s.fields.iter_mut().map(|f| &mut f.expr);
                let ops = fields.chain(s.rest.as_deref_mut()).collect();
                self.fork_operands(ops, false, span)
            }
            _ => {
                syn::visit_mut::visit_expr_mut(self, e);
                None
            }
        };
        // The operands are done; what is left is this node itself being a recursive call.
        self.redirect(e);
        if let Some((hoisted, join)) = fork {
            let inner = std::mem::replace(e, syn::parse_quote!(()));
            // The braces are the macro's: located at the expression, but marked as expanded
            // code, so lints on how the user's code is laid out (clippy's
            // `possible_missing_else` after `if c { return x; } f(a) + f(b)`) skip them.
            let span = span.resolved_at(Span::mixed_site());
            let body = bind_hoisted(hoisted, quote_spanned!(span=> { #join #inner }), span);
            *e = syn::parse2(body).expect("block");
        } else {
            sink_into_fork_block(e);
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
                hoist_fork_out_of_let(&mut stmt, &mut block.stmts);
            }
            block.stmts.push(stmt);
        }
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        if !is_fork_join(mac) {
            return;
        }
        // Invalid input is left for `fork_join!` itself to report.
        let Ok(mut fj) = syn::parse2::<ForkJoin>(mac.tokens.clone()) else {
            self.unparsed_fork_join = true;
            return;
        };
        if fj.worker.is_none() {
            fj.worker = Some(self.names.cx.clone());
        }
        if fj.krate.is_none() {
            fj.krate = self.forward_crate.clone();
        }
        for arm in &mut fj.arms {
            self.visit_branch(&mut arm.expr);
        }
        self.forks += 1;
        mac.tokens = fj.to_token_stream();
    }

    fn visit_item_mut(&mut self, _: &mut Item) {}
}
