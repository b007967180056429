//! What a fork evaluates before it forks: the arguments and receivers of the forked calls that
//! compute something, and the computed parts of places, each bound to a name by a `match`
//! around the fork so that it runs once, in source order, on the forking worker.

use std::collections::HashSet;

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::visit::Visit;
use syn::{Expr, Ident, Item, Stmt};

use super::{call_slot, is_assign_op, peel_try_owned};
use crate::common::{self, EscapeCheck};
use crate::parallel::dependencies::{self, names_any};
use crate::parallel::recursion::{CallForm, Callee};

/// Whether a forked call's argument is evaluated before the fork: it calls something (not the
/// fn itself, which forks where it is) and is not a closure.
pub(super) fn hoisted_argument(arg: &Expr, callee: &Callee) -> bool {
    !matches!(arg, Expr::Closure(_)) && makes_any_call(arg) && !callee.makes_call(arg)
}

/// The arguments evaluated before the fork of the recursive call that statement `stmt` forks,
/// if it forks one: `let a = f(x, v.len());`, `x = f(a)?;`, `let r = &f(a).field;`.
pub(super) fn statement_hoisted_arguments(stmt: &Stmt, callee: &Callee) -> Vec<Expr> {
    let value = match stmt {
        Stmt::Expr(e, _) => dependencies::assignment(e).map_or(e, |(_, _, v)| v),
        Stmt::Local(l) => match &l.init {
            Some(init) => &*init.expr,
            None => return Vec::new(),
        },
        _ => return Vec::new(),
    };
    let (mut inner, _) = peel_try_owned(&mut value.clone());
    let call = if callee.is_call(&inner) {
        Some(&mut inner)
    } else {
        call_slot(&mut inner, callee)
    };
    call.map(|c| hoisted_arguments(c, callee).into_iter().cloned().collect())
        .unwrap_or_default()
}

/// Whether the receiver of the forked method call `call` is evaluated before the fork: a
/// value that computes something (`self.clone().f(n)`, `make().f(n)`), as an argument would
/// be. A place receiver stays where it is (only its computed parts are hoisted, see
/// `hoist_place_parts`), and so does one the call is redirected on (`a.as_ref().unwrap()`,
/// see `CallForm::PlaceMethod`), and one that takes a lock or a borrow (see [`holds_guard`]).
pub(super) fn hoisted_receiver(call: &Expr, callee: &Callee) -> bool {
    let Expr::MethodCall(m) = call else {
        return false;
    };
    let receiver = &*m.receiver;
    callee.call_form(call) == Some(CallForm::OtherMethod)
        && !is_place(receiver)
        && !matches!(receiver, Expr::Lit(_))
        && !callee.makes_call(receiver)
        && has_effects(receiver)
        && !holds_guard(receiver)
}

/// Whether the receiver `e` is a lock's guard: a chain through `lock()`, `read()`, `write()`
/// or their `try_` forms (`kid.lock().unwrap()`). Evaluated before the fork, every branch's
/// guard would be held at once, on the forking worker: two locks of one mutex would
/// deadlock, and a guard that cannot leave its thread would not compile. Each branch takes
/// its own, as each call does in order. (A `RefCell`'s `borrow()` keeps the call out of the
/// forks altogether, see `Callee::call_form`.)
fn holds_guard(e: &Expr) -> bool {
    const LOCKS: [&str; 6] = ["lock", "read", "write", "try_lock", "try_read", "try_write"];
    common::through_method(e, &LOCKS)
}

/// The receiver and arguments of the recursive call `call` evaluated before the fork.
pub(super) fn hoisted_arguments<'e>(call: &'e Expr, callee: &Callee) -> Vec<&'e Expr> {
    let (receiver, args) = match call {
        Expr::Call(c) => (None, &c.args),
        Expr::MethodCall(m) => (Some(&*m.receiver), &m.args),
        _ => return Vec::new(),
    };
    let receiver = receiver.filter(|_| hoisted_receiver(call, callee));
    receiver
        .into_iter()
        .chain(args.iter().filter(|a| hoisted_argument(a, callee)))
        .collect()
}

/// Hoists the parts of the place `e` that compute something (its base when that is a value,
/// its indices) into `hoisted`, leaving the place itself where it is: `v[next()]` becomes
/// `v[h]`, `make().field` becomes `h.field`. So are the parts that read one of `changed`,
/// places something hoisted after them changes: `v[i]` becomes `v[h]` with `h` the old `i`.
pub(super) fn hoist_place_parts(
    e: &mut Expr,
    changed: &HashSet<String>,
    hoisted: &mut Vec<Hoisted>,
) {
    let early =
        |e: &Expr| is_hoistable_value(e) || (!matches!(e, Expr::Lit(_)) && names_any(e, changed));
    // The base is the place itself (or a value): a place base is never moved out.
    let base = |e: &mut Expr, hoisted: &mut Vec<Hoisted>| {
        if is_place(e) {
            hoist_place_parts(e, changed, hoisted);
        } else if early(e) {
            hoisted.push(Hoisted::take(e, hoisted.len(), false));
        }
    };
    // An index is a value the indexing reads (a copy, or moved into `Index::index`).
    let index = |e: &mut Expr, hoisted: &mut Vec<Hoisted>| {
        if early(e) {
            hoisted.push(Hoisted::take(e, hoisted.len(), false));
        } else if is_place(e) {
            hoist_place_parts(e, changed, hoisted);
        }
    };
    match e {
        Expr::Paren(p) => hoist_place_parts(&mut p.expr, changed, hoisted),
        Expr::Field(f) => base(&mut f.base, hoisted),
        Expr::Index(i) => {
            base(&mut i.expr, hoisted);
            index(&mut i.index, hoisted);
        }
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => base(&mut u.expr, hoisted),
        _ => {}
    }
}

/// A value evaluated before a fork, bound by a `match` around it and replaced by its name
/// where it stood.
pub(super) struct Hoisted {
    pub(super) name: Ident,
    pub(super) value: Expr,
    /// A method's receiver, which the method may borrow mutably.
    mutable: bool,
}

impl Hoisted {
    pub(super) fn take(e: &mut Expr, index: usize, mutable: bool) -> Hoisted {
        let name = format_ident!("__blitz_v{}", index, span = Span::mixed_site());
        let mut value = std::mem::replace(e, syn::parse_quote!(#name));
        // The parentheses an operand needed where it stood (`(if c { a } else { b }) + ..`)
        // are noise around a `match` scrutinee, which `unused_parens` flags; a struct literal
        // keeps them (a scrutinee's `{` would open the arms).
        while let Expr::Paren(p) = &value
            && !starts_with_struct_literal(&p.expr)
        {
            let Expr::Paren(p) = value else {
                unreachable!("matched")
            };
            value = *p.expr;
        }
        Hoisted {
            name,
            value,
            mutable,
        }
    }
}

/// `body` inside a `match` per hoisted value, which binds it to its name. Innermost last: the
/// values bind in source order, and each `match` keeps its value's temporaries alive to the
/// end of `body`, as the enclosing statement would.
pub(super) fn bind_hoisted(
    hoisted: Vec<Hoisted>,
    mut body: TokenStream,
    span: Span,
) -> TokenStream {
    for h in hoisted.into_iter().rev() {
        let (name, value) = (h.name, h.value);
        let pat = if h.mutable {
            quote!(#[allow(unused_mut)] mut #name)
        } else {
            quote!(#name)
        };
        // A value that starts with a struct literal (`S { n: g(x) }.f()`, `&S { .. }`) needs
        // parentheses as a scrutinee, whose `{` would open the arms.
        let value = if starts_with_struct_literal(&value) {
            quote!((#value))
        } else {
            value.to_token_stream()
        };
        body = quote_spanned!(span=> { match #value { #pat => #body } });
    }
    body
}

/// Whether `e`, written where a block may follow (a `match` scrutinee), starts with a struct
/// literal outside any delimiter: the literal's `{` would be taken for the block's.
fn starts_with_struct_literal(e: &Expr) -> bool {
    match e {
        Expr::Struct(_) => true,
        Expr::Binary(b) => starts_with_struct_literal(&b.left),
        Expr::Assign(a) => starts_with_struct_literal(&a.left),
        Expr::Range(r) => r.start.as_deref().is_some_and(starts_with_struct_literal),
        Expr::Unary(u) => starts_with_struct_literal(&u.expr),
        Expr::Reference(r) => starts_with_struct_literal(&r.expr),
        Expr::Cast(c) => starts_with_struct_literal(&c.expr),
        Expr::Field(f) => starts_with_struct_literal(&f.base),
        Expr::Index(i) => starts_with_struct_literal(&i.expr),
        Expr::MethodCall(m) => starts_with_struct_literal(&m.receiver),
        Expr::Try(t) => starts_with_struct_literal(&t.expr),
        Expr::Await(a) => starts_with_struct_literal(&a.base),
        _ => false,
    }
}

/// Whether moving `e` into a binding before the fork keeps its meaning: a value that may
/// have effects (it calls something), not a place. A place (`x`, `v[i]`, `*p`, `s.field`)
/// would be moved out of where an operator only borrows it, and reading one has no effect
/// whose order could change.
pub(super) fn is_hoistable_value(e: &Expr) -> bool {
    !is_place(e) && !matches!(e, Expr::Lit(_)) && has_effects(e)
}

/// Whether `e` is a place expression (`x`, `v[i]`, `*p`, `s.field`, parenthesized).
pub(super) fn is_place(e: &Expr) -> bool {
    match e {
        Expr::Paren(p) => is_place(&p.expr),
        Expr::Path(_) | Expr::Field(_) | Expr::Index(_) => true,
        Expr::Unary(u) => matches!(u.op, syn::UnOp::Deref(_)),
        _ => false,
    }
}

/// Whether `e` may have an effect whose order matters: it calls something or assigns
/// ([`makes_any_call`]), or leaves the fn or a loop (`return`, `?`, `break`, `continue`).
pub(super) fn has_effects(e: &Expr) -> bool {
    makes_any_call(e) || escapes(e)
}

/// Whether `e` holds a `return`, `?`, `.await`, or a `break`/`continue` that leaves it.
pub(super) fn escapes(e: &Expr) -> bool {
    let check = EscapeCheck {
        place: "",
        allow_top_continue: false,
        advice: "",
        continue_advice: "",
        try_advice: common::TRY_AFTER_JOIN,
    };
    common::check_escapes(e, &check).is_err()
}

/// Whether `e` calls anything (a fn, a method, a macro) or assigns, outside closures.
pub(super) fn makes_any_call(e: &Expr) -> bool {
    struct Finder(bool);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_expr(&mut self, e: &'ast Expr) {
            match e {
                Expr::Closure(_) | Expr::Async(_) => {}
                Expr::Call(_) | Expr::MethodCall(_) | Expr::Macro(_) | Expr::Assign(_) => {
                    self.0 = true
                }
                Expr::Binary(b) if is_assign_op(&b.op) => self.0 = true,
                _ => syn::visit::visit_expr(self, e),
            }
        }
        fn visit_item(&mut self, _: &'ast Item) {}
    }
    let mut f = Finder(false);
    f.visit_expr(e);
    f.0
}
