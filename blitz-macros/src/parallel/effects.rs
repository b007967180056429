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

use syn::visit::Visit;
use syn::{Expr, Item};

use super::dependencies::field_path;
use super::recursion::Callee;

/// The effects of the calls in some expressions (outside nested items and the fn's own
/// recursive calls).
#[derive(Default)]
pub(super) struct CallEffects {
    /// The places, as field paths from a binding (`c`, `node.left`), that the calls are given:
    /// fn call arguments without their `&`, method call receivers.
    places: Vec<Vec<String>>,
    /// A call may change state that no place names.
    global: bool,
}

impl CallEffects {
    /// The effects of the calls in `exprs`.
    pub(super) fn of<'e>(exprs: impl IntoIterator<Item = &'e Expr>, callee: &Callee) -> Self {
        let mut finder = EffectFinder {
            callee,
            out: CallEffects::default(),
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
