//! Parsing `#[parallel]`: its arguments and the item it is on.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::parse::{Parse, ParseStream};
use syn::{Expr, Ident, Item, ItemFn, Path, Token};

use crate::common;

/// `#[parallel(cutoff = expr, crate = path)]`.
#[derive(Default)]
pub(super) struct Args {
    pub(super) cutoff: Option<Expr>,
    pub(super) krate: Option<Path>,
}

impl Parse for Args {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut args = Args::default();
        while !input.is_empty() {
            if common::peek_crate_arg(input) {
                let kw: Token![crate] = input.parse()?;
                input.parse::<Token![=]>()?;
                if args.krate.is_some() {
                    return Err(syn::Error::new_spanned(kw, "duplicate argument `crate`"));
                }
                args.krate = Some(common::parse_crate_value(input)?);
            } else {
                let name: Ident = input.parse().map_err(|e| {
                    syn::Error::new(
                        e.span(),
                        "expected an argument: `cutoff = <bool expr>` or `crate = path`",
                    )
                })?;
                if name != "cutoff" {
                    return Err(syn::Error::new_spanned(
                        &name,
                        format!(
                            "unknown argument `{name}`: `#[parallel]` takes \
                             `cutoff = <bool expr over the parameters>` and `crate = path`"
                        ),
                    ));
                }
                if args.cutoff.is_some() {
                    return Err(syn::Error::new_spanned(
                        &name,
                        "duplicate argument `cutoff`",
                    ));
                }
                if !input.peek(Token![=]) {
                    return Err(syn::Error::new_spanned(
                        &name,
                        "`cutoff` needs a value: `cutoff = <bool expr over the parameters>`",
                    ));
                }
                let eq = input.parse::<Token![=]>()?;
                if input.is_empty() || input.peek(Token![,]) {
                    return Err(syn::Error::new_spanned(
                        eq,
                        "`cutoff =` needs a value: `cutoff = <bool expr over the parameters>`",
                    ));
                }
                args.cutoff = Some(parse_cutoff(input)?);
            }
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        Ok(args)
    }
}

/// The value of `cutoff = ..`. An expression cut short (`cutoff = n <`) makes syn report the
/// end of the attribute's input, spanned on the whole attribute: the error is put on the
/// value's tokens instead.
fn parse_cutoff(input: ParseStream) -> syn::Result<Expr> {
    let error = match input.fork().parse::<Expr>() {
        Ok(_) => return input.parse(),
        Err(error) => error,
    };
    if !error.to_string().starts_with("unexpected end of input") {
        return Err(error);
    }
    let mut value = TokenStream::new();
    while !input.is_empty() && !input.peek(Token![,]) {
        value.extend([input.parse::<proc_macro2::TokenTree>()?]);
    }
    Err(syn::Error::new_spanned(
        value,
        format!("this `cutoff` value is incomplete ({error})"),
    ))
}

/// The annotated item, which must be a fn with a body.
pub(super) fn parse_fn(item: TokenStream) -> syn::Result<ItemFn> {
    if let Ok(f) = syn::parse2::<syn::TraitItemFn>(item.clone())
        && f.default.is_none()
    {
        return Err(syn::Error::new_spanned(
            &f.sig,
            "`#[parallel]` needs a fn with a body, and this declaration has none: in a \
             trait, put it on the method in each `impl` (or on a default body here)",
        ));
    }
    let item: Item = syn::parse2(item.clone()).map_err(|error| {
        // `#[parallel] let x = ..;` or on an expression: say where the attribute goes
        // rather than which item keywords syn expected.
        let msg = "`#[parallel]` cannot be used on a statement or an expression: put it on a \
                   recursive fn, or use `fork_join!` or `par_for!` inside a fn";
        match syn::parse2::<syn::Stmt>(item.clone()) {
            Ok(stmt) => syn::Error::new_spanned(stmt, msg),
            Err(_) => match syn::parse2::<Expr>(item) {
                Ok(expr) => syn::Error::new_spanned(expr, msg),
                Err(_) => error,
            },
        }
    })?;
    let what = |tokens: &dyn ToTokens, kind: &str| {
        let advice = if kind.starts_with("an impl") {
            "put it on the recursive method inside"
        } else {
            "put it on a recursive fn, or use `fork_join!` or `par_for!` inside a fn"
        };
        Err(syn::Error::new_spanned(
            tokens.to_token_stream(),
            format!("`#[parallel]` cannot be used on {kind}: {advice}"),
        ))
    };
    match item {
        Item::Fn(mut f) => {
            check_attributes(&f)?;
            // An inner attribute of the body (`#![allow(..)]`) applies to the fn: the
            // expansion writes the fn's attributes outside its body, so it takes the outer
            // form there.
            for attr in &mut f.attrs {
                attr.style = syn::AttrStyle::Outer;
            }
            Ok(f)
        }
        Item::Struct(s) => what(&s.struct_token, "a struct"),
        Item::Enum(e) => what(&e.enum_token, "an enum"),
        Item::Impl(i) => what(&i.impl_token, "an impl block"),
        Item::Trait(t) => what(&t.trait_token, "a trait"),
        Item::Mod(m) => what(&m.mod_token, "a module"),
        Item::Const(c) => what(&c.const_token, "a const"),
        Item::Static(s) => what(&s.static_token, "a static"),
        Item::Type(t) => what(&t.type_token, "a type alias"),
        Item::Use(u) => what(&u.use_token, "a `use`"),
        other => what(&other, "this item (a fn with a body is needed)"),
    }
}

/// Refuses attributes whose meaning the rewritten fn cannot keep: `#[track_caller]` (the body
/// runs inside closures on the pool's workers, where the caller's location is lost, and
/// closures cannot carry the attribute).
fn check_attributes(f: &ItemFn) -> syn::Result<()> {
    // A second `#[parallel]` would run on the wrapper this one makes, which has no recursive
    // call left, and report that instead of the duplicate.
    let repeated = f.attrs.iter().find(|a| {
        a.path()
            .segments
            .last()
            .is_some_and(|s| s.ident == "parallel")
    });
    if let Some(attr) = repeated {
        return Err(syn::Error::new_spanned(
            attr,
            "`#[parallel]` is applied to this fn twice: remove one",
        ));
    }
    match f.attrs.iter().find(|a| a.path().is_ident("track_caller")) {
        Some(attr) => Err(syn::Error::new_spanned(
            attr,
            "`#[parallel]` cannot keep `#[track_caller]`: the body runs inside closures on the \
             pool's workers, where `Location::caller()` and panics would name the fn's own lines, \
             not its caller's; remove one of the two attributes",
        )),
        None => Ok(()),
    }
}
