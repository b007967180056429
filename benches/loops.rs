//! Parallel loops and coarse fork/join: Blitz against a sequential loop and rayon, at 1 and 2
//! threads (the divan argument). One pool per thread count and library, built once; every
//! parallel result is checked against the sequential one before timing.
//!
//! Run with `cargo bench --bench loops`.

use std::hint::black_box;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use divan::Bencher;
use rayon::prelude::*;

fn main() {
    divan::main();
}

/// Thread counts benchmarked (index = count - 1 in the pool tables).
const THREADS: [usize; 2] = [1, 2];

fn blitz_pool(threads: usize) -> &'static blitz::ThreadPool {
    static POOLS: [OnceLock<blitz::ThreadPool>; 2] = [OnceLock::new(), OnceLock::new()];
    POOLS[threads - 1].get_or_init(|| {
        blitz::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("blitz pool")
    })
}

fn rayon_pool(threads: usize) -> &'static rayon::ThreadPool {
    static POOLS: [OnceLock<rayon::ThreadPool>; 2] = [OnceLock::new(), OnceLock::new()];
    POOLS[threads - 1].get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("rayon pool")
    })
}

/// Sum of 100M `u64`s stored in a slice (800 MB; a range would let LLVM replace the sequential
/// loop by a closed formula).
mod sum_100m_u64 {
    use super::*;

    const N: usize = 100_000_000;

    fn data() -> &'static [u64] {
        static DATA: OnceLock<Vec<u64>> = OnceLock::new();
        DATA.get_or_init(|| (0..N as u64).map(|i| i ^ (i >> 3)).collect())
    }

    fn expected() -> u64 {
        static EXPECTED: OnceLock<u64> = OnceLock::new();
        *EXPECTED.get_or_init(|| data().iter().sum())
    }

    fn blitz_sum(threads: usize) -> u64 {
        let v = data();
        blitz_pool(threads).install(|| {
            blitz::reduce_pieces(
                v,
                0,
                |piece: &[u64]| piece.iter().sum::<u64>(),
                |a, b| a + b,
            )
        })
    }

    fn rayon_sum(threads: usize) -> u64 {
        let v = data();
        rayon_pool(threads).install(|| v.par_iter().sum::<u64>())
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

    fn root(i: u64) -> f64 {
        (i as f64).sqrt()
    }

    fn expected() -> f64 {
        static EXPECTED: OnceLock<f64> = OnceLock::new();
        *EXPECTED.get_or_init(|| (0..N).map(root).sum())
    }

    /// Parallel sums associate differently: equal up to rounding.
    fn check(got: f64) {
        let want = expected();
        assert!((got - want).abs() <= 1e-9 * want, "{got} vs {want}");
    }

    fn blitz_map_reduce(threads: usize) -> f64 {
        blitz_pool(threads).install(|| blitz::map_reduce(0..N, 0, || 0.0, root, |a, b| a + b))
    }

    fn rayon_map_reduce(threads: usize) -> f64 {
        rayon_pool(threads).install(|| (0..N).into_par_iter().map(root).sum::<f64>())
    }

    #[divan::bench(sample_count = 20, sample_size = 1)]
    fn sequential(bencher: Bencher) {
        bencher.bench(|| (0..black_box(N)).map(root).sum::<f64>());
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

    /// One step of a 64-bit LCG: a dependency chain the optimiser cannot shorten.
    fn spin(iterations: u64, seed: u64) -> u64 {
        let mut x = seed;
        for _ in 0..iterations {
            x = black_box(x)
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
        }
        x
    }

    /// The iteration count that takes about 100 ms here, measured once.
    fn iterations() -> u64 {
        static ITERATIONS: OnceLock<u64> = OnceLock::new();
        *ITERATIONS.get_or_init(|| {
            let probe = 10_000_000;
            let start = Instant::now();
            black_box(spin(probe, 1));
            let elapsed = start.elapsed().max(Duration::from_micros(1));
            (probe as f64 * 0.1 / elapsed.as_secs_f64()) as u64
        })
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
