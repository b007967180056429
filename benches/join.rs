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

use common::*;
use divan::Bencher;

mod common;

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
    cached(&POOLS, threads, || common::blitz_pool(threads))
}

fn rayon_pool(threads: usize) -> &'static rayon::ThreadPool {
    static POOLS: OnceLock<Mutex<HashMap<usize, &'static rayon::ThreadPool>>> = OnceLock::new();
    cached(&POOLS, threads, || common::rayon_pool(threads))
}

fn chili_pool(threads: usize) -> &'static chili::ThreadPool {
    static POOLS: OnceLock<Mutex<HashMap<usize, &'static chili::ThreadPool>>> = OnceLock::new();
    cached(&POOLS, threads, || common::chili_pool(threads))
}

// ---------------------------------------------------------------- tree sum

fn tree(n: usize) -> &'static Node {
    static TREES: OnceLock<Mutex<HashMap<usize, &'static Node>>> = OnceLock::new();
    cached(&TREES, n, || *make_tree(n, 0).unwrap())
}

macro_rules! tree_benches {
    ($module:ident, $n:expr) => {
        mod $module {
            use super::*;

            const N: usize = $n;

            #[divan::bench]
            fn sequential(b: Bencher) {
                let t = tree(N);
                assert_eq!(tree_seq(t), tree_expected(N));
                b.bench(|| tree_seq(divan::black_box(t)));
            }

            #[divan::bench(args = THREADS)]
            fn blitz_worker_join(b: Bencher, threads: usize) {
                let (t, pool) = (tree(N), blitz_pool(threads));
                assert_eq!(
                    pool.install_with_worker(|w| tree_blitz(w, t)),
                    tree_expected(N)
                );
                b.bench(|| pool.install_with_worker(|w| tree_blitz(w, divan::black_box(t))));
            }

            #[divan::bench(args = THREADS)]
            fn blitz_join(b: Bencher, threads: usize) {
                let (t, pool) = (tree(N), blitz_pool(threads));
                assert_eq!(pool.install(|| tree_blitz_join(t)), tree_expected(N));
                b.bench(|| pool.install(|| tree_blitz_join(divan::black_box(t))));
            }

            #[divan::bench(args = THREADS)]
            fn rayon(b: Bencher, threads: usize) {
                let (t, pool) = (tree(N), rayon_pool(threads));
                assert_eq!(pool.install(|| tree_rayon(t)), tree_expected(N));
                b.bench(|| pool.install(|| tree_rayon(divan::black_box(t))));
            }

            #[divan::bench(args = THREADS)]
            fn chili(b: Bencher, threads: usize) {
                let (t, pool) = (tree(N), chili_pool(threads));
                assert_eq!(tree_chili(&mut pool.scope(), t), tree_expected(N));
                b.bench(|| tree_chili(&mut pool.scope(), divan::black_box(t)));
            }
        }
    };
}

tree_benches!(tree_sum_1023, 1023);
tree_benches!(tree_sum_10m, 10_000_000);

// ---------------------------------------------------------------- fib(30)

const FIB_N: u64 = 30;
const FIB_30: u64 = 832_040;

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
        assert_eq!(pool.install_with_worker(|w| fib_blitz(w, FIB_N, 0)), FIB_30);
        b.bench(|| pool.install_with_worker(|w| fib_blitz(w, divan::black_box(FIB_N), 0)));
    }

    #[divan::bench(args = THREADS)]
    fn rayon(b: Bencher, threads: usize) {
        let pool = rayon_pool(threads);
        assert_eq!(pool.install(|| fib_rayon(FIB_N, 0)), FIB_30);
        b.bench(|| pool.install(|| fib_rayon(divan::black_box(FIB_N), 0)));
    }

    #[divan::bench(args = THREADS)]
    fn chili(b: Bencher, threads: usize) {
        let pool = chili_pool(threads);
        assert_eq!(fib_chili(&mut pool.scope(), FIB_N, 0), FIB_30);
        b.bench(|| fib_chili(&mut pool.scope(), divan::black_box(FIB_N), 0));
    }
}
