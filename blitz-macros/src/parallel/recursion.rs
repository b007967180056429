//! The annotated fn as a callee: which calls in its body are recursive, and how a recursive
//! call is redirected to the fast copy.
//!
//! A macro cannot see types, so calls are recognised by name and shape:
//!
//! - a free fn: `name(args)`;
//! - a method or associated fn: `Self::name(args)`, `Type::name(args)` and `x.name(args)` for
//!   any receiver `x`, with as many arguments as the fn takes (plus the receiver, in the path
//!   forms) and no turbofish unless the fn is generic.
//!
//! A recognised call may be a same-named fn of another type; forking it is still correct (a
//! fork runs the call as written). Redirecting it to the fast copy is not, so a call is
//! redirected only where its receiver is very likely the impl's own type: `self`, `Self::`, or
//! a *place* (a binding, a field, an index, `*`/`&` of one, `as_ref()`/`unwrap()`/.. of one)
//! in the branch of a fork (see `Rewriter::redirect`). In a `&self` or `&mut self` fn a call
//! on a place is a probe: the type checker picks the copy or the call as written by the
//! receiver's type (`Rewriter::probed_call`). In a fn taking `self` by value or by a smart
//! pointer, a call forked on a place of another type with a same-named method of the same
//! arity fails to compile (the copy does not exist there); `blitz::no_fork!(call)` opts such
//! a call out.

use quote::ToTokens;
use syn::visit::Visit;
use syn::{Expr, FnArg, GenericParam, Ident, Item, ItemFn, Stmt};

use std::collections::{HashMap, HashSet};

use proc_macro2::{TokenStream, TokenTree};

use crate::common::{self, pat_bindings};

/// What the annotated fn is.
pub(super) struct Callee {
    pub(super) name: Ident,
    /// A method or associated fn (it has a receiver, mentions `Self`, or is written in an
    /// `impl`), as opposed to a free fn.
    pub(super) is_method: bool,
    /// It has a receiver (`self`, `&self`, `self: Box<Self>`, ...).
    pub(super) has_receiver: bool,
    /// How a `&self` or `&mut self` receiver is borrowed; `None` for the other receivers.
    pub(super) receiver_borrow: Option<ReceiverBorrow>,
    /// Its parameters, not counting the receiver.
    pub(super) arity: usize,
    /// It has type or const parameters (a recursive call may carry a turbofish).
    pub(super) generic: bool,
    /// How many `impl Trait` argument types it has: the copy takes each as a type parameter,
    /// after the fn's own, so a turbofish on a redirected call gets a `_` for each.
    pub(super) impl_trait_args: usize,
    /// The parameters that are exclusive references (`&mut T`, `&mut self`), and the locals
    /// that look like ones (see [`with_exclusive_locals`]): two branches that both use one would
    /// both hold it (see `dependencies::PlaceUses`).
    pub(super) exclusive_params: HashSet<String>,
    /// The parameters that are shared references (`&self`, `v: &[T]`): what is reached
    /// through them cannot change (short of interior mutability).
    pub(super) shared_params: HashSet<String>,
    /// The bindings of the body that may borrow from others (see [`super::effects::aliases`]).
    pub(super) aliases: HashMap<String, HashSet<String>>,
}

/// A free fn's recursive calls are recognised by its name (`f(..)`), so a binding of that name
/// in the fn (a parameter, a `let`, a closure's or a pattern's binding, a nested item or `use`) would
/// make the macro take calls of the binding for recursion. Reported, spanned on the binding.
fn check_not_shadowed(func: &ItemFn) -> syn::Result<()> {
    struct Finder<'a> {
        name: &'a Ident,
        found: Option<Ident>,
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            if p.ident == *self.name {
                self.found.get_or_insert_with(|| p.ident.clone());
            }
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_item(&mut self, item: &'ast Item) {
            // A nested item's own body is its own; only its name is bound here.
            let ident = match item {
                Item::Fn(f) => Some(&f.sig.ident),
                Item::Const(c) => Some(&c.ident),
                Item::Static(s) => Some(&s.ident),
                Item::Use(u) => use_binding(&u.tree, self.name),
                _ => None,
            };
            if let Some(ident) = ident
                && ident == self.name
            {
                self.found.get_or_insert_with(|| ident.clone());
            }
        }
    }
    let mut finder = Finder {
        name: &func.sig.ident,
        found: None,
    };
    for input in &func.sig.inputs {
        finder.visit_fn_arg(input);
    }
    finder.visit_block(&func.block);
    match finder.found {
        Some(binding) => Err(syn::Error::new_spanned(
            &binding,
            format!(
                "`#[parallel]` recognises the recursive calls of `{name}` by its name, and this \
                 binding shadows it: calls of the binding would be taken for recursion; rename \
                 the binding",
                name = func.sig.ident
            ),
        )),
        None => Ok(()),
    }
}

/// The name a `use` tree binds that is `name` (`use m::f;`, `use m::g as f;`, `use m::{f, ..}`).
fn use_binding<'a>(tree: &'a syn::UseTree, name: &Ident) -> Option<&'a Ident> {
    match tree {
        syn::UseTree::Path(p) => use_binding(&p.tree, name),
        syn::UseTree::Name(n) => (n.ident == *name).then_some(&n.ident),
        syn::UseTree::Rename(r) => (r.rename == *name).then_some(&r.rename),
        syn::UseTree::Group(g) => g.items.iter().find_map(|t| use_binding(t, name)),
        syn::UseTree::Glob(_) => None,
    }
}

/// Whether `mac` is a `fork_join!` (under any path): the one macro whose arms the rewriting
/// enters.
pub(super) fn is_fork_join(mac: &syn::Macro) -> bool {
    mac.path
        .segments
        .last()
        .is_some_and(|s| s.ident == "fork_join")
}

/// Whether `mac` is a `par_for!` (by its last path segment): its body runs as closures on the
/// pool, so a recursive call there is not a fork point, and needs none.
pub(super) fn is_par_for(mac: &syn::Macro) -> bool {
    mac.path
        .segments
        .last()
        .is_some_and(|s| s.ident == "par_for")
}

/// Whether `tokens` hold `name(..)` (a macro's tokens are not parsed).
fn tokens_call(tokens: TokenStream, name: &Ident) -> bool {
    let mut tokens = tokens.into_iter().peekable();
    while let Some(tt) = tokens.next() {
        match tt {
            TokenTree::Ident(i) if i == *name => {
                let next = tokens.peek();
                if matches!(next, Some(TokenTree::Group(g))
                    if g.delimiter() == proc_macro2::Delimiter::Parenthesis)
                {
                    return true;
                }
            }
            TokenTree::Group(g) if tokens_call(g.stream(), name) => return true,
            _ => {}
        }
    }
    false
}

/// The names of the parameters of `sig` that are `&mut` references (`self` for `&mut self` or
/// `self: &mut Self`), or with `exclusive` false, shared references.
fn reference_params(sig: &syn::Signature, exclusive: bool) -> HashSet<String> {
    let is_wanted_ref = |ty: &syn::Type| matches!(ty, syn::Type::Reference(r) if r.mutability.is_some() == exclusive);
    sig.inputs
        .iter()
        .filter_map(|arg| match arg {
            FnArg::Receiver(r) => is_wanted_ref(&r.ty).then(|| "self".to_owned()),
            FnArg::Typed(pt) => match &*pt.pat {
                syn::Pat::Ident(p) if is_wanted_ref(&pt.ty) => Some(p.ident.to_string()),
                _ => None,
            },
        })
        .collect()
}

/// The exclusive parameters `params` and the locals that look like exclusive references, by
/// name. Without types, a local passed to two calls may be a shared slice (which may fork) or
/// a `&mut` one (which may not); a name bound like one of these is taken for the latter:
/// - bound from what looks like an exclusive borrow: `&mut x`, a call of a method or fn with
///   `mut` in its name (`v.split_at_mut(m)`, `self.left.as_mut()`, `v.iter_mut()`,
///   `kids.as_mut_slice()`), what `unwrap`, `expect`, `?` or `next` make of one
///   (`halves.next().unwrap()` on `v.chunks_mut(n)`), or a tuple holding one;
/// - bound from an exclusive parameter or local itself (`let t2 = t;`), or by a pattern that
///   takes one apart (`match t { Tree::Node(l, r) => .. }`, `let Self { left, right } = self;`
///   on `&mut self`): default binding modes borrow its parts `&mut`;
/// - bound `ref mut`.
///
/// That covers `let` (and `let`-`else`), `match` arms and `if let`/`while let`; a name bound
/// from one found this way counts in turn.
fn with_exclusive_locals(block: &syn::Block, params: HashSet<String>) -> HashSet<String> {
    struct Finder {
        names: HashSet<String>,
        changed: bool,
    }
    impl Finder {
        /// Whether `e`, bound by a pattern, makes its bindings exclusive.
        fn exclusive(&self, e: &Expr) -> bool {
            let mut_named = |name: &str| name.split('_').any(|part| part == "mut");
            match e {
                Expr::Reference(r) => r.mutability.is_some(),
                Expr::MethodCall(m) => {
                    let method = m.method.to_string();
                    mut_named(&method)
                        || (matches!(method.as_str(), "unwrap" | "expect" | "next" | "next_back")
                            && self.exclusive(&m.receiver))
                }
                Expr::Call(c) => matches!(&*c.func, Expr::Path(p)
                    if p.path.segments.last().is_some_and(|s| mut_named(&s.ident.to_string()))),
                Expr::Try(t) => self.exclusive(&t.expr),
                Expr::Paren(p) => self.exclusive(&p.expr),
                Expr::Tuple(t) => t.elems.iter().any(|e| self.exclusive(e)),
                // The reference itself, or (taken apart) its parts, which default binding
                // modes bind `ref mut`. (A field or `*t` is matched by value: its bindings are
                // copies unless written `ref mut`.)
                Expr::Path(p) => p
                    .path
                    .get_ident()
                    .is_some_and(|i| self.names.contains(&i.to_string())),
                _ => false,
            }
        }
        fn bind(&mut self, pat: &syn::Pat, init: &Expr) {
            let all = self.exclusive(init);
            for p in pat_bindings(pat) {
                let by_ref_mut = p.by_ref.is_some() && p.mutability.is_some();
                if (all || by_ref_mut) && self.names.insert(p.ident.to_string()) {
                    self.changed = true;
                }
            }
        }
    }
    impl<'ast> Visit<'ast> for Finder {
        fn visit_local(&mut self, l: &'ast syn::Local) {
            if let Some(init) = &l.init {
                self.bind(&l.pat, &init.expr);
            }
            syn::visit::visit_local(self, l);
        }
        fn visit_expr_match(&mut self, m: &'ast syn::ExprMatch) {
            for arm in &m.arms {
                self.bind(&arm.pat, &m.expr);
            }
            syn::visit::visit_expr_match(self, m);
        }
        fn visit_expr_let(&mut self, l: &'ast syn::ExprLet) {
            self.bind(&l.pat, &l.expr);
            syn::visit::visit_expr_let(self, l);
        }
        fn visit_item(&mut self, _: &'ast Item) {}
    }
    let mut finder = Finder {
        names: params,
        changed: true,
    };
    // Until nothing new is found: a binding may come from one found later in the walk.
    while finder.changed {
        finder.changed = false;
        finder.visit_block(block);
    }
    finder.names
}

/// How the fn's receiver is borrowed, when it is a reference to `Self`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum ReceiverBorrow {
    /// `&self`, `self: &Self`.
    Shared,
    /// `&mut self`, `self: &mut Self`.
    Exclusive,
}

fn receiver_borrow(sig: &syn::Signature) -> Option<ReceiverBorrow> {
    let syn::Type::Reference(r) = &*sig.receiver()?.ty else {
        return None;
    };
    let syn::Type::Path(p) = &*r.elem else {
        return None;
    };
    if p.qself.is_some() || !p.path.is_ident("Self") {
        return None;
    }
    Some(if r.mutability.is_some() {
        ReceiverBorrow::Exclusive
    } else {
        ReceiverBorrow::Shared
    })
}

/// How a recognised recursive call is spelled.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum CallForm {
    /// `name(args)` in a free fn.
    Free,
    /// `Self::name(args)`.
    SelfPath,
    /// `Type::name(args)` or `<Type as Trait>::name(args)`: may be another type's fn; never
    /// redirected.
    TypePath,
    /// `x.name(args)` with a place for `x` (or `self`).
    PlaceMethod,
    /// `x.name(args)` with any other receiver: never redirected.
    OtherMethod,
}

impl Callee {
    pub(super) fn of(func: &ItemFn) -> syn::Result<Callee> {
        let sig = &func.sig;
        check_signature(sig)?;
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
        let is_method =
            has_receiver || mentions_self || super::placement::is_in_impl(sig.fn_token.span);
        if !is_method {
            check_not_shadowed(func)?;
        }
        let mut callee = Callee {
            name: sig.ident.clone(),
            is_method,
            has_receiver,
            receiver_borrow: receiver_borrow(sig),
            arity: sig
                .inputs
                .iter()
                .filter(|a| matches!(a, FnArg::Typed(_)))
                .count(),
            generic: sig
                .generics
                .params
                .iter()
                .any(|p| !matches!(p, GenericParam::Lifetime(_))),
            impl_trait_args: sig
                .inputs
                .iter()
                .map(|a| match a {
                    FnArg::Typed(pt) => count_impl_traits(&pt.ty),
                    FnArg::Receiver(_) => 0,
                })
                .sum(),
            exclusive_params: with_exclusive_locals(&func.block, reference_params(sig, true)),
            shared_params: reference_params(sig, false),
            aliases: HashMap::new(),
        };
        callee.aliases = super::effects::aliases(&func.block, &callee);
        Ok(callee)
    }

    /// The form of `e` if it is a recursive call.
    pub(super) fn call_form(&self, e: &Expr) -> Option<CallForm> {
        match e {
            Expr::Call(c) => {
                let Expr::Path(p) = &*c.func else {
                    return None;
                };
                let segs = &p.path.segments;
                if p.qself.is_some() {
                    // `<Self as Trait>::name(x, ..)`, `<T>::name(x, ..)`: a type's fn, as
                    // `Type::name` is.
                    let args = self.arity + usize::from(self.has_receiver);
                    let named = segs.last().is_some_and(|s| s.ident == self.name);
                    return (self.is_method && named && c.args.len() == args)
                        .then_some(CallForm::TypePath);
                }
                if !self.is_method {
                    let free = p.path.leading_colon.is_none()
                        && segs.len() == 1
                        && segs[0].ident == self.name
                        && c.args.len() == self.arity;
                    return free.then_some(CallForm::Free);
                }
                let args = self.arity + usize::from(self.has_receiver);
                if segs.len() != 2 || segs[1].ident != self.name || c.args.len() != args {
                    return None;
                }
                Some(if segs[0].ident == "Self" {
                    CallForm::SelfPath
                } else {
                    CallForm::TypePath
                })
            }
            Expr::MethodCall(m) => {
                let matches = self.has_receiver
                    && m.method == self.name
                    && m.args.len() == self.arity
                    && (m.turbofish.is_none() || self.generic);
                // A call through a `RefCell`'s borrow cannot run on another thread (the cell
                // is not `Sync`): it runs as written, in order.
                const CELL_BORROWS: [&str; 4] =
                    ["borrow", "borrow_mut", "try_borrow", "try_borrow_mut"];
                if !matches || crate::common::through_method(&m.receiver, &CELL_BORROWS) {
                    return None;
                }
                Some(if is_place(&m.receiver) {
                    CallForm::PlaceMethod
                } else {
                    CallForm::OtherMethod
                })
            }
            _ => None,
        }
    }

    /// The path of a call in `block` that names this free fn through a path (`crate::f(..)`,
    /// `self::f(..)`, `super::m::f(..)`, `::c::f(..)`) with the fn's arity. Such calls are not
    /// taken for recursion (a path may name another fn of the same name), but when the fn has
    /// no fork point, one is most likely what the user meant: the error points at it.
    pub(super) fn qualified_call(&self, block: &syn::Block) -> Option<syn::ExprPath> {
        struct Finder<'a> {
            callee: &'a Callee,
            found: Option<syn::ExprPath>,
        }
        impl<'ast> Visit<'ast> for Finder<'_> {
            fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
                if self.found.is_some() {
                    return;
                }
                if let Expr::Path(p) = &*c.func {
                    let segs = &p.path.segments;
                    let qualified = p.path.leading_colon.is_some() || segs.len() > 1;
                    if p.qself.is_none()
                        && qualified
                        && segs.last().is_some_and(|s| s.ident == self.callee.name)
                        && c.args.len() == self.callee.arity
                    {
                        self.found = Some(p.clone());
                        return;
                    }
                }
                syn::visit::visit_expr_call(self, c);
            }
            fn visit_item(&mut self, _: &'ast Item) {}
        }
        if self.is_method {
            return None;
        }
        let mut finder = Finder {
            callee: self,
            found: None,
        };
        finder.visit_block(block);
        finder.found
    }

    /// A macro invocation in `block` (other than `fork_join!`, which the rewriting enters)
    /// whose tokens call this fn by name (`name(..)`, `.name(..)`): when the fn has no fork
    /// point, such calls are most likely what the user meant to fork, and the error points at
    /// the macro.
    pub(super) fn call_in_macro(&self, block: &syn::Block) -> Option<syn::Macro> {
        self.macro_calling_self(block, |mac| !is_fork_join(mac) && !is_par_for(mac))
    }

    /// The first macro invocation in `block` that `pick` accepts and whose tokens call this
    /// fn by name.
    fn macro_calling_self(
        &self,
        block: &syn::Block,
        pick: impl Fn(&syn::Macro) -> bool,
    ) -> Option<syn::Macro> {
        struct Finder<'a, P> {
            name: &'a Ident,
            pick: P,
            found: Option<syn::Macro>,
        }
        impl<'ast, P: Fn(&syn::Macro) -> bool> Visit<'ast> for Finder<'_, P> {
            fn visit_macro(&mut self, mac: &'ast syn::Macro) {
                if self.found.is_none()
                    && (self.pick)(mac)
                    && tokens_call(mac.tokens.clone(), self.name)
                {
                    self.found = Some(mac.clone());
                }
            }
            fn visit_item(&mut self, _: &'ast Item) {}
        }
        let mut finder = Finder {
            name: &self.name,
            pick,
            found: None,
        };
        finder.visit_block(block);
        finder.found
    }

    pub(super) fn is_call(&self, e: &Expr) -> bool {
        self.call_form(e).is_some()
    }

    /// Whether `e` makes a recursive call that runs when `e` is evaluated, as far as the
    /// macro can tell: outside loops and `async` blocks, and outside closures except those
    /// passed to a call (`opt.map_or(0, |c| c.sum())`, `v.iter().map(|c| c.size())`). Such an
    /// `e` is worth forking as a whole; a closure itself is not.
    pub(super) fn makes_call(&self, e: &Expr) -> bool {
        !matches!(e, Expr::Closure(_)) && self.find_call(|f| f.visit_expr(e), Reach::Evaluated)
    }

    /// A call in `block` that can only mean this fn but passes the wrong number of arguments:
    /// `name(..)` in a free fn, `Self::name(..)` or `self.name(..)` in a method. It is no
    /// recursive call to fork; left as written, it gets rustc's own arity error, which names
    /// the fn's real parameters (a redirected call would count the context too).
    pub(super) fn wrong_arity_call(&self, block: &syn::Block) -> bool {
        struct Finder<'a> {
            callee: &'a Callee,
            found: bool,
        }
        impl<'ast> Visit<'ast> for Finder<'_> {
            fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
                let callee = self.callee;
                if let Expr::Path(p) = &*c.func
                    && p.qself.is_none()
                    && p.path.leading_colon.is_none()
                {
                    let segs = &p.path.segments;
                    let (named, arity) = if callee.is_method {
                        let named = segs.len() == 2
                            && segs[0].ident == "Self"
                            && segs[1].ident == callee.name;
                        (named, callee.arity + usize::from(callee.has_receiver))
                    } else {
                        (
                            segs.len() == 1 && segs[0].ident == callee.name,
                            callee.arity,
                        )
                    };
                    self.found |= named && c.args.len() != arity;
                }
                syn::visit::visit_expr_call(self, c);
            }
            fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
                let callee = self.callee;
                self.found |= callee.has_receiver
                    && m.method == callee.name
                    && matches!(&*m.receiver, Expr::Path(p) if p.path.is_ident("self"))
                    && m.args.len() != callee.arity;
                syn::visit::visit_expr_method_call(self, m);
            }
            fn visit_item(&mut self, _: &'ast Item) {}
        }
        let mut finder = Finder {
            callee: self,
            found: false,
        };
        finder.visit_block(block);
        finder.found
    }

    /// Whether the body makes a recursive call inside a closure, a loop or a `par_for!` (where
    /// calls are not fork points).
    pub(super) fn calls_itself_in_closure_or_loop(&self, block: &syn::Block) -> bool {
        self.find_call(|f| f.visit_block(block), Reach::Deferred) || self.calls_in_par_for(block)
    }

    /// Whether the body makes a recursive call in the body of a `par_for!`.
    fn calls_in_par_for(&self, block: &syn::Block) -> bool {
        self.macro_calling_self(block, is_par_for).is_some()
    }

    fn find_call(&self, visit: impl FnOnce(&mut CallFinder), reach: Reach) -> bool {
        let mut f = CallFinder {
            callee: self,
            reach,
            depth: 0,
            found: false,
        };
        visit(&mut f);
        f.found
    }
}

/// Which recursive calls a [`CallFinder`] looks for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// Calls made when the expression is evaluated (see [`Callee::makes_call`]).
    Evaluated,
    /// Calls in closures (other than call arguments), loops and `async` blocks.
    Deferred,
}

struct CallFinder<'a> {
    callee: &'a Callee,
    reach: Reach,
    /// How many closures, loops and `async` blocks the visitor is inside (`Deferred` only).
    depth: usize,
    found: bool,
}

impl CallFinder<'_> {
    /// A call's argument: a closure there is taken to run during the call.
    fn visit_argument(&mut self, arg: &Expr) {
        match arg {
            Expr::Closure(c) if self.reach == Reach::Evaluated => self.visit_expr(&c.body),
            _ => self.visit_expr(arg),
        }
    }
}

impl<'ast> Visit<'ast> for CallFinder<'_> {
    fn visit_expr(&mut self, e: &'ast Expr) {
        let wanted = match self.reach {
            Reach::Evaluated => true,
            Reach::Deferred => self.depth > 0,
        };
        if wanted && self.callee.is_call(e) {
            self.found = true;
        }
        match e {
            Expr::Closure(_)
            | Expr::Async(_)
            | Expr::ForLoop(_)
            | Expr::While(_)
            | Expr::Loop(_) => {
                if self.reach == Reach::Deferred {
                    self.depth += 1;
                    syn::visit::visit_expr(self, e);
                    self.depth -= 1;
                }
            }
            Expr::Call(c) => {
                self.visit_expr(&c.func);
                c.args.iter().for_each(|a| self.visit_argument(a));
            }
            Expr::MethodCall(m) => {
                self.visit_expr(&m.receiver);
                m.args.iter().for_each(|a| self.visit_argument(a));
            }
            _ => syn::visit::visit_expr(self, e),
        }
    }

    /// A macro inside a closure or loop whose tokens call the fn (`fork_join!(f(a), f(b))` in
    /// a closure) makes a deferred call too.
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if self.reach == Reach::Deferred
            && self.depth > 0
            && tokens_call(mac.tokens.clone(), &self.callee.name)
        {
            self.found = true;
        }
    }

    fn visit_item(&mut self, _: &'ast Item) {}
}

/// A place expression, as a recursive call's receiver: probably of the impl's type, behind
/// references, smart pointers or `Option`s.
fn is_place(e: &Expr) -> bool {
    match e {
        Expr::Path(_) => common::lone_ident(e).is_some(),
        Expr::Field(f) => is_place(&f.base),
        Expr::Index(i) => is_place(&i.expr),
        Expr::Paren(p) => is_place(&p.expr),
        Expr::Reference(r) => is_place(&r.expr),
        Expr::Unary(u) => matches!(u.op, syn::UnOp::Deref(_)) && is_place(&u.expr),
        Expr::MethodCall(m) => {
            const UNWRAPS: [&str; 8] = [
                "as_ref",
                "as_mut",
                "as_deref",
                "as_deref_mut",
                "unwrap",
                "expect",
                "deref",
                "deref_mut",
            ];
            let unwrap = UNWRAPS.iter().any(|u| m.method == u)
                && m.turbofish.is_none()
                && m.args.len() <= usize::from(m.method == "expect");
            unwrap && is_place(&m.receiver)
        }
        _ => false,
    }
}

fn check_signature(sig: &syn::Signature) -> syn::Result<()> {
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
    Ok(())
}

/// The `impl Trait`s in an argument type, not counting those in another's bounds (the copy
/// makes a type parameter of each outermost one).
fn count_impl_traits(ty: &syn::Type) -> usize {
    struct Counter(usize);
    impl<'ast> Visit<'ast> for Counter {
        fn visit_type_impl_trait(&mut self, _: &'ast syn::TypeImplTrait) {
            self.0 += 1;
        }
    }
    let mut c = Counter(0);
    c.visit_type(ty);
    c.0
}

fn mentions_self_type(tokens: TokenStream) -> bool {
    tokens.into_iter().any(|tt| match tt {
        TokenTree::Ident(i) => i == "Self",
        TokenTree::Group(g) => mentions_self_type(g.stream()),
        _ => false,
    })
}
