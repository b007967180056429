//! What calls that run between forked calls may change without saying so: the places they
//! are given, and state no place names.
//!
//! Sequentially, `f(a) + bump(c) + f(b)` runs `bump(c)` after `f(a)` and before `f(b)`;
//! forked, `f(b)` runs beside `f(a)` and `bump(c)` after both. Through a shared reference an
//! atomic, a cell or a mutex still changes, so a macro that cannot see types must assume that
//! a call changes what it is given: a fn call its arguments, a method call its receiver. And
//! a fn called with nothing (`tick()`), or a method of a static (`COUNTER.fetch_add(1, ..)`,
//! `LOG.lock()`), may change global state any call reads. A forked call that names a place
//! such a call may change, or any forked call beside a global effect, keeps its order against
//! it: it is not moved past it.
//!
//! A binding may refer into another (`let hits = &ctx.hits;`, `let log = m;`), so a call
//! given the one changes what the other names: each binding of the fn's body stands also for
//! the bindings its value may borrow from (see [`aliases`]).

use std::collections::{HashMap, HashSet};

use syn::visit::Visit;
use syn::{Expr, Item};

use super::dependencies::field_path;
use super::recursion::Callee;
use crate::common::pat_bindings;

/// The effects of the calls in some expressions (outside nested items and the fn's own
/// recursive calls).
#[derive(Default)]
pub(super) struct CallEffects {
    /// The places, as field paths from a binding (`c`, `node.left`), that the calls are given:
    /// fn call arguments without their `&`, method call receivers.
    places: Vec<Vec<String>>,
    /// A call may change state that no place names.
    global: bool,
    /// The fn's [`aliases`].
    aliases: HashMap<String, HashSet<String>>,
}

impl CallEffects {
    /// The effects of the calls in `exprs`.
    pub(super) fn of<'e>(exprs: impl IntoIterator<Item = &'e Expr>, callee: &Callee) -> Self {
        let mut finder = EffectFinder {
            callee,
            out: CallEffects {
                aliases: callee.aliases.clone(),
                ..CallEffects::default()
            },
        };
        for e in exprs {
            finder.visit_expr(e);
        }
        finder.out
    }

    /// Whether `e` could see or make a change these calls make: it names a place that
    /// overlaps one of theirs (one path a prefix of the other), or they have a global effect.
    pub(super) fn reach(&self, e: &Expr) -> bool {
        if self.global {
            return true;
        }
        if self.places.is_empty() {
            return false;
        }
        let mut names = PlaceNames(Vec::new());
        names.visit_expr(e);
        let overlap = |a: &[String], b: &[String]| a.iter().zip(b).all(|(x, y)| x == y);
        names
            .0
            .iter()
            .any(|named| self.places.iter().any(|changed| overlap(named, changed)))
            || names.0.iter().any(|named| {
                // A binding that may borrow from a changed place's root, or be borrowed by it.
                let root = &named[0];
                self.places.iter().any(|changed| {
                    self.aliases
                        .get(root)
                        .is_some_and(|a| a.contains(&changed[0]))
                        || self
                            .aliases
                            .get(&changed[0])
                            .is_some_and(|a| a.contains(root))
                })
            })
    }
}

struct EffectFinder<'a> {
    callee: &'a Callee,
    out: CallEffects,
}

impl EffectFinder<'_> {
    fn given(&mut self, e: &Expr) {
        let e = match e {
            Expr::Reference(r) => &*r.expr,
            e => e,
        };
        if let Some(path) = field_path(e) {
            self.out.places.push(path);
        }
    }
}

impl<'ast> Visit<'ast> for EffectFinder<'_> {
    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if !self.callee.is_call(&Expr::Call(c.clone())) {
            c.args.iter().for_each(|a| self.given(a));
            if c.args.is_empty() && reads_global_state(&c.func) {
                self.out.global = true;
            }
        }
        syn::visit::visit_expr_call(self, c);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        if !self.callee.is_call(&Expr::MethodCall(m.clone())) {
            self.given(&m.receiver);
            if is_static(&m.receiver) {
                self.out.global = true;
            }
        }
        syn::visit::visit_expr_method_call(self, m);
    }

    fn visit_item(&mut self, _: &'ast Item) {}
}

/// Whether a call of `func` with no arguments may read or change global state: a fn named in
/// lower case (`tick()`, `rand::random()`, `Instant::now()`), other than a constructor
/// (`Vec::new()`, `Default::default()`). A tuple struct or variant (`Unit()`) is not.
fn reads_global_state(func: &Expr) -> bool {
    let Expr::Path(p) = func else {
        // A closure or a fn pointer in a variable: it may do anything.
        return true;
    };
    let Some(last) = p.path.segments.last() else {
        return false;
    };
    let name = last.ident.to_string();
    let constructor = matches!(name.as_str(), "new" | "default")
        || name.starts_with("new_")
        || name.starts_with("with_")
        || name.starts_with(char::is_uppercase);
    !constructor
}

/// Whether `e` names a static (or a const): a path whose last segment is in upper case, as
/// Rust spells them (`COUNTER`, `crate::LOG`).
fn is_static(e: &Expr) -> bool {
    let Expr::Path(p) = e else {
        return false;
    };
    p.path.segments.last().is_some_and(|s| {
        let name = s.ident.to_string();
        name.chars().any(|c| c.is_ascii_uppercase())
            && !name.chars().any(|c| c.is_ascii_lowercase())
    })
}

/// The bindings of a fn body whose value may borrow from another binding, each with every
/// binding it may reach that way (transitively): `let hits = &ctx.hits;` and `let log = m;`
/// reach `ctx` and `m`, as do the bindings of `let Ctx { hits, .. } = ctx;`,
/// `for h in &ctx.counters`, `if let Some(h) = ctx.get(0)` and `match`. A value computed by
/// an operator, a literal, a macro or the fn's own recursive call borrows from nothing; a
/// call may borrow from what it is given (`Arc::clone(&c)`, `wrap(c)`), a method call from
/// its receiver.
pub(super) fn aliases(block: &syn::Block, callee: &Callee) -> HashMap<String, HashSet<String>> {
    struct Finder<'a> {
        callee: &'a Callee,
        direct: HashMap<String, HashSet<String>>,
    }
    impl Finder<'_> {
        fn bind(&mut self, pat: &syn::Pat, value: &Expr) {
            let mut roots = HashSet::new();
            self.value_roots(value, &mut roots);
            if roots.is_empty() {
                return;
            }
            for binding in pat_bindings(pat) {
                self.direct
                    .entry(binding.ident.to_string())
                    .or_default()
                    .extend(roots.iter().cloned());
            }
        }

        /// Whether a binding named by itself (`wrap(c)`, `let log = m;`) may hand out a
        /// borrow: a reference parameter, `self`, or a binding that borrows already. Other
        /// bindings (`Vec::with_capacity(mid)`) are taken to be copied or moved.
        fn lends(&self, name: &str) -> bool {
            name == "self"
                || self.callee.shared_params.contains(name)
                || self.callee.exclusive_params.contains(name)
                || self.direct.contains_key(name)
        }

        /// The bindings `value` may borrow from.
        fn value_roots(&self, value: &Expr, out: &mut HashSet<String>) {
            let arg = |e: &Expr, out: &mut HashSet<String>| match e {
                Expr::Path(_) | Expr::Field(_) | Expr::Index(_) | Expr::Reference(_) => {
                    self.value_roots(e, out)
                }
                _ => {}
            };
            match value {
                Expr::Path(p) if p.qself.is_none() => {
                    if let Some(ident) = p.path.get_ident()
                        && self.lends(&ident.to_string())
                    {
                        out.insert(ident.to_string());
                    }
                }
                Expr::Field(f) => self.place_root(&f.base, out),
                Expr::Index(i) => self.place_root(&i.expr, out),
                Expr::Paren(p) => self.value_roots(&p.expr, out),
                Expr::Group(g) => self.value_roots(&g.expr, out),
                Expr::Reference(r) => self.place_root(&r.expr, out),
                Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                    self.place_root(&u.expr, out)
                }
                Expr::Try(t) => self.value_roots(&t.expr, out),
                Expr::Tuple(t) => t.elems.iter().for_each(|e| self.value_roots(e, out)),
                Expr::Array(a) => a.elems.iter().for_each(|e| self.value_roots(e, out)),
                Expr::Struct(s) => s.fields.iter().for_each(|f| self.value_roots(&f.expr, out)),
                // The fn's own recursive calls return values of their own.
                e if self.callee.is_call(e) => {}
                Expr::MethodCall(m) => {
                    self.place_root(&m.receiver, out);
                    m.args.iter().for_each(|a| arg(a, out));
                }
                Expr::Call(c) => c.args.iter().for_each(|a| arg(a, out)),
                Expr::Block(b) => self.tail_roots(&b.block, out),
                Expr::Unsafe(u) => self.tail_roots(&u.block, out),
                Expr::If(i) => {
                    self.tail_roots(&i.then_branch, out);
                    if let Some((_, e)) = &i.else_branch {
                        self.value_roots(e, out);
                    }
                }
                Expr::Match(m) => m.arms.iter().for_each(|a| self.value_roots(&a.body, out)),
                _ => {}
            }
        }

        /// The binding a place borrowed from belongs to (`ctx` for `&ctx.hits`, `m` for
        /// `m.lock()`), whatever its type; a computed base is a value's.
        fn place_root(&self, place: &Expr, out: &mut HashSet<String>) {
            match place {
                Expr::Path(p) if p.qself.is_none() => {
                    if let Some(ident) = p.path.get_ident() {
                        out.insert(ident.to_string());
                    }
                }
                Expr::Field(f) => self.place_root(&f.base, out),
                Expr::Index(i) => self.place_root(&i.expr, out),
                Expr::Paren(p) => self.place_root(&p.expr, out),
                Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                    self.place_root(&u.expr, out)
                }
                value => self.value_roots(value, out),
            }
        }

        fn tail_roots(&self, block: &syn::Block, out: &mut HashSet<String>) {
            if let Some(syn::Stmt::Expr(e, None)) = block.stmts.last() {
                self.value_roots(e, out);
            }
        }
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_local(&mut self, l: &'ast syn::Local) {
            if let Some(init) = &l.init {
                self.bind(&l.pat, &init.expr);
            }
            syn::visit::visit_local(self, l);
        }
        fn visit_expr_let(&mut self, l: &'ast syn::ExprLet) {
            self.bind(&l.pat, &l.expr);
            syn::visit::visit_expr_let(self, l);
        }
        fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
            self.bind(&f.pat, &f.expr);
            syn::visit::visit_expr_for_loop(self, f);
        }
        fn visit_expr_match(&mut self, m: &'ast syn::ExprMatch) {
            for arm in &m.arms {
                self.bind(&arm.pat, &m.expr);
            }
            syn::visit::visit_expr_match(self, m);
        }
        fn visit_item(&mut self, _: &'ast Item) {}
    }
    let mut finder = Finder {
        callee,
        direct: HashMap::new(),
    };
    finder.visit_block(block);
    // Each binding reaches what the bindings it reaches reach.
    let direct = finder.direct;
    direct
        .keys()
        .map(|name| {
            let mut reached = HashSet::new();
            let mut todo = vec![name.clone()];
            while let Some(next) = todo.pop() {
                for root in direct.get(&next).into_iter().flatten() {
                    if root != name && reached.insert(root.clone()) {
                        todo.push(root.clone());
                    }
                }
            }
            (name.clone(), reached)
        })
        .collect()
}

/// Every place an expression names, as a field path (outside nested items).
struct PlaceNames(Vec<Vec<String>>);

impl<'ast> Visit<'ast> for PlaceNames {
    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Path(_) | Expr::Field(_) => {
                if let Some(path) = field_path(e) {
                    self.0.push(path);
                    return;
                }
            }
            Expr::Index(i) => {
                if let Some(path) = field_path(e) {
                    self.0.push(path);
                }
                self.visit_expr(&i.index);
                return;
            }
            _ => {}
        }
        syn::visit::visit_expr(self, e);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        // A macro's tokens are not parsed: each identifier in them may name a binding.
        for tt in mac.tokens.clone() {
            if let proc_macro2::TokenTree::Ident(i) = tt {
                self.0.push(vec![i.to_string()]);
            }
        }
    }

    fn visit_item(&mut self, _: &'ast Item) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn callee() -> Callee {
        let f: syn::ItemFn = syn::parse2(quote! {
            fn f(d: u32, c: &AtomicU64) -> u64 { f(d - 1, c) + f(d - 1, c) }
        })
        .unwrap();
        Callee::of(&f).unwrap()
    }

    fn reach(between: TokenStream2, call: TokenStream2) -> bool {
        let callee = callee();
        let between: Expr = syn::parse2(between).unwrap();
        let call: Expr = syn::parse2(call).unwrap();
        CallEffects::of([&between], &callee).reach(&call)
    }

    type TokenStream2 = proc_macro2::TokenStream;

    #[test]
    fn a_call_changes_what_it_is_given() {
        assert!(reach(quote!(bump(c)), quote!(f(d - 1, c))));
        assert!(reach(quote!(bump(&c)), quote!(f(d - 1, &c))));
        assert!(reach(quote!(c.fetch_add(10, SeqCst)), quote!(f(d - 1, c))));
        assert!(reach(quote!(note(&node)), quote!(f(&node.left))));
        assert!(!reach(quote!(v.push(x.clone())), quote!(f(r))));
        assert!(!reach(
            quote!(v.push(node.val.clone())),
            quote!(f(&node.right))
        ));
        assert!(!reach(quote!(cost(k)), quote!(f(d - 1, c))));
        // The fn's own recursive calls are forked, not effects between.
        assert!(!reach(quote!(f(d - 2, c)), quote!(f(d - 1, c))));
    }

    /// The aliases of the body of `fn f(d: u32, c: &AtomicU64, ctx: &Ctx, n: usize)`.
    fn aliases_of(body: TokenStream2) -> HashMap<String, HashSet<String>> {
        let f: syn::ItemFn = syn::parse2(quote! {
            fn f(d: u32, c: &AtomicU64, ctx: &Ctx, n: usize) -> u64 { #body }
        })
        .unwrap();
        Callee::of(&f).unwrap().aliases
    }

    fn reached(aliases: &HashMap<String, HashSet<String>>, name: &str) -> Vec<String> {
        let mut v: Vec<String> = aliases.get(name).into_iter().flatten().cloned().collect();
        v.sort();
        v
    }

    #[test]
    fn bindings_that_borrow_from_others_are_aliases() {
        let a = aliases_of(quote! {
            let hits = &ctx.hits;
            let same = c;
            let guard = ctx.log.lock().unwrap();
            let Ctx { total, .. } = ctx;
            let shared = Arc::clone(&ctx.shared);
            let wrapped = wrap(same);
            let picked = if d > 0 { &ctx.a } else { &ctx.b };
            for h in &ctx.counters { h.fetch_add(1, SeqCst); }
            if let Some(first) = ctx.items.first() { first.touch(); }
            f(d - 1, c, ctx, n) + f(d - 1, c, ctx, n)
        });
        for name in ["hits", "guard", "total", "shared", "picked", "h", "first"] {
            assert_eq!(reached(&a, name), ["ctx"], "{name}");
        }
        assert_eq!(reached(&a, "same"), ["c"]);
        // Through `same`, transitively.
        assert_eq!(reached(&a, "wrapped"), ["c", "same"]);
    }

    #[test]
    fn computed_values_and_recursive_results_borrow_from_nothing() {
        let a = aliases_of(quote! {
            let m = n - 1;
            let k = n;
            let buf = Vec::with_capacity(n);
            let text = format!("{ctx:?}");
            let left = f(d - 1, c, ctx, n);
            let big = d > 3;
            left + f(d - 1, c, ctx, m)
        });
        for name in ["m", "k", "buf", "text", "left", "big"] {
            assert!(
                reached(&a, name).is_empty(),
                "{name}: {:?}",
                reached(&a, name)
            );
        }
    }

    #[test]
    fn a_call_on_an_alias_reaches_calls_given_what_it_borrows_from() {
        let f: syn::ItemFn = syn::parse2(quote! {
            fn f(d: u32, ctx: &Ctx, n: usize) -> u64 {
                let hits = &ctx.hits;
                let buf = Vec::with_capacity(n);
                f(d - 1, ctx, n) + f(d - 1, ctx, n)
            }
        })
        .unwrap();
        let callee = Callee::of(&f).unwrap();
        let reach = |between: TokenStream2, call: TokenStream2| {
            let between: Expr = syn::parse2(between).unwrap();
            let call: Expr = syn::parse2(call).unwrap();
            CallEffects::of([&between], &callee).reach(&call)
        };
        assert!(reach(
            quote!(hits.fetch_add(1, SeqCst)),
            quote!(f(d - 1, ctx, n))
        ));
        assert!(reach(quote!(bump(hits)), quote!(f(d - 1, ctx, n))));
        // And the other way: a call given the original reaches a call given the alias.
        assert!(reach(quote!(bump(ctx)), quote!(f(d - 1, hits, n))));
        assert!(!reach(quote!(buf.push(1)), quote!(f(d - 1, ctx, n))));
    }

    #[test]
    fn calls_with_nothing_and_statics_reach_every_call() {
        assert!(reach(quote!(tick()), quote!(f(d - 1, k))));
        assert!(reach(
            quote!(COUNTER.fetch_add(1, SeqCst)),
            quote!(f(d - 1, k))
        ));
        assert!(reach(quote!(crate::LOG.lock()), quote!(f(d - 1, k))));
        assert!(!reach(quote!(Vec::new()), quote!(f(d - 1, k))));
        assert!(!reach(
            quote!(String::with_capacity(8)),
            quote!(f(d - 1, k))
        ));
        assert!(!reach(quote!(Default::default()), quote!(f(d - 1, k))));
    }
}
