//! Workloads shared by the bench targets: one sequential reference and one implementation per
//! library (blitz through its DSL and through the raw runtime API, rayon, chili) for each.
//!
//! Included with `mod common;` from each bench file; not every file uses every item.
#![allow(dead_code)]

pub mod csv;
pub mod load;

use std::hint::black_box;
use std::num::NonZero;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use rayon::prelude::*;

// ---------------------------------------------------------------- pools

pub fn blitz_pool(threads: usize) -> blitz::ThreadPool {
    blitz::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("blitz pool")
}

pub fn rayon_pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("rayon pool")
}

/// chili counts the thread that calls `scope()` as one of `threads`.
pub fn chili_pool(threads: usize) -> chili::ThreadPool {
    chili::ThreadPool::with_config(chili::Config {
        thread_count: Some(NonZero::new(threads).expect("threads >= 1")),
        ..Default::default()
    })
}

// ---------------------------------------------------------------- fib

pub fn fib_seq(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib_seq(n - 1) + fib_seq(n - 2)
}

/// A fork at every call: what a user writes first.
#[blitz::parallel]
pub fn fib_dsl(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib_dsl(n - 1) + fib_dsl(n - 2)
}

/// `fib_dsl` as a method of a (private, inherent) impl: recursion through `self`.
pub struct Fib;

impl Fib {
    #[blitz::parallel]
    fn fib(&self, n: u64) -> u64 {
        if n < 2 {
            return n;
        }
        self.fib(n - 1) + self.fib(n - 2)
    }
}

pub fn fib_dsl_method(n: u64) -> u64 {
    Fib.fib(n)
}

#[blitz::parallel(cutoff = n < 20)]
pub fn fib_dsl_cutoff(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib_dsl_cutoff(n - 1) + fib_dsl_cutoff(n - 2)
}

/// Raw context-passing form. `cutoff`: below it, run the sequential fn.
pub fn fib_blitz(w: &blitz::Worker, n: u64, cutoff: u64) -> u64 {
    if n < cutoff {
        return fib_seq(n);
    }
    if n < 2 {
        return n;
    }
    let (a, b) = w.join(
        |w| fib_blitz(w, n - 1, cutoff),
        |w| fib_blitz(w, n - 2, cutoff),
    );
    a + b
}

/// `Worker::join` at every call, written as the `#[parallel]` fn is: no cutoff argument (the
/// raw form above carries one for its cutoff row, as rayon's and chili's do).
pub fn fib_worker_join(w: &blitz::Worker, n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = w.join(|w| fib_worker_join(w, n - 1), |w| fib_worker_join(w, n - 2));
    a + b
}

/// The rayon-compatible `blitz::join`, which looks the worker up at every call.
pub fn fib_blitz_join(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = blitz::join(|| fib_blitz_join(n - 1), || fib_blitz_join(n - 2));
    a + b
}

pub fn fib_rayon(n: u64, cutoff: u64) -> u64 {
    if n < cutoff {
        return fib_seq(n);
    }
    if n < 2 {
        return n;
    }
    let (a, b) = rayon::join(|| fib_rayon(n - 1, cutoff), || fib_rayon(n - 2, cutoff));
    a + b
}

pub fn fib_chili(s: &mut chili::Scope<'_>, n: u64, cutoff: u64) -> u64 {
    if n < cutoff {
        return fib_seq(n);
    }
    if n < 2 {
        return n;
    }
    let (a, b) = s.join(
        |s| fib_chili(s, n - 1, cutoff),
        |s| fib_chili(s, n - 2, cutoff),
    );
    a + b
}

// ---------------------------------------------------------------- tree sum

pub struct Node {
    pub value: u64,
    pub left: Option<Box<Node>>,
    pub right: Option<Box<Node>>,
}

/// A balanced binary tree of exactly `n` nodes, values `first..first + n`.
pub fn make_tree(n: usize, first: u64) -> Option<Box<Node>> {
    if n == 0 {
        return None;
    }
    let left = (n - 1) / 2;
    let right = n - 1 - left;
    Some(Box::new(Node {
        value: first,
        left: make_tree(left, first + 1),
        right: make_tree(right, first + 1 + left as u64),
    }))
}

/// The sum of `0..n`, which is what a tree from `make_tree(n, 0)` holds.
pub fn tree_expected(n: usize) -> u64 {
    let n = n as u64;
    n * (n - 1) / 2
}

pub fn tree_seq(node: &Node) -> u64 {
    let l = node.left.as_deref().map_or(0, tree_seq);
    let r = node.right.as_deref().map_or(0, tree_seq);
    node.value + l + r
}

/// The DSL form, shaped like `tree_seq` (no call for a missing child): the two statements
/// each recurse and neither uses the other's binding, so they fork.
#[blitz::parallel]
pub fn tree_dsl(node: &Node) -> u64 {
    let l = if let Some(n) = node.left.as_deref() {
        tree_dsl(n)
    } else {
        0
    };
    let r = if let Some(n) = node.right.as_deref() {
        tree_dsl(n)
    } else {
        0
    };
    node.value + l + r
}

impl Node {
    /// `tree_dsl` as a method: recursion through the children's `Box`es.
    #[blitz::parallel]
    fn sum(&self) -> u64 {
        let l = if let Some(n) = self.left.as_deref() {
            n.sum()
        } else {
            0
        };
        let r = if let Some(n) = &self.right {
            n.sum()
        } else {
            0
        };
        self.value + l + r
    }
}

pub fn tree_dsl_method(node: &Node) -> u64 {
    node.sum()
}

pub fn tree_blitz(w: &blitz::Worker, node: &Node) -> u64 {
    let (l, r) = w.join(
        |w| node.left.as_deref().map_or(0, |n| tree_blitz(w, n)),
        |w| node.right.as_deref().map_or(0, |n| tree_blitz(w, n)),
    );
    node.value + l + r
}

/// The rayon-compatible `blitz::join`, which looks the worker up at every call.
pub fn tree_blitz_join(node: &Node) -> u64 {
    let (l, r) = blitz::join(
        || node.left.as_deref().map_or(0, tree_blitz_join),
        || node.right.as_deref().map_or(0, tree_blitz_join),
    );
    node.value + l + r
}

pub fn tree_rayon(node: &Node) -> u64 {
    let (l, r) = rayon::join(
        || node.left.as_deref().map_or(0, tree_rayon),
        || node.right.as_deref().map_or(0, tree_rayon),
    );
    node.value + l + r
}

/// chili's `join` runs its second closure first, so the left subtree goes second here: every
/// implementation then visits the nodes in the order `tree_seq` does. The order decides the
/// 10M-node rows: `make_tree` allocates each node after its subtrees, and on that layout a
/// right-first walk reads memory almost in sequence and ran in a quarter of the left-first time.
pub fn tree_chili(s: &mut chili::Scope<'_>, node: &Node) -> u64 {
    let (r, l) = s.join(
        |s| node.right.as_deref().map_or(0, |n| tree_chili(s, n)),
        |s| node.left.as_deref().map_or(0, |n| tree_chili(s, n)),
    );
    node.value + l + r
}

// ---------------------------------------------------------------- coarse tasks

/// Steps of a 64-bit LCG: a dependency chain the optimiser cannot shorten.
pub fn spin(iterations: u64, seed: u64) -> u64 {
    let mut x = seed;
    for _ in 0..iterations {
        x = black_box(x)
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
    }
    x
}

/// The iteration count of `spin` that takes about `ms` milliseconds here, measured once (the
/// best of a few probes, so a busy moment does not inflate it).
pub fn spin_iterations(ms: u64) -> u64 {
    spin_iterations_us(ms * 1000)
}

/// [`spin_iterations`] for `us` microseconds.
pub fn spin_iterations_us(us: u64) -> u64 {
    static PER_SECOND: OnceLock<f64> = OnceLock::new();
    let per_second = *PER_SECOND.get_or_init(|| {
        let probe = 5_000_000;
        let best = (0..5)
            .map(|_| {
                let start = Instant::now();
                black_box(spin(probe, 1));
                start.elapsed()
            })
            .min()
            .unwrap()
            .max(Duration::from_micros(1));
        probe as f64 / best.as_secs_f64()
    });
    (per_second * us as f64 / 1e6) as u64
}

// ---------------------------------------------------------------- sum of a slice

/// `n` pseudo-random-looking `u64`s (a slice, so LLVM cannot sum a range by formula).
pub fn sum_data(n: usize) -> Vec<u64> {
    (0..n as u64).map(|i| i ^ (i >> 3)).collect()
}

pub fn sum_seq(v: &[u64]) -> u64 {
    v.iter().sum()
}

pub fn sum_dsl(v: &[u64]) -> u64 {
    let mut sum = 0u64;
    blitz::par_for!(x in v, reduce(+: sum) => sum += *x);
    sum
}

pub fn sum_blitz(v: &[u64]) -> u64 {
    blitz::reduce_pieces(
        v,
        0,
        |piece: &[u64]| piece.iter().sum::<u64>(),
        |a, b| a + b,
    )
}

pub fn sum_rayon(v: &[u64]) -> u64 {
    v.par_iter().sum()
}

/// chili has no loop API: what a chili user writes, halving down to a fixed leaf.
pub fn sum_chili(s: &mut chili::Scope<'_>, v: &[u64]) -> u64 {
    if v.len() <= CHILI_LEAF {
        return v.iter().sum();
    }
    let (l, r) = v.split_at(v.len() / 2);
    let (a, b) = s.join(|s| sum_chili(s, l), |s| sum_chili(s, r));
    a + b
}

/// Leaf size of the hand-split chili loops.
pub const CHILI_LEAF: usize = 16 * 1024;

// ---------------------------------------------------------------- map-reduce: sum of sqrt

pub fn root(i: u64) -> f64 {
    (i as f64).sqrt()
}

pub fn sqrt_seq(n: u64) -> f64 {
    (0..n).map(root).sum()
}

pub fn sqrt_dsl(n: u64) -> f64 {
    let mut acc = 0.0f64;
    blitz::par_for!(i in 0..n, reduce(+: acc) => acc += root(i));
    acc
}

pub fn sqrt_blitz(n: u64) -> f64 {
    blitz::map_reduce(0..n, 0, || 0.0, root, |a, b| a + b)
}

pub fn sqrt_rayon(n: u64) -> f64 {
    (0..n).into_par_iter().map(root).sum()
}

pub fn sqrt_chili(s: &mut chili::Scope<'_>, lo: u64, hi: u64) -> f64 {
    if hi - lo <= CHILI_LEAF as u64 {
        return (lo..hi).map(root).sum();
    }
    let mid = lo + (hi - lo) / 2;
    let (a, b) = s.join(|s| sqrt_chili(s, lo, mid), |s| sqrt_chili(s, mid, hi));
    a + b
}

/// Parallel float sums associate differently: equal up to rounding.
pub fn close(got: f64, want: f64) -> bool {
    (got - want).abs() <= 1e-9 * want.abs()
}

// ---------------------------------------------------------------- quicksort

/// Leaves at or below this length use the standard library's sort, in every implementation.
pub const SORT_LEAF: usize = 1024;

/// xorshift64 values: the same input for every implementation.
pub fn sort_input(len: usize) -> Vec<u64> {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        })
        .collect()
}

/// How many of a parallel quicksort's top levels partition in parallel: enough that below them
/// the sort's own recursion has a task for every thread (`ceil(log2(threads))`, so none with
/// one thread). A sequential partition of the whole input bounds the speedup (Amdahl): on the
/// 10M input it is 7% of the sequential sort, which caps two threads at a ratio of about 0.535.
/// A parallel partition costs an extra pass that swaps about a quarter of its slice, so the
/// levels below, which have parallelism enough, keep the sequential one.
pub fn parallel_partition_levels(threads: usize) -> u32 {
    threads.next_power_of_two().trailing_zeros()
}

/// A parallel partition cuts its slice into this many blocks and partitions them at once.
pub const PARTITION_BLOCKS: usize = 8;
/// It then swaps the misplaced elements in pieces of at most this many, spread over the pool.
pub const SWAP_PIECE: usize = 1 << 16;

/// Moves the median of the first, middle and last elements to the end, as the pivot.
fn pivot_to_end(v: &mut [u64]) {
    let last = v.len() - 1;
    let mid = v.len() / 2;
    if v[mid] < v[0] {
        v.swap(mid, 0);
    }
    if v[last] < v[0] {
        v.swap(last, 0);
    }
    if v[mid] < v[last] {
        v.swap(mid, last);
    }
}

/// Lomuto's loop: moves the elements `<= pivot` to the front; returns how many there are.
fn partition_by(v: &mut [u64], pivot: u64) -> usize {
    let mut store = 0;
    for i in 0..v.len() {
        if v[i] <= pivot {
            v.swap(i, store);
            store += 1;
        }
    }
    store
}

/// Lomuto partition around the median of three; returns the pivot's final index.
pub fn partition(v: &mut [u64]) -> usize {
    pivot_to_end(v);
    let last = v.len() - 1;
    let pivot = v[last];
    let store = partition_by(&mut v[..last], pivot);
    v.swap(store, last);
    store
}

/// Two equally long pieces of one slice, to swap with each other.
type SwapPair<'a> = (&'a mut [u64], &'a mut [u64]);

/// After each block of `v` was partitioned on its own (block `i` holds `counts[i]` elements
/// `<= pivot` at its front), the elements `> pivot` left of the final boundary and the elements
/// `<= pivot` right of it are equally many. Pairs them up in order, in pieces of at most
/// [`SWAP_PIECE`], as slices to swap. Returns the boundary and the pairs.
fn misplaced_pairs<'a>(
    v: &'a mut [u64],
    block_len: usize,
    counts: &[usize],
) -> (usize, Vec<SwapPair<'a>>) {
    let len = v.len();
    let boundary: usize = counts.iter().sum();
    // Runs of misplaced elements, as ranges of `v`, in ascending order on each side.
    let mut greater_left = Vec::new();
    let mut lesser_right = Vec::new();
    for (i, &count) in counts.iter().enumerate() {
        let start = i * block_len;
        let end = (start + block_len).min(len);
        let split = start + count;
        if split < boundary {
            greater_left.push(split..end.min(boundary));
        }
        if end > boundary {
            lesser_right.push(start.max(boundary)..split.max(boundary));
        }
    }
    let (mut left, mut right) = v.split_at_mut(boundary);
    let (mut left_at, mut right_at) = (0, boundary);
    let mut pairs = Vec::new();
    let mut lesser = lesser_right.into_iter().filter(|r| !r.is_empty());
    let mut current = lesser.next();
    for mut run in greater_left {
        while !run.is_empty() {
            let other = current.as_mut().expect("as many misplaced on each side");
            let n = run.len().min(other.len()).min(SWAP_PIECE);
            // Carve both pieces off the front of what is left of each side.
            let (_, rest) = std::mem::take(&mut left).split_at_mut(run.start - left_at);
            let (a, rest) = rest.split_at_mut(n);
            left = rest;
            left_at = run.start + n;
            let (_, rest) = std::mem::take(&mut right).split_at_mut(other.start - right_at);
            let (b, rest) = rest.split_at_mut(n);
            right = rest;
            right_at = other.start + n;
            pairs.push((a, b));
            run.start += n;
            other.start += n;
            if other.start == other.end {
                current = lesser.next();
            }
        }
    }
    debug_assert!(current.is_none());
    (boundary, pairs)
}

/// Defines module `$name`: a quicksort whose top `parallel_levels` levels partition in parallel,
/// over one fork/join API. `$join` is a macro that runs two expressions as a fork/join pair and
/// returns both results; it gets the context parameter's name, if the API has one, so that each
/// arm can rebind it. Every implementation thus runs the same algorithm.
macro_rules! parallel_quicksort {
    ($(#[$attr:meta])* mod $name:ident, ctx($($ctx:ident: $ctx_ty:ty)?), $join:ident) => {
        $(#[$attr])*
        pub mod $name {
            use super::{
                misplaced_pairs, partition_by, pivot_to_end, SwapPair, PARTITION_BLOCKS, SORT_LEAF,
            };

            pub fn sort($($ctx: $ctx_ty,)? v: &mut [u64], parallel_levels: u32) {
                if v.len() <= SORT_LEAF {
                    v.sort_unstable();
                    return;
                }
                let mid = if parallel_levels > 0 {
                    partition($($ctx,)? v)
                } else {
                    super::partition(v)
                };
                let (lo, hi) = v.split_at_mut(mid);
                let below = parallel_levels.saturating_sub(1);
                $join!([$($ctx)?] sort($($ctx,)? lo, below), sort($($ctx,)? &mut hi[1..], below));
            }

            /// Same result as [`super::partition`]: the blocks are partitioned at once, then
            /// the misplaced elements swapped.
            pub fn partition($($ctx: $ctx_ty,)? v: &mut [u64]) -> usize {
                pivot_to_end(v);
                let last = v.len() - 1;
                let pivot = v[last];
                let block_len = last.div_ceil(PARTITION_BLOCKS);
                let mut counts = vec![0; last.div_ceil(block_len)];
                partition_blocks($($ctx,)? &mut v[..last], block_len, pivot, &mut counts);
                let (boundary, mut pairs) = misplaced_pairs(&mut v[..last], block_len, &counts);
                swap_pairs($($ctx,)? &mut pairs);
                v.swap(boundary, last);
                boundary
            }

            fn partition_blocks(
                $($ctx: $ctx_ty,)?
                v: &mut [u64],
                block_len: usize,
                pivot: u64,
                counts: &mut [usize],
            ) {
                if let [count] = counts {
                    *count = partition_by(v, pivot);
                    return;
                }
                let half = counts.len() / 2;
                let (v_lo, v_hi) = v.split_at_mut(half * block_len);
                let (c_lo, c_hi) = counts.split_at_mut(half);
                $join!(
                    [$($ctx)?]
                    partition_blocks($($ctx,)? v_lo, block_len, pivot, c_lo),
                    partition_blocks($($ctx,)? v_hi, block_len, pivot, c_hi)
                );
            }

            fn swap_pairs($($ctx: $ctx_ty,)? pairs: &mut [SwapPair<'_>]) {
                match pairs {
                    [] => {}
                    [(a, b)] => a.swap_with_slice(b),
                    _ => {
                        let (lo, hi) = pairs.split_at_mut(pairs.len() / 2);
                        $join!([$($ctx)?] swap_pairs($($ctx,)? lo), swap_pairs($($ctx,)? hi));
                    }
                }
            }
        }
    };
}

pub fn qsort_seq(v: &mut [u64]) {
    if v.len() <= SORT_LEAF {
        v.sort_unstable();
        return;
    }
    let mid = partition(v);
    let (lo, hi) = v.split_at_mut(mid);
    qsort_seq(lo);
    qsort_seq(&mut hi[1..]);
}

macro_rules! join_blitz_dsl {
    ([] $a:expr, $b:expr) => {
        blitz::fork_join!($a, $b)
    };
}
macro_rules! join_with_context {
    ([$ctx:ident] $a:expr, $b:expr) => {
        $ctx.join(|$ctx| $a, |$ctx| $b)
    };
}
macro_rules! join_rayon {
    ([] $a:expr, $b:expr) => {
        rayon::join(|| $a, || $b)
    };
}

parallel_quicksort!(
    /// Through `fork_join!`.
    mod qsort_dsl, ctx(), join_blitz_dsl
);
parallel_quicksort!(
    /// Through `Worker::join`.
    mod qsort_blitz, ctx(w: &blitz::Worker), join_with_context
);
parallel_quicksort!(
    /// Through `rayon::join`.
    mod qsort_rayon, ctx(), join_rayon
);
parallel_quicksort!(
    /// Through chili's `Scope::join`.
    mod qsort_chili, ctx(s: &mut chili::Scope<'_>), join_with_context
);

// ---------------------------------------------------------------- matrix multiply

/// Two `n`x`n` row-major matrices with small integer entries (exact in `f64`, so every
/// implementation's product is bit-identical).
pub fn matrices(n: usize) -> (Vec<f64>, Vec<f64>) {
    let a = (0..n * n).map(|i| ((i * 7) % 13) as f64 - 6.0).collect();
    let b = (0..n * n).map(|i| ((i * 5) % 11) as f64 - 5.0).collect();
    (a, b)
}

/// One row of `c = a * b` (i-k-j order, so the inner loop vectorises).
pub fn matmul_row(a: &[f64], b: &[f64], i: usize, row: &mut [f64]) {
    let n = row.len();
    row.fill(0.0);
    for k in 0..n {
        let aik = a[i * n + k];
        for (cij, bkj) in row.iter_mut().zip(&b[k * n..(k + 1) * n]) {
            *cij += aik * bkj;
        }
    }
}

pub fn matmul_seq(a: &[f64], b: &[f64], c: &mut [f64], n: usize) {
    for (i, row) in c.chunks_mut(n).enumerate() {
        matmul_row(a, b, i, row);
    }
}

pub fn matmul_dsl(a: &[f64], b: &[f64], c: &mut [f64], n: usize) {
    // `par_for!` takes `v.iter_mut().enumerate()` but not `chunks_mut(n).enumerate()`: pair
    // each row with its index first (n pointers, negligible next to n^3 multiply-adds).
    let mut rows: Vec<(usize, &mut [f64])> = c.chunks_mut(n).enumerate().collect();
    blitz::par_for!((i, row) in &mut rows => matmul_row(a, b, *i, row));
}

pub fn matmul_rayon(a: &[f64], b: &[f64], c: &mut [f64], n: usize) {
    c.par_chunks_mut(n)
        .enumerate()
        .for_each(|(i, row)| matmul_row(a, b, i, row));
}

/// Rows `first..` of `c` (`c` holds whole rows), halving down to one row.
pub fn matmul_chili(
    s: &mut chili::Scope<'_>,
    (a, b, n): (&[f64], &[f64], usize),
    c: &mut [f64],
    first: usize,
) {
    let rows = c.len() / n;
    if rows <= 1 {
        if rows == 1 {
            matmul_row(a, b, first, c);
        }
        return;
    }
    let half = rows / 2;
    let (lo, hi) = c.split_at_mut(half * n);
    s.join(
        |s| matmul_chili(s, (a, b, n), lo, first),
        |s| matmul_chili(s, (a, b, n), hi, first + half),
    );
}
