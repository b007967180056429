//! An operand's fork block (`{ let (__blitz_r0, ..) = fork; tail }`) and what moves into it:
//! the operations applied to it, whose values may borrow the results it binds.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{Block, Expr, Pat, Stmt};

use crate::common;

/// The tail expression of a fork block this rewriter made (`{ let (__blitz_r0, ..) = fork;
/// tail }`, possibly inside the `match`es that bind hoisted values, `{ match v { __blitz_v0 =>
/// .. } }`).
fn fork_block_tail(e: &mut Expr) -> Option<&mut Expr> {
    match e {
        Expr::Match(m) if is_hoisted_binding(m) => fork_block_tail(&mut m.arms[0].body),
        Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => {
            let hoisted = matches!(
                b.block.stmts.as_slice(),
                [Stmt::Expr(Expr::Match(m), None)] if is_hoisted_binding(m)
            );
            if hoisted {
                let Some(Stmt::Expr(Expr::Match(m), None)) = b.block.stmts.first_mut() else {
                    unreachable!("checked")
                };
                return fork_block_tail(&mut m.arms[0].body);
            }
            if !is_fork_block(&b.block) {
                return None;
            }
            match b.block.stmts.last_mut() {
                Some(Stmt::Expr(tail, None)) => Some(tail),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether `m` is a `match` that binds a hoisted value (see `bind_hoisted`).
fn is_hoisted_binding(m: &syn::ExprMatch) -> bool {
    m.arms.len() == 1
        && matches!(&m.arms[0].pat, Pat::Ident(p) if p.ident.to_string().starts_with("__blitz_v"))
}

/// Whether `block` is an operand's fork block: the fork's results bound, then the tail. A
/// user's block whose statements forked has statements of its own besides (rebinding the
/// results to the user's names, at least), whose names what is moved into it must not see.
pub(super) fn is_fork_block(block: &Block) -> bool {
    matches!(
        block.stmts.as_slice(),
        [Stmt::Local(l), Stmt::Expr(_, None)]
            if l.pat.to_token_stream().to_string().contains("__blitz_r")
    )
}

/// Moves a postfix operation applied to a fork block into the block, onto its tail:
/// `{ let (r0, r1) = fork; r0.iter().chain(r1.iter()) }.copied().collect()` becomes
/// `{ ..; r0.iter().chain(r1.iter()).copied().collect() }`. Sequentially the results were
/// temporaries alive to the end of the statement, so what is applied to a value borrowing them
/// (a method call, a field, an index, `?`) must run while the block's bindings still live.
///
/// So is a `match` or `if let` on a fork block: `match { let (r0, r1) = fork; (&r0, &r1) } {
/// arms }` becomes `{ ..; match (&r0, &r1) { arms } }`, as a scrutinee's temporaries live
/// to the end of its `match` or `if let`.
pub(super) fn sink_into_fork_block(e: &mut Expr) {
    let is_paren = matches!(e, Expr::Paren(_));
    let is_scrutinee = matches!(e, Expr::Match(_) | Expr::If(_));
    let base = match e {
        Expr::MethodCall(m) => &mut *m.receiver,
        Expr::Field(f) => &mut *f.base,
        Expr::Index(i) => &mut *i.expr,
        Expr::Try(t) => &mut *t.expr,
        Expr::Paren(p) => &mut *p.expr,
        // `*`, `!` and `-` have one operand: nothing else is evaluated around the fork.
        Expr::Unary(u) => &mut *u.expr,
        Expr::Match(m) => &mut *m.expr,
        Expr::If(i) => match first_condition(&mut i.cond) {
            Expr::Let(l) => &mut *l.expr,
            _ => return,
        },
        _ => return,
    };
    if fork_block_tail(base).is_none() {
        return;
    }
    let placeholder = || Expr::Verbatim(TokenStream::new());
    let mut block = std::mem::replace(base, placeholder());
    let tail = fork_block_tail(&mut block).expect("checked");
    let tail = std::mem::replace(tail, placeholder());
    if is_paren {
        // `({ ..; tail })`: the parentheses go, the block is an operand as it is.
        *fork_block_tail(&mut block).expect("checked") = tail;
        *e = block;
        return;
    }
    *base = if is_scrutinee {
        scrutinee(tail)
    } else {
        common::parenthesized_operand(tail)
    };
    let applied = std::mem::replace(e, placeholder());
    *fork_block_tail(&mut block).expect("checked") = applied;
    *e = block;
}

/// The first condition of an `if`: the leftmost operand of a let chain (`if let P = x && c`),
/// which nothing is evaluated before.
fn first_condition(cond: &mut Expr) -> &mut Expr {
    if matches!(cond, Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_))) {
        let Expr::Binary(b) = cond else {
            unreachable!("checked")
        };
        return first_condition(&mut b.left);
    }
    cond
}

/// `e` as the scrutinee of a `match` or `if let`: as it is, except a struct literal, whose `{`
/// would open the arms, and a lazy boolean operator, which an `if let` chain would split.
fn scrutinee(e: Expr) -> Expr {
    let needs_parens = matches!(&e, Expr::Struct(_))
        || matches!(&e, Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)));
    if !needs_parens {
        return e;
    }
    Expr::Paren(syn::ExprParen {
        attrs: Vec::new(),
        paren_token: syn::token::Paren::default(),
        expr: Box::new(e),
    })
}
