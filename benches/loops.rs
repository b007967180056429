//! Parallel loops and coarse fork/join: Blitz against a sequential loop and rayon, at 1 and 2
//! threads (the divan argument). One pool per thread count and library, built once; every
//! parallel result is checked against the sequential one before timing.
//!
//! Run with `cargo bench --bench loops`.

use std::hint::black_box;
use std::sync::OnceLock;

use common::*;
use divan::Bencher;

mod common;

fn main() {
    divan::main();
}

/// Thread counts benchmarked (index = count - 1 in the pool tables).
const THREADS: [usize; 2] = [1, 2];

fn blitz_pool(threads: usize) -> &'static blitz::ThreadPool {
    static POOLS: [OnceLock<blitz::ThreadPool>; 2] = [OnceLock::new(), OnceLock::new()];
    POOLS[threads - 1].get_or_init(|| common::blitz_pool(threads))
}

fn rayon_pool(threads: usize) -> &'static rayon::ThreadPool {
    static POOLS: [OnceLock<rayon::ThreadPool>; 2] = [OnceLock::new(), OnceLock::new()];
    POOLS[threads - 1].get_or_init(|| common::rayon_pool(threads))
}

/// Sum of 100M `u64`s stored in a slice (800 MB; a range would let LLVM replace the sequential
/// loop by a closed formula).
mod sum_100m_u64 {
    use super::*;

    const N: usize = 100_000_000;

    fn data() -> &'static [u64] {
        static DATA: OnceLock<Vec<u64>> = OnceLock::new();
        DATA.get_or_init(|| sum_data(N))
    }

    fn expected() -> u64 {
        static EXPECTED: OnceLock<u64> = OnceLock::new();
        *EXPECTED.get_or_init(|| data().iter().sum())
    }

    fn blitz_sum(threads: usize) -> u64 {
        let v = data();
        blitz_pool(threads).install(|| sum_blitz(v))
    }

    fn rayon_sum(threads: usize) -> u64 {
        let v = data();
        rayon_pool(threads).install(|| sum_rayon(v))
    }

    #[divan::bench(sample_count = 20, sample_size = 1)]
    fn sequential(bencher: Bencher) {
        let v = data();
        bencher.bench(|| black_box(v).iter().sum::<u64>());
    }

    #[divan::bench(args = THREADS, sample_count = 20, sample_size = 1)]
    fn blitz(bencher: Bencher, threads: usize) {
        assert_eq!(blitz_sum(threads), expected());
        bencher.bench(|| blitz_sum(black_box(threads)));
    }

    #[divan::bench(args = THREADS, sample_count = 20, sample_size = 1)]
    fn rayon(bencher: Bencher, threads: usize) {
        assert_eq!(rayon_sum(threads), expected());
        bencher.bench(|| rayon_sum(black_box(threads)));
    }
}

/// Map-reduce over 100M items: the sum of `sqrt(i as f64)` for `i` in `0..100M`.
mod map_reduce_sqrt_100m {
    use super::*;

    const N: u64 = 100_000_000;

    fn expected() -> f64 {
        static EXPECTED: OnceLock<f64> = OnceLock::new();
        *EXPECTED.get_or_init(|| sqrt_seq(N))
    }

    /// Parallel sums associate differently: equal up to rounding.
    fn check(got: f64) {
        let want = expected();
        assert!(close(got, want), "{got} vs {want}");
    }

    fn blitz_map_reduce(threads: usize) -> f64 {
        blitz_pool(threads).install(|| sqrt_blitz(N))
    }

    fn rayon_map_reduce(threads: usize) -> f64 {
        rayon_pool(threads).install(|| sqrt_rayon(N))
    }

    #[divan::bench(sample_count = 20, sample_size = 1)]
    fn sequential(bencher: Bencher) {
        bencher.bench(|| sqrt_seq(black_box(N)));
    }

    #[divan::bench(args = THREADS, sample_count = 20, sample_size = 1)]
    fn blitz(bencher: Bencher, threads: usize) {
        check(blitz_map_reduce(threads));
        bencher.bench(|| blitz_map_reduce(black_box(threads)));
    }

    #[divan::bench(args = THREADS, sample_count = 20, sample_size = 1)]
    fn rayon(bencher: Bencher, threads: usize) {
        check(rayon_map_reduce(threads));
        bencher.bench(|| rayon_map_reduce(black_box(threads)));
    }
}

/// Two coarse tasks of about 100 ms of busy computation each (no sleeping), joined.
mod two_coarse_tasks {
    use super::*;

    fn iterations() -> u64 {
        spin_iterations(100)
    }

    fn expected() -> (u64, u64) {
        let n = iterations();
        (spin(n, 1), spin(n, 2))
    }

    #[divan::bench(sample_count = 10, sample_size = 1)]
    fn sequential(bencher: Bencher) {
        let n = iterations();
        bencher.bench(|| (spin(black_box(n), 1), spin(black_box(n), 2)));
    }

    #[divan::bench(args = THREADS, sample_count = 10, sample_size = 1)]
    fn blitz(bencher: Bencher, threads: usize) {
        let n = iterations();
        let pool = blitz_pool(threads);
        let run = || pool.install(|| blitz::join(|| spin(n, 1), || spin(n, 2)));
        assert_eq!(run(), expected());
        bencher.bench(run);
    }

    #[divan::bench(args = THREADS, sample_count = 10, sample_size = 1)]
    fn rayon(bencher: Bencher, threads: usize) {
        let n = iterations();
        let pool = rayon_pool(threads);
        let run = || pool.install(|| rayon::join(|| spin(n, 1), || spin(n, 2)));
        assert_eq!(run(), expected());
        bencher.bench(run);
    }
}
