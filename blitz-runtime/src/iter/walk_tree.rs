//! `walk_tree_prefix`, `walk_tree_postfix` and `walk_tree`: the nodes of a tree given by its
//! root and a function from a node to its children, as rayon's functions of those names.
//!
//! The walk gathers the nodes in order, then hands them to the iterator's adaptors. Near the
//! root it runs in parallel, a few subtrees per worker (more below a subtree that moved to
//! another worker, as in `split`); below that, each subtree is walked with an explicit stack,
//! so a tree as deep as a long list needs no deep recursion.

use super::{IntoParallelIterator, ParallelIterator, ProducerCallback};
use crate::join::with_worker;
use crate::registry::Worker;

/// How many subtrees per worker the parallel part of a walk aims for.
const SUBTREES_PER_WORKER: usize = 4;

/// The nodes of the tree under `root` in prefix order: each node before its children's
/// subtrees, which come in the order `children_of` gives them.
///
/// ```
/// use blitz::prelude::*;
/// // The tree of the numbers below 16 where the children of `n` are `2n + 1` and `2n + 2`.
/// let children = |&n: &u32| (2 * n + 1..=2 * n + 2).filter(|&c| c < 16);
/// let order: Vec<u32> = blitz::iter::walk_tree_prefix(0u32, children).collect();
/// assert_eq!(&order[..6], [0, 1, 3, 7, 15, 8]);
/// assert_eq!(order.len(), 16);
/// ```
pub fn walk_tree_prefix<S, B, I>(root: S, children_of: B) -> WalkTreePrefix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    WalkTreePrefix { root, children_of }
}

/// The nodes of the tree under `root` in postfix order: each node after its children's
/// subtrees, which come in the order `children_of` gives them.
///
/// ```
/// use blitz::prelude::*;
/// let children = |&n: &u32| (2 * n + 1..=2 * n + 2).filter(|&c| c < 7);
/// let order: Vec<u32> = blitz::iter::walk_tree_postfix(0u32, children).collect();
/// assert_eq!(order, [3, 4, 1, 5, 6, 2, 0]);
/// ```
pub fn walk_tree_postfix<S, B, I>(root: S, children_of: B) -> WalkTreePostfix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    WalkTreePostfix { root, children_of }
}

/// The nodes of the tree under `root`, in an order that is not promised (here: prefix).
///
/// ```
/// use blitz::prelude::*;
/// let children = |&n: &u64| (2 * n + 1..=2 * n + 2).filter(|&c| c < 1000);
/// assert_eq!(blitz::iter::walk_tree(0u64, children).sum::<u64>(), (0..1000).sum());
/// ```
pub fn walk_tree<S, B, I>(root: S, children_of: B) -> WalkTreePrefix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    walk_tree_prefix(root, children_of)
}

/// The iterator of [`walk_tree_prefix`] and [`walk_tree`].
#[derive(Debug, Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct WalkTreePrefix<S, B> {
    root: S,
    children_of: B,
}

/// The iterator of [`walk_tree_postfix`].
#[derive(Debug, Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct WalkTreePostfix<S, B> {
    root: S,
    children_of: B,
}

impl<S, B, I> ParallelIterator for WalkTreePrefix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    type Item = S;

    fn with_producer<CB: ProducerCallback<S>>(self, callback: CB) -> CB::Output {
        walk(self.root, &self.children_of, Order::Prefix)
            .into_par_iter()
            .with_producer(callback)
    }
}

impl<S, B, I> ParallelIterator for WalkTreePostfix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    type Item = S;

    fn with_producer<CB: ProducerCallback<S>>(self, callback: CB) -> CB::Output {
        walk(self.root, &self.children_of, Order::Postfix)
            .into_par_iter()
            .with_producer(callback)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Order {
    Prefix,
    Postfix,
}

/// The nodes under `root`, in `order`.
fn walk<S, B, I>(root: S, children_of: &B, order: Order) -> Vec<S>
where
    S: Send,
    B: Fn(&S) -> I + Sync,
    I: IntoIterator<Item = S>,
{
    with_worker(|worker| {
        let budget = SUBTREES_PER_WORKER * worker.num_threads();
        walk_subtree(worker, root, children_of, order, budget)
    })
}

/// The nodes under `node`, in `order`: its children's subtrees in parallel while `budget`
/// allows more than one piece of work, sequentially below.
fn walk_subtree<S, B, I>(
    worker: &Worker,
    node: S,
    children_of: &B,
    order: Order,
    budget: usize,
) -> Vec<S>
where
    S: Send,
    B: Fn(&S) -> I + Sync,
    I: IntoIterator<Item = S>,
{
    if budget <= 1 {
        return walk_sequential(node, children_of, order);
    }
    let children: Vec<S> = children_of(&node).into_iter().collect();
    // This node took one unit: a chain of only children runs out of budget too.
    let share = ((budget - 1) / children.len().max(1)).max(1);
    let mut below = walk_forest(worker, children, children_of, order, share);
    match order {
        Order::Prefix => {
            let mut nodes = Vec::with_capacity(below.len() + 1);
            nodes.push(node);
            nodes.append(&mut below);
            nodes
        }
        Order::Postfix => {
            below.push(node);
            below
        }
    }
}

/// The subtrees of `roots`, in order, each in `order`, split in halves with `join`; each
/// subtree gets `share` of the budget, and a half taken by another worker gets at least one
/// piece per worker again.
fn walk_forest<S, B, I>(
    worker: &Worker,
    mut roots: Vec<S>,
    children_of: &B,
    order: Order,
    share: usize,
) -> Vec<S>
where
    S: Send,
    B: Fn(&S) -> I + Sync,
    I: IntoIterator<Item = S>,
{
    if roots.len() <= 1 {
        return match roots.pop() {
            Some(root) => walk_subtree(worker, root, children_of, order, share),
            None => Vec::new(),
        };
    }
    let right = roots.split_off(roots.len() / 2);
    let forker = worker.index();
    let (mut left, mut right) = worker.join(
        |w| walk_forest(w, roots, children_of, order, share),
        |w| {
            let share = if w.index() == forker {
                share
            } else {
                share.max(w.num_threads())
            };
            walk_forest(w, right, children_of, order, share)
        },
    );
    left.append(&mut right);
    left
}

/// The nodes under `root`, in `order`, walked with an explicit stack.
fn walk_sequential<S, B, I>(root: S, children_of: &B, order: Order) -> Vec<S>
where
    B: Fn(&S) -> I,
    I: IntoIterator<Item = S>,
{
    let mut nodes = Vec::new();
    let mut stack = vec![root];
    let mut children = Vec::new();
    while let Some(node) = stack.pop() {
        children.extend(children_of(&node));
        nodes.push(node);
        match order {
            // Popped first to last: the first child's subtree comes next.
            Order::Prefix => stack.extend(children.drain(..).rev()),
            // The mirror image of a prefix walk, reversed at the end: a postfix walk.
            Order::Postfix => stack.append(&mut children),
        }
    }
    if order == Order::Postfix {
        nodes.reverse();
    }
    nodes
}
