//! The shapes: a sequential reference for each and the versions blitz, rayon and chili run.
//! Every leaf sleeps (see [`work`]), so the shapes measure how the schedulers spread leaves.

use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::sleep;
use std::time::Duration;

use rayon::prelude::*;

const FIB_N: u64 = 14;
/// Leaves of the chain, the trees and the flat loops.
const LEAVES: u64 = 512;
const TERNARY_DEPTH: u32 = 6;
const QUATERNARY_DEPTH: u32 = 4;
const UNEVEN_ITEMS: u64 = 256;
/// Depth of the recursion whose leaves each run a loop of [`NESTED_INNER`] items.
const NESTED_DEPTH: u32 = 3;
const NESTED_INNER: u64 = 64;

// ---------------------------------------------------------------- the leaf

/// One leaf: sleeps for `leaf`, returns `value`.
fn work(leaf: Duration, value: u64) -> u64 {
    sleep(leaf);
    value
}

// ---------------------------------------------------------------- 1. fib

fn fib_seq(n: u64, leaf: Duration) -> u64 {
    if n < 2 {
        sleep(leaf);
        return n;
    }
    fib_seq(n - 1, leaf) + fib_seq(n - 2, leaf)
}

#[blitz::parallel]
fn fib_parallel(n: u64, leaf: Duration) -> u64 {
    if n < 2 {
        sleep(leaf);
        return n;
    }
    fib_parallel(n - 1, leaf) + fib_parallel(n - 2, leaf)
}

fn fib_rayon(n: u64, leaf: Duration) -> u64 {
    if n < 2 {
        sleep(leaf);
        return n;
    }
    let (a, b) = rayon::join(|| fib_rayon(n - 1, leaf), || fib_rayon(n - 2, leaf));
    a + b
}

fn fib_chili(s: &mut chili::Scope<'_>, n: u64, leaf: Duration) -> u64 {
    if n < 2 {
        sleep(leaf);
        return n;
    }
    let (a, b) = s.join(|s| fib_chili(s, n - 1, leaf), |s| fib_chili(s, n - 2, leaf));
    a + b
}

// ---------------------------------------------------------------- 2. chain

/// `n` leaves in a chain: each level forks the rest of the chain and one leaf.
fn chain_seq(n: u64, leaf: Duration) -> u64 {
    if n == 1 {
        return work(leaf, 0);
    }
    chain_seq(n - 1, leaf) + work(leaf, n - 1)
}

fn chain_blitz(w: &blitz::Worker, n: u64, leaf: Duration) -> u64 {
    if n == 1 {
        return work(leaf, 0);
    }
    let (a, b) = w.join(|w| chain_blitz(w, n - 1, leaf), |_| work(leaf, n - 1));
    a + b
}

fn chain_rayon(n: u64, leaf: Duration) -> u64 {
    if n == 1 {
        return work(leaf, 0);
    }
    let (a, b) = rayon::join(|| chain_rayon(n - 1, leaf), || work(leaf, n - 1));
    a + b
}

fn chain_chili(s: &mut chili::Scope<'_>, n: u64, leaf: Duration) -> u64 {
    if n == 1 {
        return work(leaf, 0);
    }
    let (a, b) = s.join(|s| chain_chili(s, n - 1, leaf), |_| work(leaf, n - 1));
    a + b
}

// ---------------------------------------------------------------- 3, 4, 8. binary trees

/// Where a tree over `lo..hi` splits: `1/div` of the way (2: balanced, 4: unbalanced).
fn split(lo: u64, hi: u64, div: u64) -> u64 {
    lo + ((hi - lo) / div).max(1)
}

/// A binary tree over the leaves `lo..hi`; leaf `i` returns `i`.
fn tree_seq(lo: u64, hi: u64, div: u64, leaf: Duration) -> u64 {
    if hi - lo == 1 {
        return work(leaf, lo);
    }
    let mid = split(lo, hi, div);
    tree_seq(lo, mid, div, leaf) + tree_seq(mid, hi, div, leaf)
}

#[blitz::parallel]
fn tree_parallel(lo: u64, hi: u64, div: u64, leaf: Duration) -> u64 {
    if hi - lo == 1 {
        return work(leaf, lo);
    }
    let mid = split(lo, hi, div);
    tree_parallel(lo, mid, div, leaf) + tree_parallel(mid, hi, div, leaf)
}

/// Through the rayon-compatible `blitz::join`, which looks the worker up at every call.
fn tree_join(lo: u64, hi: u64, div: u64, leaf: Duration) -> u64 {
    if hi - lo == 1 {
        return work(leaf, lo);
    }
    let mid = split(lo, hi, div);
    let (a, b) = blitz::join(
        || tree_join(lo, mid, div, leaf),
        || tree_join(mid, hi, div, leaf),
    );
    a + b
}

fn tree_rayon(lo: u64, hi: u64, div: u64, leaf: Duration) -> u64 {
    if hi - lo == 1 {
        return work(leaf, lo);
    }
    let mid = split(lo, hi, div);
    let (a, b) = rayon::join(
        || tree_rayon(lo, mid, div, leaf),
        || tree_rayon(mid, hi, div, leaf),
    );
    a + b
}

fn tree_chili(s: &mut chili::Scope<'_>, lo: u64, hi: u64, div: u64, leaf: Duration) -> u64 {
    if hi - lo == 1 {
        return work(leaf, lo);
    }
    let mid = split(lo, hi, div);
    let (a, b) = s.join(
        |s| tree_chili(s, lo, mid, div, leaf),
        |s| tree_chili(s, mid, hi, div, leaf),
    );
    a + b
}

// ---------------------------------------------------------------- 5, 7. flat loops

/// The sequential loop of both flat-loop shapes: the sum of the item indices.
fn loop_seq(leaf: Duration) -> u64 {
    (0..LEAVES).map(|i| work(leaf, i)).sum()
}

fn loop_blitz(leaf: Duration) -> u64 {
    let sum = AtomicU64::new(0);
    blitz::par_for!(i in 0..LEAVES => {
        sleep(leaf);
        sum.fetch_add(i, Ordering::Relaxed);
    });
    sum.into_inner()
}

fn loop_rayon(leaf: Duration) -> u64 {
    let sum = AtomicU64::new(0);
    (0..LEAVES).into_par_iter().for_each(|i| {
        sleep(leaf);
        sum.fetch_add(i, Ordering::Relaxed);
    });
    sum.into_inner()
}

fn reduce_blitz(leaf: Duration) -> u64 {
    let mut total = 0u64;
    blitz::par_for!(i in 0..LEAVES, reduce(+: total) => {
        sleep(leaf);
        total += i;
    });
    total
}

fn reduce_rayon(leaf: Duration) -> u64 {
    (0..LEAVES).into_par_iter().map(|i| work(leaf, i)).sum()
}

// ---------------------------------------------------------------- 6, 11. N-way forks

/// A ternary tree of depth `d`; the leaves are numbered left to right from `base * 3^d`.
fn tri_seq(d: u32, base: u64, leaf: Duration) -> u64 {
    if d == 0 {
        return work(leaf, base);
    }
    (0..3).map(|k| tri_seq(d - 1, 3 * base + k, leaf)).sum()
}

fn tri_blitz(d: u32, base: u64, leaf: Duration) -> u64 {
    if d == 0 {
        return work(leaf, base);
    }
    let (a, b, c) = blitz::fork_join!(
        tri_blitz(d - 1, 3 * base, leaf),
        tri_blitz(d - 1, 3 * base + 1, leaf),
        tri_blitz(d - 1, 3 * base + 2, leaf),
    );
    a + b + c
}

fn tri_rayon(d: u32, base: u64, leaf: Duration) -> u64 {
    if d == 0 {
        return work(leaf, base);
    }
    let (a, (b, c)) = rayon::join(
        || tri_rayon(d - 1, 3 * base, leaf),
        || {
            rayon::join(
                || tri_rayon(d - 1, 3 * base + 1, leaf),
                || tri_rayon(d - 1, 3 * base + 2, leaf),
            )
        },
    );
    a + b + c
}

fn tri_chili(s: &mut chili::Scope<'_>, d: u32, base: u64, leaf: Duration) -> u64 {
    if d == 0 {
        return work(leaf, base);
    }
    let (a, (b, c)) = s.join(
        |s| tri_chili(s, d - 1, 3 * base, leaf),
        |s| {
            s.join(
                |s| tri_chili(s, d - 1, 3 * base + 1, leaf),
                |s| tri_chili(s, d - 1, 3 * base + 2, leaf),
            )
        },
    );
    a + b + c
}

/// A 4-ary tree of depth `d`, numbered like [`tri_seq`]'s.
fn quad_seq(d: u32, base: u64, leaf: Duration) -> u64 {
    if d == 0 {
        return work(leaf, base);
    }
    (0..4).map(|k| quad_seq(d - 1, 4 * base + k, leaf)).sum()
}

fn quad_blitz(d: u32, base: u64, leaf: Duration) -> u64 {
    if d == 0 {
        return work(leaf, base);
    }
    let (a, b, c, e) = blitz::fork_join!(
        quad_blitz(d - 1, 4 * base, leaf),
        quad_blitz(d - 1, 4 * base + 1, leaf),
        quad_blitz(d - 1, 4 * base + 2, leaf),
        quad_blitz(d - 1, 4 * base + 3, leaf),
    );
    a + b + c + e
}

fn quad_rayon(d: u32, base: u64, leaf: Duration) -> u64 {
    if d == 0 {
        return work(leaf, base);
    }
    let child = |k| move || quad_rayon(d - 1, 4 * base + k, leaf);
    let ((a, b), (c, e)) = rayon::join(
        || rayon::join(child(0), child(1)),
        || rayon::join(child(2), child(3)),
    );
    a + b + c + e
}

/// The 4-ary tree with each node's forks written by hand as right-nested joins,
/// `join(a, join(b, join(c, d)))`: the last child starts only after three steals.
fn quad_chain_blitz(w: &blitz::Worker, d: u32, base: u64, leaf: Duration) -> u64 {
    if d == 0 {
        return work(leaf, base);
    }
    let child = |k| move |w: &blitz::Worker| quad_chain_blitz(w, d - 1, 4 * base + k, leaf);
    let (a, (b, (c, e))) = w.join(child(0), |w| {
        w.join(child(1), |w| w.join(child(2), child(3)))
    });
    a + b + c + e
}

fn quad_chain_rayon(d: u32, base: u64, leaf: Duration) -> u64 {
    if d == 0 {
        return work(leaf, base);
    }
    let child = |k| move || quad_chain_rayon(d - 1, 4 * base + k, leaf);
    let (a, (b, (c, e))) = rayon::join(child(0), || {
        rayon::join(child(1), || rayon::join(child(2), child(3)))
    });
    a + b + c + e
}

fn quad_chain_chili(s: &mut chili::Scope<'_>, d: u32, base: u64, leaf: Duration) -> u64 {
    if d == 0 {
        return work(leaf, base);
    }
    let child = |k| move |s: &mut chili::Scope<'_>| quad_chain_chili(s, d - 1, 4 * base + k, leaf);
    let (a, (b, (c, e))) = s.join(child(0), |s| {
        s.join(child(1), |s| s.join(child(2), child(3)))
    });
    a + b + c + e
}

fn quad_chili(s: &mut chili::Scope<'_>, d: u32, base: u64, leaf: Duration) -> u64 {
    if d == 0 {
        return work(leaf, base);
    }
    let child = |k| move |s: &mut chili::Scope<'_>| quad_chili(s, d - 1, 4 * base + k, leaf);
    let ((a, b), (c, e)) = s.join(
        |s| s.join(child(0), child(1)),
        |s| s.join(child(2), child(3)),
    );
    a + b + c + e
}

// ---------------------------------------------------------------- 9. uneven loop

/// Item `i` of the uneven loop sleeps `leaf * (1 + i % 8) / 4`: from a quarter leaf to two.
fn uneven_leaf(leaf: Duration, i: u64) -> Duration {
    leaf * (1 + (i % 8) as u32) / 4
}

fn uneven_seq(leaf: Duration) -> u64 {
    (0..UNEVEN_ITEMS)
        .map(|i| work(uneven_leaf(leaf, i), i))
        .sum()
}

fn uneven_blitz(leaf: Duration) -> u64 {
    let sum = AtomicU64::new(0);
    blitz::par_for!(i in 0..UNEVEN_ITEMS => {
        sleep(uneven_leaf(leaf, i));
        sum.fetch_add(i, Ordering::Relaxed);
    });
    sum.into_inner()
}

fn uneven_rayon(leaf: Duration) -> u64 {
    let sum = AtomicU64::new(0);
    (0..UNEVEN_ITEMS).into_par_iter().for_each(|i| {
        sleep(uneven_leaf(leaf, i));
        sum.fetch_add(i, Ordering::Relaxed);
    });
    sum.into_inner()
}

// ---------------------------------------------------------------- 10. loops inside recursion

/// A binary recursion of depth `d` whose leaves each loop over [`NESTED_INNER`] sleeping
/// items; item `j` of recursion leaf `base` returns `base * NESTED_INNER + j`.
fn nested_seq(d: u32, base: u64, leaf: Duration) -> u64 {
    if d == 0 {
        return (0..NESTED_INNER)
            .map(|j| work(leaf, base * NESTED_INNER + j))
            .sum();
    }
    nested_seq(d - 1, 2 * base, leaf) + nested_seq(d - 1, 2 * base + 1, leaf)
}

#[blitz::parallel]
fn nested_parallel(d: u32, base: u64, leaf: Duration) -> u64 {
    if d == 0 {
        let mut total = 0u64;
        blitz::par_for!(j in 0..NESTED_INNER, reduce(+: total) => {
            sleep(leaf);
            total += base * NESTED_INNER + j;
        });
        return total;
    }
    nested_parallel(d - 1, 2 * base, leaf) + nested_parallel(d - 1, 2 * base + 1, leaf)
}

fn nested_rayon(d: u32, base: u64, leaf: Duration) -> u64 {
    if d == 0 {
        return (0..NESTED_INNER)
            .into_par_iter()
            .map(|j| work(leaf, base * NESTED_INNER + j))
            .sum();
    }
    let (a, b) = rayon::join(
        || nested_rayon(d - 1, 2 * base, leaf),
        || nested_rayon(d - 1, 2 * base + 1, leaf),
    );
    a + b
}

// ---------------------------------------------------------------- 13. chain, leaf first

/// The chain with each level's operands swapped: `join(leaf, rest)`. The rest of the chain is
/// the forked half, so it spreads only as fast as one thief at a time can take it over.
fn leaf_chain_blitz(w: &blitz::Worker, n: u64, leaf: Duration) -> u64 {
    if n == 1 {
        return work(leaf, 0);
    }
    let (b, a) = w.join(|_| work(leaf, n - 1), |w| leaf_chain_blitz(w, n - 1, leaf));
    a + b
}

fn leaf_chain_rayon(n: u64, leaf: Duration) -> u64 {
    if n == 1 {
        return work(leaf, 0);
    }
    let (b, a) = rayon::join(|| work(leaf, n - 1), || leaf_chain_rayon(n - 1, leaf));
    a + b
}

fn leaf_chain_chili(s: &mut chili::Scope<'_>, n: u64, leaf: Duration) -> u64 {
    if n == 1 {
        return work(leaf, 0);
    }
    let (b, a) = s.join(|_| work(leaf, n - 1), |s| leaf_chain_chili(s, n - 1, leaf));
    a + b
}

// ---------------------------------------------------------------- 14. scope spawns

/// One task per leaf, spawned in a loop on a scope: the fan-out of a work list.
fn spawn_blitz(leaf: Duration) -> u64 {
    let sum = AtomicU64::new(0);
    blitz::scope(|s| {
        for i in 0..LEAVES {
            let sum = &sum;
            s.spawn(move |_| {
                sum.fetch_add(work(leaf, i), Ordering::Relaxed);
            });
        }
    });
    sum.into_inner()
}

fn spawn_rayon(leaf: Duration) -> u64 {
    let sum = AtomicU64::new(0);
    rayon::scope(|s| {
        for i in 0..LEAVES {
            let sum = &sum;
            s.spawn(move |_| {
                sum.fetch_add(work(leaf, i), Ordering::Relaxed);
            });
        }
    });
    sum.into_inner()
}

// ---------------------------------------------------------------- 15. spawn chain

/// Each task spawns the next one, then runs its leaf: a work list discovered as it is walked
/// (a linked list, a crawler). Like the leaf-first chain it spreads one link per hand-over, but
/// nothing joins: the scope counts its tasks down.
fn spawn_chain_blitz(leaf: Duration) -> u64 {
    fn link<'s>(s: &blitz::Scope<'s>, i: u64, leaf: Duration, sum: &'s AtomicU64) {
        if i + 1 < LEAVES {
            s.spawn(move |s| link(s, i + 1, leaf, sum));
        }
        sum.fetch_add(work(leaf, i), Ordering::Relaxed);
    }
    let sum = AtomicU64::new(0);
    blitz::scope(|s| link(s, 0, leaf, &sum));
    sum.into_inner()
}

fn spawn_chain_rayon(leaf: Duration) -> u64 {
    fn link<'s>(s: &rayon::Scope<'s>, i: u64, leaf: Duration, sum: &'s AtomicU64) {
        if i + 1 < LEAVES {
            s.spawn(move |s| link(s, i + 1, leaf, sum));
        }
        sum.fetch_add(work(leaf, i), Ordering::Relaxed);
    }
    let sum = AtomicU64::new(0);
    rayon::scope(|s| link(s, 0, leaf, &sum));
    sum.into_inner()
}

// ---------------------------------------------------------------- 16. iterator over a Vec

/// The leaves of the flat loop as a `Vec`, mapped and summed through the iterator API.
fn leaf_indices() -> Vec<u64> {
    (0..LEAVES).collect()
}

/// In a module of its own: blitz's prelude keeps rayon's trait names, which this file imports.
mod blitz_iter {
    use super::{Duration, leaf_indices, work};
    use blitz::prelude::*;

    pub(super) fn map_sum(leaf: Duration) -> u64 {
        leaf_indices().par_iter().map(|&i| work(leaf, i)).sum()
    }
}

fn iter_rayon(leaf: Duration) -> u64 {
    leaf_indices().par_iter().map(|&i| work(leaf, i)).sum()
}

// ---------------------------------------------------------------- the shapes

/// A blitz version, run inside `install_with_worker` of a blitz pool.
pub(crate) type BlitzFn = fn(&blitz::Worker, Duration) -> u64;
/// A rayon version, run inside `install` of a rayon pool.
pub(crate) type RayonFn = fn(Duration) -> u64;
/// A chili version, run on a fresh `scope()` of a chili pool.
pub(crate) type ChiliFn = fn(&mut chili::Scope<'_>, Duration) -> u64;

/// One fork-join shape: a sequential reference and the versions the libraries have.
pub(crate) struct Shape {
    pub(crate) name: &'static str,
    pub(crate) seq: fn(Duration) -> u64,
    pub(crate) blitz: Option<BlitzFn>,
    pub(crate) rayon: Option<RayonFn>,
    pub(crate) chili: Option<ChiliFn>,
}

pub(crate) fn shapes() -> Vec<Shape> {
    vec![
        Shape {
            name: "fib(14) #[parallel]",
            seq: |l| fib_seq(FIB_N, l),
            blitz: Some(|_, l| fib_parallel(FIB_N, l)),
            rayon: Some(|l| fib_rayon(FIB_N, l)),
            chili: Some(|s, l| fib_chili(s, FIB_N, l)),
        },
        Shape {
            name: "chain 512 Worker::join",
            seq: |l| chain_seq(LEAVES, l),
            blitz: Some(|w, l| chain_blitz(w, LEAVES, l)),
            rayon: Some(|l| chain_rayon(LEAVES, l)),
            chili: Some(|s, l| chain_chili(s, LEAVES, l)),
        },
        Shape {
            name: "tree 512 #[parallel]",
            seq: |l| tree_seq(0, LEAVES, 2, l),
            blitz: Some(|_, l| tree_parallel(0, LEAVES, 2, l)),
            rayon: Some(|l| tree_rayon(0, LEAVES, 2, l)),
            chili: Some(|s, l| tree_chili(s, 0, LEAVES, 2, l)),
        },
        Shape {
            name: "tree 512 blitz::join",
            seq: |l| tree_seq(0, LEAVES, 2, l),
            blitz: Some(|_, l| tree_join(0, LEAVES, 2, l)),
            // The same tree as above for rayon and chili: nothing new to measure.
            rayon: None,
            chili: None,
        },
        Shape {
            name: "par_for! 512",
            seq: loop_seq,
            blitz: Some(|_, l| loop_blitz(l)),
            rayon: Some(loop_rayon),
            chili: None,
        },
        Shape {
            name: "fork_join! 3-way d6 (729)",
            seq: |l| tri_seq(TERNARY_DEPTH, 0, l),
            blitz: Some(|_, l| tri_blitz(TERNARY_DEPTH, 0, l)),
            rayon: Some(|l| tri_rayon(TERNARY_DEPTH, 0, l)),
            chili: Some(|s, l| tri_chili(s, TERNARY_DEPTH, 0, l)),
        },
        Shape {
            name: "par_for! reduce 512",
            seq: loop_seq,
            blitz: Some(|_, l| reduce_blitz(l)),
            rayon: Some(reduce_rayon),
            chili: None,
        },
        Shape {
            name: "unbalanced tree 512 (1/4)",
            seq: |l| tree_seq(0, LEAVES, 4, l),
            blitz: Some(|_, l| tree_parallel(0, LEAVES, 4, l)),
            rayon: Some(|l| tree_rayon(0, LEAVES, 4, l)),
            chili: Some(|s, l| tree_chili(s, 0, LEAVES, 4, l)),
        },
        Shape {
            name: "uneven par_for! 256",
            seq: uneven_seq,
            blitz: Some(|_, l| uneven_blitz(l)),
            rayon: Some(uneven_rayon),
            chili: None,
        },
        Shape {
            name: "nested 8 x par_for! 64",
            seq: |l| nested_seq(NESTED_DEPTH, 0, l),
            blitz: Some(|_, l| nested_parallel(NESTED_DEPTH, 0, l)),
            rayon: Some(|l| nested_rayon(NESTED_DEPTH, 0, l)),
            chili: None,
        },
        Shape {
            name: "fork_join! 4-way d4 (256)",
            seq: |l| quad_seq(QUATERNARY_DEPTH, 0, l),
            blitz: Some(|_, l| quad_blitz(QUATERNARY_DEPTH, 0, l)),
            rayon: Some(|l| quad_rayon(QUATERNARY_DEPTH, 0, l)),
            chili: Some(|s, l| quad_chili(s, QUATERNARY_DEPTH, 0, l)),
        },
        Shape {
            name: "4-way right-nested join d4",
            seq: |l| quad_seq(QUATERNARY_DEPTH, 0, l),
            blitz: Some(|w, l| quad_chain_blitz(w, QUATERNARY_DEPTH, 0, l)),
            rayon: Some(|l| quad_chain_rayon(QUATERNARY_DEPTH, 0, l)),
            chili: Some(|s, l| quad_chain_chili(s, QUATERNARY_DEPTH, 0, l)),
        },
        Shape {
            name: "chain 512 leaf first",
            seq: |l| chain_seq(LEAVES, l),
            blitz: Some(|w, l| leaf_chain_blitz(w, LEAVES, l)),
            rayon: Some(|l| leaf_chain_rayon(LEAVES, l)),
            chili: Some(|s, l| leaf_chain_chili(s, LEAVES, l)),
        },
        Shape {
            name: "scope 512 spawns",
            seq: loop_seq,
            blitz: Some(|_, l| spawn_blitz(l)),
            rayon: Some(spawn_rayon),
            chili: None,
        },
        Shape {
            name: "spawn chain 512",
            seq: loop_seq,
            blitz: Some(|_, l| spawn_chain_blitz(l)),
            rayon: Some(spawn_chain_rayon),
            chili: None,
        },
        Shape {
            name: "par_iter map-sum 512",
            seq: loop_seq,
            blitz: Some(|_, l| blitz_iter::map_sum(l)),
            rayon: Some(iter_rayon),
            chili: None,
        },
    ]
}
