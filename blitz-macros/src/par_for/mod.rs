//! `par_for!(pat in source [, grain = g] [, reduce(op: var)]* => body)`.
//!
//! Parse the loop header and clauses, check the body (no control flow leaving it, no mutation
//! of captured variables other than reduce targets), then expand to `for_each_piece` or
//! `reduce_pieces` with a leaf that runs a plain sequential `for` loop over its piece; or, for
//! a chain of `std` iterator methods (`a.iter().zip(&b)`), to the same chain of parallel
//! iterator methods run by `for_each` or `fold`.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::visit::Visit;
use syn::{Expr, Ident, Pat, Path, Token};

use crate::common::{self, EscapeCheck, Ungroup};

mod expand;
mod sources;
#[cfg(test)]
mod tests;

use expand::{expand, expand_chain};
use sources::{Source, rewrite_source};

/// The parsed input of `par_for!`.
pub(crate) struct ParFor {
    krate: Option<Path>,
    pat: Pat,
    source: Expr,
    grain: Option<Expr>,
    reduces: Vec<Reduce>,
    body: Expr,
}

/// `reduce(op: target)`.
struct Reduce {
    op: Op,
    op_span: Span,
    target: Expr,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op {
    Add,
    Mul,
    Min,
    Max,
    BitAnd,
    BitOr,
    BitXor,
    WrappingAdd,
    WrappingMul,
    LogicalAnd,
    LogicalOr,
}

impl Op {
    fn marker(self) -> Ident {
        Ident::new(&format!("{self:?}"), Span::call_site())
    }
}

const USAGE: &str = "`par_for!(pattern in source => body)`";

impl Parse for ParFor {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut krate = None;
        if common::peek_crate_arg(input) {
            input.parse::<Token![crate]>()?;
            input.parse::<Token![=]>()?;
            krate = Some(common::parse_crate_value(input)?);
            input.parse::<Token![,]>()?;
        }
        if input.is_empty() {
            return Err(input.error(format!("expected a loop: {USAGE}")));
        }
        if input.peek(Token![=>]) || input.peek(Token![in]) {
            return Err(input.error(format!(
                "expected the loop's pattern and source before this: {USAGE}"
            )));
        }
        // As in a `for` loop, a top-level or-pattern needs no parentheses.
        let pat = Pat::parse_multi_with_leading_vert(input)?;
        if !input.peek(Token![in]) {
            return Err(input.error(format!("expected `in` after the loop pattern: {USAGE}")));
        }
        input.parse::<Token![in]>()?;
        // Like `for`: a `{` after the source starts the body, not a struct literal.
        let mut source = Expr::parse_without_eager_brace(input)?;
        Ungroup::expr(&mut source);
        let mut grain = None;
        let mut reduces: Vec<Reduce> = Vec::new();
        while input.peek(Token![,]) {
            input.parse::<Token![,]>()?;
            if input.peek(syn::token::Brace) {
                // `par_for!(x in v, { .. })`: a closure's habit, the body after a comma.
                return Err(input.error(format!(
                    "expected `=>` before the loop's body, not `,`: {USAGE}"
                )));
            }
            let clause: Ident = input.parse().map_err(|e| {
                syn::Error::new(
                    e.span(),
                    "expected a clause: `grain = n` or `reduce(op: var)`",
                )
            })?;
            if clause == "grain" {
                if grain.is_some() {
                    return Err(syn::Error::new_spanned(clause, "duplicate `grain` clause"));
                }
                input.parse::<Token![=]>()?;
                let mut g = input.parse()?;
                Ungroup::expr(&mut g);
                grain = Some(g);
            } else if clause == "reduce" {
                reduces.push(parse_reduce(input)?);
            } else {
                return Err(syn::Error::new_spanned(
                    &clause,
                    format!(
                        "unknown clause `{clause}`: `par_for!` takes `grain = n` and \
                         `reduce(op: var)`"
                    ),
                ));
            }
        }
        let clause_follows = input
            .fork()
            .parse::<Ident>()
            .is_ok_and(|i| i == "grain" || i == "reduce");
        if clause_follows {
            return Err(input.error("expected `,` before this clause"));
        }
        if !input.peek(Token![=>]) {
            return Err(input.error(format!("expected `=>` before the loop body: {USAGE}")));
        }
        let arrow = input.parse::<Token![=>]>()?;
        if input.is_empty() {
            return Err(syn::Error::new_spanned(
                arrow,
                format!("expected the loop body after `=>`: {USAGE}"),
            ));
        }
        let mut body = common::parse_reporting_end(input, arrow.spans[1])?;
        Ungroup::expr(&mut body);
        if input.peek(Token![,]) {
            input.parse::<Token![,]>()?;
        }
        if !input.is_empty() {
            return Err(input.error(
                "unexpected tokens after the loop body; wrap a multi-statement body in `{ .. }`",
            ));
        }
        Ok(ParFor {
            krate,
            pat,
            source,
            grain,
            reduces,
            body,
        })
    }
}

/// The reduce operators, as error messages list them.
const OPERATORS: &str =
    "`+`, `*`, `min`, `max`, `&`, `|`, `^`, `&&`, `||`, `wrapping_add`, `wrapping_mul`";

/// The operator named by the identifier `input` starts with, if it names one.
fn named_op(input: ParseStream) -> Option<Op> {
    let ident = input.fork().parse::<Ident>().ok()?;
    Some(match ident.to_string().as_str() {
        "min" => Op::Min,
        "max" => Op::Max,
        "wrapping_add" => Op::WrappingAdd,
        "wrapping_mul" => Op::WrappingMul,
        _ => return None,
    })
}

fn parse_reduce(input: ParseStream) -> syn::Result<Reduce> {
    let content;
    let parens = syn::parenthesized!(content in input);
    if content.is_empty() {
        return Err(syn::Error::new(
            parens.span.join(),
            "`reduce` needs an operator and a variable: `reduce(+: total)`",
        ));
    }
    let op_span = content.span();
    let op = if content.peek(Token![+]) {
        content.parse::<Token![+]>()?;
        Op::Add
    } else if content.peek(Token![*]) {
        content.parse::<Token![*]>()?;
        Op::Mul
    } else if content.peek(Token![&&]) {
        content.parse::<Token![&&]>()?;
        Op::LogicalAnd
    } else if content.peek(Token![||]) {
        content.parse::<Token![||]>()?;
        Op::LogicalOr
    } else if content.peek(Token![&]) {
        content.parse::<Token![&]>()?;
        Op::BitAnd
    } else if content.peek(Token![|]) {
        content.parse::<Token![|]>()?;
        Op::BitOr
    } else if content.peek(Token![^]) {
        content.parse::<Token![^]>()?;
        Op::BitXor
    } else if let Some(op) = named_op(&content) {
        content.parse::<Ident>()?;
        op
    } else {
        let tt: proc_macro2::TokenTree = content.parse()?;
        return Err(syn::Error::new_spanned(
            &tt,
            format!("unknown reduce operator `{tt}`: use one of {OPERATORS}"),
        ));
    };
    if !content.peek(Token![:]) {
        return Err(
            content.error("expected `:` and a variable after the operator: `reduce(+: total)`")
        );
    }
    content.parse::<Token![:]>()?;
    let mut target = content.parse()?;
    Ungroup::expr(&mut target);
    if !content.is_empty() {
        return Err(content.error("expected `)`: `reduce` takes one operator and one variable"));
    }
    Ok(Reduce {
        op,
        op_span,
        target,
    })
}

/// Parse, analyse, expand: the whole macro, for the unit tests (the proc macro goes through
/// [`par_for_or_error`]).
#[cfg(test)]
pub(crate) fn par_for(input: TokenStream) -> syn::Result<TokenStream> {
    analyse_and_expand(&syn::parse2(input)?)
}

fn analyse_and_expand(pf: &ParFor) -> syn::Result<TokenStream> {
    let targets = analyse(pf)?;
    let source = rewrite_source(pf)?;
    Ok(match source {
        Source::Runtime(source) => expand(pf, &targets, source),
        Source::Chain(chain) => expand_chain(pf, &targets, chain),
    })
}

/// Entry point for the proc macro: parse, analyse, expand; an error comes next to a use of
/// each outer label the body jumps to (see [`common::outer_label_uses`]).
pub(crate) fn par_for_or_error(input: TokenStream) -> TokenStream {
    match syn::parse2::<ParFor>(input) {
        Ok(pf) => analyse_and_expand(&pf).unwrap_or_else(|e| {
            let label_uses = common::outer_label_uses([&pf.body]);
            let error = e.into_compile_error();
            quote!({ #label_uses #error })
        }),
        Err(e) => e.into_compile_error(),
    }
}

/// Checks the reduce targets and the body; returns the targets' names.
fn analyse(pf: &ParFor) -> syn::Result<Vec<Ident>> {
    let mut targets: Vec<Ident> = Vec::new();
    for r in &pf.reduces {
        let ident = match common::lone_ident(&r.target) {
            Some(ident) => ident.clone(),
            None => {
                let other = &r.target;
                let shown = common::shown(other);
                return Err(syn::Error::new_spanned(
                    other,
                    format!(
                        "a `reduce` target must be a mutable local variable, not `{shown}`: \
                         reduce into a local (`let mut acc = ..;` before the loop, \
                         `reduce(op: acc)`), then assign it to `{shown}` after the loop"
                    ),
                ));
            }
        };
        if targets.contains(&ident) {
            return Err(syn::Error::new_spanned(
                &ident,
                format!("`{ident}` is already a `reduce` target of this loop"),
            ));
        }
        targets.push(ident);
    }
    common::check_escapes(
        &pf.body,
        &EscapeCheck {
            place: "a `par_for!` body",
            allow_top_continue: true,
            advice: "; use `continue` to skip an iteration, or a sequential loop if it must \
                     stop early",
            continue_advice: "; a `continue` without a label skips an iteration of the \
                              `par_for!` loop",
            try_advice: "; handle the error in the body, or run the loop as a parallel \
                         iterator that stops at the first error (`try_for_each`, or `map` and \
                         `collect::<Result<..>>()`) and apply `?` to its result",
        },
    )?;
    check_mutation(pf, &targets)?;
    Ok(targets)
}

/// Assigning to a captured variable from a body that runs on several threads at once is a
/// data race; rustc reports it as an `Fn` closure error, which does not say what to do. This
/// catches the common case (assignment to a plain name not bound in the body) with advice.
fn check_mutation(pf: &ParFor, targets: &[Ident]) -> syn::Result<()> {
    // The names bound where an assignment stands: the loop's pattern and `reduce` targets,
    // then every name a pattern binds, from where it stands to the end of its block. That is
    // as wide as Rust's scopes or wider, so a local is never taken for a captured binding; a
    // `let` in an inner block that has ended no longer hides the captured name.
    let mut outer = Vec::new();
    let mut pattern = Bound::default();
    pattern.visit_pat(&pf.pat);
    outer.extend(pattern.0);
    outer.extend(targets.iter().cloned());

    #[derive(Default)]
    struct Bound(Vec<Ident>);
    impl<'a> Visit<'a> for Bound {
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            self.0.push(p.ident.clone());
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }

    struct Assigns {
        /// The names bound in each enclosing block, outermost first.
        scopes: Vec<Vec<Ident>>,
        error: Option<syn::Error>,
    }
    impl Assigns {
        fn is_bound(&self, ident: &Ident) -> bool {
            self.scopes.iter().any(|scope| scope.contains(ident))
        }

        fn check(&mut self, left: &Expr, op: Option<&str>) {
            if self.error.is_some() {
                return;
            }
            // An element or a field of a captured binding (`out[i] = ..`): rustc's own error
            // ("cannot borrow as mutable ... in a `Fn` closure") does not say what to do.
            if let Expr::Index(_) | Expr::Field(_) = left
                && let Some(root) = captured_root(left)
                && !self.is_bound(&root)
            {
                let (what, advice) = match left {
                    Expr::Index(_) => (
                        "an element of",
                        format!(
                            "loop over its elements instead, each iteration getting its own: \
                             `par_for!((i, x) in {root}.iter_mut().enumerate() => *x = ..)`, \
                             or zip it with what it is computed from \
                             (`{root}.iter_mut().zip(&input)`)"
                        ),
                    ),
                    _ => (
                        "a field of",
                        "compute the value in a `reduce` target (a local) and assign the field \
                         after the loop"
                            .to_owned(),
                    ),
                };
                self.error = Some(syn::Error::new_spanned(
                    left,
                    format!(
                        "cannot assign to {what} `{root}` inside `par_for!`: the body runs on \
                         several threads at once and `{root}` is captured from outside the \
                         loop; {advice}"
                    ),
                ));
                return;
            }
            // Through a captured reference (`*counter += x` with `counter: &mut u64`).
            if let Expr::Unary(u) = left
                && matches!(u.op, syn::UnOp::Deref(_))
                && let Expr::Path(p) = &*u.expr
                && let Some(ident) = p.path.get_ident()
                && !self.is_bound(ident)
            {
                let op = op.unwrap_or("+");
                let store = if op.starts_with(|c: char| c.is_alphabetic()) {
                    format!("*{ident} = (*{ident}).{op}(acc);")
                } else {
                    format!("*{ident} {op}= acc;")
                };
                self.error = Some(syn::Error::new_spanned(
                    left,
                    format!(
                        "cannot assign through `{ident}` inside `par_for!`: the body runs on \
                         several threads at once and `{ident}` is captured from outside the \
                         loop; combine the values in a local `reduce` target and assign after \
                         the loop: `let mut acc = ..; par_for!(.., reduce({op}: acc) => ..); \
                         {store}`"
                    ),
                ));
                return;
            }
            let Expr::Path(p) = left else { return };
            let Some(ident) = p.path.get_ident() else {
                return;
            };
            if self.is_bound(ident) {
                return;
            }
            let op = op.unwrap_or("+");
            self.error = Some(syn::Error::new_spanned(
                left,
                format!(
                    "cannot assign to `{ident}` inside `par_for!`: the body runs on several \
                     threads at once and `{ident}` is captured from outside the loop; \
                     to combine values across iterations add `reduce({op}: {ident})` \
                     (operators: {OPERATORS})"
                ),
            ));
        }
    }
    impl<'a> Visit<'a> for Assigns {
        fn visit_block(&mut self, block: &'a syn::Block) {
            self.scopes.push(Vec::new());
            syn::visit::visit_block(self, block);
            self.scopes.pop();
        }
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            if let Some(scope) = self.scopes.last_mut() {
                scope.push(p.ident.clone());
            }
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_expr_assign(&mut self, e: &'a syn::ExprAssign) {
            // `x = x.max(..)`, `x = x.wrapping_add(..)`: advise that operator.
            let op = match &*e.right {
                Expr::MethodCall(call) => match call.method.to_string().as_str() {
                    "min" => Some("min"),
                    "max" => Some("max"),
                    "wrapping_add" => Some("wrapping_add"),
                    "wrapping_mul" => Some("wrapping_mul"),
                    _ => None,
                },
                _ => None,
            };
            for place in crate::common::assignees(&e.left) {
                self.check(place, op);
            }
            syn::visit::visit_expr_assign(self, e);
        }
        fn visit_expr_binary(&mut self, e: &'a syn::ExprBinary) {
            use syn::BinOp::*;
            let op = match e.op {
                AddAssign(_) => Some("+"),
                MulAssign(_) => Some("*"),
                BitAndAssign(_) => Some("&"),
                BitOrAssign(_) => Some("|"),
                BitXorAssign(_) => Some("^"),
                SubAssign(_) | DivAssign(_) | RemAssign(_) | ShlAssign(_) | ShrAssign(_) => {
                    Some("+")
                }
                _ => None,
            };
            if op.is_some() {
                self.check(&e.left, op);
            }
            syn::visit::visit_expr_binary(self, e);
        }
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut assigns = Assigns {
        scopes: vec![outer],
        error: None,
    };
    assigns.visit_expr(&pf.body);
    match assigns.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The binding an element or field place starts from: `out` of `out[i]`, `s.a.b`, `(*out)[i]`.
fn captured_root(e: &Expr) -> Option<Ident> {
    match e {
        Expr::Path(_) => common::lone_ident(e).cloned(),
        Expr::Index(i) => captured_root(&i.expr),
        Expr::Field(f) => captured_root(&f.base),
        Expr::Paren(p) => captured_root(&p.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => captured_root(&u.expr),
        _ => None,
    }
}

/// The path of the `blitz` crate in generated code (`crate = path`, or `::blitz`).
fn krate_of(pf: &ParFor) -> Path {
    pf.krate.clone().unwrap_or_else(common::default_crate)
}
