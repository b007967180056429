//! Fork/join overhead: sequential vs blitz vs rayon vs chili, at 1 and 2 threads.
//!
//! Workloads (a join at every node/level, so the per-join cost dominates):
//! * tree sum over a 1023-node and a 10M-node binary tree;
//! * fib(30).
//!
//! Every implementation's result is checked against the sequential one before timing.
//! Run with `cargo bench --bench join`; pass thread counts with `-- --args` as divan allows.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use divan::Bencher;

fn main() {
    divan::main();
}

const THREADS: &[usize] = &[1, 2];

// ---------------------------------------------------------------- pools, one per thread count

fn cached<T: Send + Sync + 'static>(
    cell: &'static OnceLock<Mutex<HashMap<usize, &'static T>>>,
    threads: usize,
    make: impl FnOnce() -> T,
) -> &'static T {
    let map = cell.get_or_init(Default::default);
    let mut map = map.lock().unwrap();
    map.entry(threads)
        .or_insert_with(|| Box::leak(Box::new(make())))
}

fn blitz_pool(threads: usize) -> &'static blitz::ThreadPool {
    static POOLS: OnceLock<Mutex<HashMap<usize, &'static blitz::ThreadPool>>> = OnceLock::new();
    cached(&POOLS, threads, || {
        blitz::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    })
}

fn rayon_pool(threads: usize) -> &'static rayon::ThreadPool {
    static POOLS: OnceLock<Mutex<HashMap<usize, &'static rayon::ThreadPool>>> = OnceLock::new();
    cached(&POOLS, threads, || {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    })
}

fn chili_pool(threads: usize) -> &'static chili::ThreadPool {
    static POOLS: OnceLock<Mutex<HashMap<usize, &'static chili::ThreadPool>>> = OnceLock::new();
    cached(&POOLS, threads, || {
        chili::ThreadPool::with_config(chili::Config {
            thread_count: Some(std::num::NonZero::new(threads).unwrap()),
            ..Default::default()
        })
    })
}

// ---------------------------------------------------------------- tree sum

struct Node {
    value: u64,
    left: Option<Box<Node>>,
    right: Option<Box<Node>>,
}

/// A balanced binary tree of exactly `n` nodes, values `first..first + n`.
fn make_tree(n: usize, first: u64) -> Option<Box<Node>> {
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

fn tree(n: usize) -> &'static Node {
    static TREES: OnceLock<Mutex<HashMap<usize, &'static Node>>> = OnceLock::new();
    cached(&TREES, n, || *make_tree(n, 0).unwrap())
}

fn sum_seq(node: &Node) -> u64 {
    let l = node.left.as_deref().map_or(0, sum_seq);
    let r = node.right.as_deref().map_or(0, sum_seq);
    node.value + l + r
}

fn sum_blitz(w: &blitz::Worker, node: &Node) -> u64 {
    let (l, r) = w.join(
        |w| node.left.as_deref().map_or(0, |n| sum_blitz(w, n)),
        |w| node.right.as_deref().map_or(0, |n| sum_blitz(w, n)),
    );
    node.value + l + r
}

fn sum_blitz_join(node: &Node) -> u64 {
    let (l, r) = blitz::join(
        || node.left.as_deref().map_or(0, sum_blitz_join),
        || node.right.as_deref().map_or(0, sum_blitz_join),
    );
    node.value + l + r
}

fn sum_rayon(node: &Node) -> u64 {
    let (l, r) = rayon::join(
        || node.left.as_deref().map_or(0, sum_rayon),
        || node.right.as_deref().map_or(0, sum_rayon),
    );
    node.value + l + r
}

fn sum_chili(s: &mut chili::Scope<'_>, node: &Node) -> u64 {
    let (l, r) = s.join(
        |s| node.left.as_deref().map_or(0, |n| sum_chili(s, n)),
        |s| node.right.as_deref().map_or(0, |n| sum_chili(s, n)),
    );
    node.value + l + r
}

fn expected_sum(n: usize) -> u64 {
    let n = n as u64;
    n * (n - 1) / 2
}

macro_rules! tree_benches {
    ($module:ident, $n:expr) => {
        mod $module {
            use super::*;

            const N: usize = $n;

            #[divan::bench]
            fn sequential(b: Bencher) {
                let t = tree(N);
                assert_eq!(sum_seq(t), expected_sum(N));
                b.bench(|| sum_seq(divan::black_box(t)));
            }

            #[divan::bench(args = THREADS)]
            fn blitz_worker_join(b: Bencher, threads: usize) {
                let (t, pool) = (tree(N), blitz_pool(threads));
                assert_eq!(
                    pool.install_with_worker(|w| sum_blitz(w, t)),
                    expected_sum(N)
                );
                b.bench(|| pool.install_with_worker(|w| sum_blitz(w, divan::black_box(t))));
            }

            #[divan::bench(args = THREADS)]
            fn blitz_join(b: Bencher, threads: usize) {
                let (t, pool) = (tree(N), blitz_pool(threads));
                assert_eq!(pool.install(|| sum_blitz_join(t)), expected_sum(N));
                b.bench(|| pool.install(|| sum_blitz_join(divan::black_box(t))));
            }

            #[divan::bench(args = THREADS)]
            fn rayon(b: Bencher, threads: usize) {
                let (t, pool) = (tree(N), rayon_pool(threads));
                assert_eq!(pool.install(|| sum_rayon(t)), expected_sum(N));
                b.bench(|| pool.install(|| sum_rayon(divan::black_box(t))));
            }

            #[divan::bench(args = THREADS)]
            fn chili(b: Bencher, threads: usize) {
                let (t, pool) = (tree(N), chili_pool(threads));
                assert_eq!(sum_chili(&mut pool.scope(), t), expected_sum(N));
                b.bench(|| sum_chili(&mut pool.scope(), divan::black_box(t)));
            }
        }
    };
}

tree_benches!(tree_sum_1023, 1023);
tree_benches!(tree_sum_10m, 10_000_000);

// ---------------------------------------------------------------- fib(30)

const FIB_N: u64 = 30;
const FIB_30: u64 = 832_040;

fn fib_seq(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib_seq(n - 1) + fib_seq(n - 2)
}

fn fib_blitz(w: &blitz::Worker, n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = w.join(|w| fib_blitz(w, n - 1), |w| fib_blitz(w, n - 2));
    a + b
}

fn fib_rayon(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = rayon::join(|| fib_rayon(n - 1), || fib_rayon(n - 2));
    a + b
}

fn fib_chili(s: &mut chili::Scope<'_>, n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = s.join(|s| fib_chili(s, n - 1), |s| fib_chili(s, n - 2));
    a + b
}

mod fib_30 {
    use super::*;

    #[divan::bench]
    fn sequential(b: Bencher) {
        assert_eq!(fib_seq(FIB_N), FIB_30);
        b.bench(|| fib_seq(divan::black_box(FIB_N)));
    }

    #[divan::bench(args = THREADS)]
    fn blitz_worker_join(b: Bencher, threads: usize) {
        let pool = blitz_pool(threads);
        assert_eq!(pool.install_with_worker(|w| fib_blitz(w, FIB_N)), FIB_30);
        b.bench(|| pool.install_with_worker(|w| fib_blitz(w, divan::black_box(FIB_N))));
    }

    #[divan::bench(args = THREADS)]
    fn rayon(b: Bencher, threads: usize) {
        let pool = rayon_pool(threads);
        assert_eq!(pool.install(|| fib_rayon(FIB_N)), FIB_30);
        b.bench(|| pool.install(|| fib_rayon(divan::black_box(FIB_N))));
    }

    #[divan::bench(args = THREADS)]
    fn chili(b: Bencher, threads: usize) {
        let pool = chili_pool(threads);
        assert_eq!(fib_chili(&mut pool.scope(), FIB_N), FIB_30);
        b.bench(|| fib_chili(&mut pool.scope(), divan::black_box(FIB_N)));
    }
}
