//! `#[parallel]`: turns sibling recursive calls of a fn into fork/joins.
//!
//! - parse (`args`): the attribute's arguments and the fn;
//! - analyse: the fn as a callee and its recursive calls (`recursion`), what statements read
//!   and change (`dependencies`), what calls between forked calls may change (`effects`), where its fast copy can live (`placement`);
//! - expand: the fork points (`rewrite`, its statement runs in `rewrite::statements`, the
//!   operations moved into an operand's fork block in `rewrite::fork_block`) and the
//!   wrapper and copy around them (`expand`).
//!
//! The fn becomes a wrapper that looks the worker up once and calls a copy of the fn that
//! takes a fork context as an extra parameter and passes it down the recursion, so a fork
//! costs a `Worker::join` and nothing else; where the worker says a fork cannot be recorded,
//! the subtree runs as plain recursion that only polls at its fork points, and on one-worker
//! pools and under `cutoff` as the sequential program (see the runtime's `ForkContext`).

mod args;
mod dependencies;
mod effects;
mod expand;
mod placement;
mod recursion;
mod rewrite;

use proc_macro2::TokenStream;
use syn::parse::{Parse, Parser};

use args::Args;
use recursion::Callee;

use crate::common;

/// Entry point: parse, analyse, expand.
pub(crate) fn parallel(args: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let args = Args::parse.parse2(args)?;
    let mut func = args::parse_fn(item)?;
    syn::visit_mut::VisitMut::visit_block_mut(&mut common::Ungroup, &mut func.block);
    let callee = Callee::of(&func)?;
    let placement = placement::choose(&func, callee.is_method);
    expand::expand(&args, &func, &callee, placement)
}

#[cfg(test)]
mod tests;
