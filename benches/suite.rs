//! The comparative suite: every workload for sequential code, blitz (through its DSL and
//! through the raw runtime API), rayon and chili, at each thread count; then idle CPU use and
//! wake-up latency of the three pools, and the round trip of a call into each from outside.
//!
//! `cargo bench --bench suite` runs it all, prints a table and writes
//! `target/blitz-bench/results.csv`, `results.md` (the same as Markdown tables) and
//! `ratios.svg`.
//!
//! CSV columns: `workload, implementation, threads, median_us, p90_us, ratio_to_sequential`
//! (median time / sequential median time, empty where there is no sequential version). The
//! idle rows' `median_us` is the CPU time all threads used during 1 s of idleness (10,000 us =
//! 1% of a core) and their `p90_us` the largest of the tries. The round-trip rows' `p90_us` is
//! their 99th percentile.
//!
//! * `BLITZ_BENCH_THREADS=1,2,4` sets the thread counts (default `1,2`);
//! * `BLITZ_BENCH_BUDGET_MS=500` sets the time spent sampling each case (default 2000);
//! * `BLITZ_BENCH_ROUND_TRIPS=50` sets the tries per round-trip row (default 200);
//! * arguments that do not start with `-` keep only the workloads whose name contains one;
//! * `BLITZ_BENCH_REDRAW=path/to/results.csv` redraws `ratios.svg` and `results.md` from an
//!   earlier run without measuring.
//!
//! Each case: its result is checked against the sequential one (on a warm-up run), then it is
//! timed in samples until the budget is spent (at least 5, at most 51 samples). Cases shorter
//! than 1 ms run several times per sample. Inputs that a run consumes (the quicksort's array)
//! are prepared outside the timed region, the same way for every implementation.
//!
//! "blitz-dsl method" is the `#[parallel]` form written as a method (fib(35) and the tree
//! sums), to compare with the free fn; "blitz::join" is the same recursion through the
//! rayon-compatible `blitz::join`, which looks the worker up at every fork. "blitz-raw" is the
//! runtime API a DSL form stands for: `Worker::join` for the recursive workloads (for fib, with
//! the cutoff argument that rayon's and chili's forms carry too; "Worker::join" is fib written
//! exactly as the `#[parallel]` fn, without it), `blitz::join` for the two coarse tasks,
//! `reduce_pieces` for the slice sum and `map_reduce` for the sum of square roots. chili has only
//! `join`, so its loops halve the input by hand down to a fixed leaf.

mod common;
#[path = "suite/latency.rs"]
mod latency;
#[path = "suite/report.rs"]
mod report;

use std::collections::HashMap;
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use common::load::{foreign_load, ticks};
use common::*;
use latency::{idle_cpu, round_trip, wake_latency};
use report::{markdown, out_dir, read_csv, write_chart, write_csv};

const MIN_SAMPLES: usize = 5;
const MAX_SAMPLES: usize = 51;
/// Shorter runs are batched so one sample lasts at least this long (timer resolution).
const MIN_SAMPLE: Duration = Duration::from_millis(1);

const IMPLS: [&str; 4] = ["blitz-dsl", "blitz-raw", "rayon", "chili"];

struct Row {
    workload: String,
    implementation: String,
    threads: usize,
    median_us: f64,
    p90_us: f64,
    ratio: Option<f64>,
}

struct Suite {
    threads: Vec<usize>,
    filters: Vec<String>,
    budget: Duration,
    rows: Vec<Row>,
    /// Sequential medians, per workload.
    sequential: HashMap<String, f64>,
}

impl Suite {
    fn wants(&self, workload: &str) -> bool {
        self.filters.is_empty() || self.filters.iter().any(|f| workload.contains(f.as_str()))
    }

    /// Checks `run`'s result with `check` on a warm-up run, then times it; records a row.
    fn case<I, R>(
        &mut self,
        key: (&str, &str, usize),
        setup: impl FnMut() -> I,
        run: impl FnMut(I) -> R,
        check: impl Fn(&R) -> bool,
    ) {
        self.case_repeated(key, 1, setup, run, check);
    }

    /// Like [`case`](Self::case) for a `run` that does the workload `reps` times: the row
    /// records the time of one.
    fn case_repeated<I, R>(
        &mut self,
        (workload, implementation, threads): (&str, &str, usize),
        reps: usize,
        mut setup: impl FnMut() -> I,
        mut run: impl FnMut(I) -> R,
        check: impl Fn(&R) -> bool,
    ) {
        let input = setup();
        let start = Instant::now();
        let result = run(input);
        let once = start.elapsed();
        assert!(
            check(&result),
            "{workload}: {implementation} at {threads} threads disagrees with sequential"
        );
        drop(result);

        let batch = if once < MIN_SAMPLE {
            (MIN_SAMPLE.as_nanos() / once.as_nanos().max(1) + 1) as usize
        } else {
            1
        };
        let mut samples = Vec::new();
        let mut spent = Duration::ZERO;
        while samples.len() < MIN_SAMPLES || (spent < self.budget && samples.len() < MAX_SAMPLES) {
            let inputs: Vec<I> = (0..batch).map(|_| setup()).collect();
            let mut outputs = Vec::with_capacity(batch);
            let start = Instant::now();
            for input in inputs {
                outputs.push(run(black_box(input)));
            }
            let elapsed = start.elapsed();
            // Results are dropped outside the timed region.
            drop(black_box(outputs));
            spent += elapsed;
            samples.push(elapsed.as_secs_f64() * 1e6 / (batch * reps) as f64);
        }
        let (median_us, p90_us) = median_p90(&mut samples);
        let ratio = if implementation == "sequential" {
            self.sequential.insert(workload.to_string(), median_us);
            Some(1.0)
        } else {
            self.sequential.get(workload).map(|s| median_us / s)
        };
        self.push(Row {
            workload: workload.to_string(),
            implementation: implementation.to_string(),
            threads,
            median_us,
            p90_us,
            ratio,
        });
    }

    fn push(&mut self, row: Row) {
        // Round-trip rows hold their p99 where the others hold their p90.
        let tail = if row.workload.starts_with("round trip") {
            "p99"
        } else {
            "p90"
        };
        println!(
            "{:<28} {:<11} {:>2}  median {:>12}  {tail} {:>12}  {}",
            row.workload,
            row.implementation,
            row.threads,
            fmt_us(row.median_us),
            fmt_us(row.p90_us),
            row.ratio
                .map_or(String::new(), |r| format!("x{r:.3} of sequential")),
        );
        self.rows.push(row);
    }
}

/// Sorts `samples` and returns their median and 90th percentile.
fn median_p90(samples: &mut [f64]) -> (f64, f64) {
    samples.sort_by(f64::total_cmp);
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.9))
}

fn fmt_us(us: f64) -> String {
    if us >= 1e3 {
        format!("{:.2} ms", us / 1e3)
    } else {
        format!("{us:.2} us")
    }
}

// ---------------------------------------------------------------- workloads

/// The subtrees of `fib(n)`'s call tree `depth` levels down (or leaves, where it ends sooner),
/// dealt out largest first to whichever of two lists has fewer calls so far. Their `fib`s sum
/// to `fib(n)`.
fn fib_balanced_halves(n: u64, depth: u32) -> (Vec<u64>, Vec<u64>) {
    fn subtrees(n: u64, depth: u32, out: &mut Vec<u64>) {
        if depth == 0 || n < 2 {
            out.push(n);
        } else {
            subtrees(n - 1, depth - 1, out);
            subtrees(n - 2, depth - 1, out);
        }
    }
    // `fib_seq(m)` makes 2 * fib(m + 1) - 1 calls.
    let calls = |m: u64| {
        let (mut f, mut next) = (0u64, 1u64);
        for _ in 0..=m {
            (f, next) = (next, f + next);
        }
        2 * f - 1
    };
    let mut all = Vec::new();
    subtrees(n, depth, &mut all);
    all.sort_unstable_by(|a, b| b.cmp(a));
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let (mut calls_a, mut calls_b) = (0, 0);
    for m in all {
        if calls_a <= calls_b {
            calls_a += calls(m);
            a.push(m);
        } else {
            calls_b += calls(m);
            b.push(m);
        }
    }
    (a, b)
}

fn fib(suite: &mut Suite, cutoff: bool) {
    const N: u64 = 35;
    let workload = if cutoff {
        "fib(35) cutoff n<20"
    } else {
        "fib(35)"
    };
    if !suite.wants(workload) {
        return;
    }
    let want = fib_seq(N);
    let ok = move |r: &u64| *r == want;
    // The raw forms fork above the same cutoff the DSL form uses.
    let below = if cutoff { 20 } else { 0 };
    suite.case(
        (workload, "sequential", 1),
        || (),
        |()| fib_seq(black_box(N)),
        ok,
    );
    if !cutoff {
        // What the machine allows: the sequential function on two plain threads, the call tree
        // cut into its subtrees 12 levels down and dealt out so that both threads get the same
        // number of calls (to within a tenth of a percent). The gap between this row and 0.5 is
        // what running on both cores at once costs on this machine, not a scheduler's.
        let halves = fib_balanced_halves(N, 12);
        suite.case(
            (workload, "sequential halves on 2 std threads", 2),
            || halves.clone(),
            |(a, b): (Vec<u64>, Vec<u64>)| {
                std::thread::scope(|s| {
                    let l = s.spawn(|| a.iter().map(|&n| fib_seq(black_box(n))).sum::<u64>());
                    let r: u64 = b.iter().map(|&n| fib_seq(black_box(n))).sum();
                    l.join().unwrap() + r
                })
            },
            ok,
        );
    }
    for &t in &suite.threads.clone() {
        let pool = blitz_pool(t);
        if cutoff {
            let run = |()| pool.install(|| fib_dsl_cutoff(black_box(N)));
            suite.case((workload, "blitz-dsl", t), || (), run, ok);
        } else {
            let run = |()| pool.install(|| fib_dsl(black_box(N)));
            suite.case((workload, "blitz-dsl", t), || (), run, ok);
            let run = |()| pool.install(|| fib_dsl_method(black_box(N)));
            suite.case((workload, "blitz-dsl method", t), || (), run, ok);
            let run = |()| pool.install(|| fib_blitz_join(black_box(N)));
            suite.case((workload, "blitz::join", t), || (), run, ok);
            let run = |()| pool.install_with_worker(|w| fib_worker_join(w, black_box(N)));
            suite.case((workload, "Worker::join", t), || (), run, ok);
        }
        let run = |()| pool.install_with_worker(|w| fib_blitz(w, black_box(N), below));
        suite.case((workload, "blitz-raw", t), || (), run, ok);
        drop(pool);
        let pool = rayon_pool(t);
        let run = |()| pool.install(|| fib_rayon(black_box(N), below));
        suite.case((workload, "rayon", t), || (), run, ok);
        drop(pool);
        let pool = chili_pool(t);
        let run = |()| fib_chili(&mut pool.scope(), black_box(N), below);
        suite.case((workload, "chili", t), || (), run, ok);
    }
}

fn tree(suite: &mut Suite, n: usize, workload: &str) {
    if !suite.wants(workload) {
        return;
    }
    let root = make_tree(n, 0).unwrap();
    let root = &*root;
    let want = tree_expected(n);
    let ok = move |r: &u64| *r == want;
    suite.case(
        (workload, "sequential", 1),
        || (),
        |()| tree_seq(black_box(root)),
        ok,
    );
    if n >= 1_000_000 {
        // What the machine allows: the sequential code on the root's two subtrees, on two
        // plain threads, with no scheduler at all. This tree is too big for the caches, so two
        // cores share the memory bandwidth.
        let (left, right) = (
            root.left.as_deref().unwrap(),
            root.right.as_deref().unwrap(),
        );
        let halves = |()| {
            std::thread::scope(|s| {
                let l = s.spawn(|| tree_seq(black_box(left)));
                let r = tree_seq(black_box(right));
                root.value + l.join().unwrap() + r
            })
        };
        suite.case(
            (workload, "sequential halves on 2 std threads", 2),
            || (),
            halves,
            ok,
        );
    }
    for &t in &suite.threads.clone() {
        let pool = blitz_pool(t);
        let run = |()| pool.install(|| tree_dsl(black_box(root)));
        suite.case((workload, "blitz-dsl", t), || (), run, ok);
        let run = |()| pool.install(|| tree_dsl_method(black_box(root)));
        suite.case((workload, "blitz-dsl method", t), || (), run, ok);
        let run = |()| pool.install(|| tree_blitz_join(black_box(root)));
        suite.case((workload, "blitz::join", t), || (), run, ok);
        let run = |()| pool.install_with_worker(|w| tree_blitz(w, black_box(root)));
        suite.case((workload, "blitz-raw", t), || (), run, ok);
        drop(pool);
        let pool = rayon_pool(t);
        let run = |()| pool.install(|| tree_rayon(black_box(root)));
        suite.case((workload, "rayon", t), || (), run, ok);
        drop(pool);
        let pool = chili_pool(t);
        let run = |()| tree_chili(&mut pool.scope(), black_box(root));
        suite.case((workload, "chili", t), || (), run, ok);
    }
}

/// The same small tree summed many times inside one entry into each pool: the cost of the
/// joins themselves, without the round trip from the calling thread into the pool that every
/// call of the `tree` rows pays (a fine-grained recursion is normally called from code that
/// already runs in the pool). Sequential runs the same loop.
fn tree_in_pool(suite: &mut Suite, n: usize, workload: &str) {
    const REPS: usize = 1000;
    if !suite.wants(workload) {
        return;
    }
    let root = make_tree(n, 0).unwrap();
    let root = &*root;
    let want = tree_expected(n) * REPS as u64;
    let ok = move |r: &u64| *r == want;
    let reps = || 0..REPS;
    let seq = |()| reps().map(|_| tree_seq(black_box(root))).sum::<u64>();
    suite.case_repeated((workload, "sequential", 1), REPS, || (), seq, ok);
    for &t in &suite.threads.clone() {
        let pool = blitz_pool(t);
        let run = |()| pool.install(|| reps().map(|_| tree_dsl(black_box(root))).sum::<u64>());
        suite.case_repeated((workload, "blitz-dsl", t), REPS, || (), run, ok);
        let run = |()| {
            pool.install_with_worker(|w| {
                reps().map(|_| tree_blitz(w, black_box(root))).sum::<u64>()
            })
        };
        suite.case_repeated((workload, "blitz-raw", t), REPS, || (), run, ok);
        drop(pool);
        let pool = rayon_pool(t);
        let run = |()| pool.install(|| reps().map(|_| tree_rayon(black_box(root))).sum::<u64>());
        suite.case_repeated((workload, "rayon", t), REPS, || (), run, ok);
        drop(pool);
        let pool = chili_pool(t);
        let run = |()| {
            let mut scope = pool.scope();
            reps()
                .map(|_| tree_chili(&mut scope, black_box(root)))
                .sum::<u64>()
        };
        suite.case_repeated((workload, "chili", t), REPS, || (), run, ok);
    }
}

fn coarse(suite: &mut Suite) {
    let workload = "2 x 100 ms tasks";
    if !suite.wants(workload) {
        return;
    }
    let n = spin_iterations(100);
    let want = (spin(n, 1), spin(n, 2));
    let ok = move |r: &(u64, u64)| *r == want;
    let seq = |()| (spin(black_box(n), 1), spin(black_box(n), 2));
    suite.case((workload, "sequential", 1), || (), seq, ok);
    for &t in &suite.threads.clone() {
        let pool = blitz_pool(t);
        let run = |()| {
            pool.install(|| {
                let (a, b) = blitz::fork_join!(spin(black_box(n), 1), spin(black_box(n), 2));
                (a, b)
            })
        };
        suite.case((workload, "blitz-dsl", t), || (), run, ok);
        let run = |()| pool.install(|| blitz::join(|| spin(n, 1), || spin(n, 2)));
        suite.case((workload, "blitz-raw", t), || (), run, ok);
        drop(pool);
        let pool = rayon_pool(t);
        let run = |()| pool.install(|| rayon::join(|| spin(n, 1), || spin(n, 2)));
        suite.case((workload, "rayon", t), || (), run, ok);
        drop(pool);
        let pool = chili_pool(t);
        let run = |()| pool.scope().join(|_| spin(n, 1), |_| spin(n, 2));
        suite.case((workload, "chili", t), || (), run, ok);
    }
}

fn sum(suite: &mut Suite) {
    const N: usize = 100_000_000;
    let workload = "sum 100M u64";
    if !suite.wants(workload) {
        return;
    }
    let data = sum_data(N);
    let v = &data[..];
    let want = sum_seq(v);
    let ok = move |r: &u64| *r == want;
    suite.case(
        (workload, "sequential", 1),
        || (),
        |()| sum_seq(black_box(v)),
        ok,
    );
    for &t in &suite.threads.clone() {
        let pool = blitz_pool(t);
        let run = |()| pool.install(|| sum_dsl(black_box(v)));
        suite.case((workload, "blitz-dsl", t), || (), run, ok);
        let run = |()| pool.install(|| sum_blitz(black_box(v)));
        suite.case((workload, "blitz-raw", t), || (), run, ok);
        drop(pool);
        let pool = rayon_pool(t);
        let run = |()| pool.install(|| sum_rayon(black_box(v)));
        suite.case((workload, "rayon", t), || (), run, ok);
        drop(pool);
        let pool = chili_pool(t);
        let run = |()| sum_chili(&mut pool.scope(), black_box(v));
        suite.case((workload, "chili", t), || (), run, ok);
    }
}

fn sqrt(suite: &mut Suite) {
    const N: u64 = 100_000_000;
    let workload = "sum sqrt 100M";
    if !suite.wants(workload) {
        return;
    }
    let want = sqrt_seq(N);
    let ok = move |r: &f64| close(*r, want);
    suite.case(
        (workload, "sequential", 1),
        || (),
        |()| sqrt_seq(black_box(N)),
        ok,
    );
    for &t in &suite.threads.clone() {
        let pool = blitz_pool(t);
        let run = |()| pool.install(|| sqrt_dsl(black_box(N)));
        suite.case((workload, "blitz-dsl", t), || (), run, ok);
        let run = |()| pool.install(|| sqrt_blitz(black_box(N)));
        suite.case((workload, "blitz-raw", t), || (), run, ok);
        drop(pool);
        let pool = rayon_pool(t);
        let run = |()| pool.install(|| sqrt_rayon(black_box(N)));
        suite.case((workload, "rayon", t), || (), run, ok);
        drop(pool);
        let pool = chili_pool(t);
        let run = |()| sqrt_chili(&mut pool.scope(), 0, black_box(N));
        suite.case((workload, "chili", t), || (), run, ok);
    }
}

/// `parallel_levels(threads)`: how many top levels of the parallel sorts partition in parallel.
fn quicksort(suite: &mut Suite, workload: &str, parallel_levels: fn(usize) -> u32) {
    const N: usize = 10_000_000;
    if !suite.wants(workload) {
        return;
    }
    let input = sort_input(N);
    let mut want = input.clone();
    want.sort_unstable();
    let ok = |r: &Vec<u64>| *r == want;
    // Every implementation gets a fresh copy of the same input, made outside the timed region.
    let setup = || input.clone();
    let seq = |mut v: Vec<u64>| {
        qsort_seq(&mut v);
        v
    };
    suite.case((workload, "sequential", 1), setup, seq, ok);
    for &t in &suite.threads.clone() {
        let levels = parallel_levels(t);
        let pool = blitz_pool(t);
        let run = |mut v: Vec<u64>| {
            pool.install(|| qsort_dsl::sort(&mut v, levels));
            v
        };
        suite.case((workload, "blitz-dsl", t), setup, run, ok);
        let run = |mut v: Vec<u64>| {
            pool.install_with_worker(|w| qsort_blitz::sort(w, &mut v, levels));
            v
        };
        suite.case((workload, "blitz-raw", t), setup, run, ok);
        drop(pool);
        let pool = rayon_pool(t);
        let run = |mut v: Vec<u64>| {
            pool.install(|| qsort_rayon::sort(&mut v, levels));
            v
        };
        suite.case((workload, "rayon", t), setup, run, ok);
        drop(pool);
        let pool = chili_pool(t);
        let run = |mut v: Vec<u64>| {
            qsort_chili::sort(&mut pool.scope(), &mut v, levels);
            v
        };
        suite.case((workload, "chili", t), setup, run, ok);
    }
}

fn matmul(suite: &mut Suite) {
    const N: usize = 512;
    let workload = "matmul 512";
    if !suite.wants(workload) {
        return;
    }
    let (a, b) = matrices(N);
    let (a, b) = (&a[..], &b[..]);
    let mut want = vec![0.0; N * N];
    matmul_seq(a, b, &mut want, N);
    let ok = |r: &Vec<f64>| *r == want;
    // The output buffer is allocated (and its pages touched) outside the timed region.
    let setup = || vec![0.0f64; N * N];
    let seq = |mut c: Vec<f64>| {
        matmul_seq(a, b, &mut c, N);
        c
    };
    suite.case((workload, "sequential", 1), setup, seq, ok);
    for &t in &suite.threads.clone() {
        let pool = blitz_pool(t);
        let run = |mut c: Vec<f64>| {
            pool.install(|| matmul_dsl(a, b, &mut c, N));
            c
        };
        suite.case((workload, "blitz-dsl", t), setup, run, ok);
        drop(pool);
        let pool = rayon_pool(t);
        let run = |mut c: Vec<f64>| {
            pool.install(|| matmul_rayon(a, b, &mut c, N));
            c
        };
        suite.case((workload, "rayon", t), setup, run, ok);
        drop(pool);
        let pool = chili_pool(t);
        let run = |mut c: Vec<f64>| {
            matmul_chili(&mut pool.scope(), (a, b, N), &mut c, 0);
            c
        };
        suite.case((workload, "chili", t), setup, run, ok);
    }
}

fn main() {
    // Redraw the chart and tables from an earlier CSV, measuring nothing.
    if let Some(csv) = std::env::var_os("BLITZ_BENCH_REDRAW") {
        let rows = read_csv(Path::new(&csv));
        let mut threads: Vec<usize> = rows
            .iter()
            .filter(|r| r.implementation != "sequential")
            .map(|r| r.threads)
            .collect();
        threads.sort_unstable();
        threads.dedup();
        let dir = out_dir();
        std::fs::create_dir_all(&dir).expect("create the output directory");
        std::fs::write(dir.join("results.md"), markdown(&rows, &threads)).expect("results.md");
        write_chart(&rows, &threads, &dir.join("ratios.svg")).expect("draw ratios.svg");
        println!(
            "redrew {} from {}",
            dir.display(),
            Path::new(&csv).display()
        );
        return;
    }
    let threads: Vec<usize> = std::env::var("BLITZ_BENCH_THREADS")
        .unwrap_or_else(|_| "1,2".into())
        .split(',')
        .map(|t| {
            t.trim()
                .parse()
                .expect("BLITZ_BENCH_THREADS: comma-separated counts")
        })
        .collect();
    let budget_ms: u64 = std::env::var("BLITZ_BENCH_BUDGET_MS").map_or(2000, |b| {
        b.parse().expect("BLITZ_BENCH_BUDGET_MS: a number")
    });
    let filters = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let mut suite = Suite {
        threads: threads.clone(),
        filters,
        budget: Duration::from_millis(budget_ms),
        rows: Vec::new(),
        sequential: HashMap::new(),
    };
    let started = Instant::now();
    let ticks_before = ticks();

    // Idle CPU and wake latency first, while no other pool or big allocation exists.
    idle_cpu(&mut suite);
    wake_latency(&mut suite);
    round_trip(&mut suite);
    fib(&mut suite, false);
    fib(&mut suite, true);
    tree(&mut suite, 1023, "tree sum 1023");
    tree_in_pool(&mut suite, 1023, "tree sum 1023 in pool");
    tree(&mut suite, 10_000_000, "tree sum 10M");
    coarse(&mut suite);
    sum(&mut suite);
    sqrt(&mut suite);
    quicksort(&mut suite, "quicksort 10M u64", parallel_partition_levels);
    // The same sorts with every partition sequential: the first one bounds the speedup.
    quicksort(
        &mut suite,
        "quicksort 10M u64, sequential partitions",
        |_| 0,
    );
    matmul(&mut suite);

    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let foreign = foreign_load(ticks_before, ticks(), cpus);
    let dir = out_dir();
    std::fs::create_dir_all(&dir).expect("create the output directory");
    let csv = dir.join("results.csv");
    write_csv(&suite.rows, &csv).expect("write results.csv");
    let md = format!(
        "{}\nOther processes used {foreign:.2} of the {cpus} CPUs on average during the run.\n",
        markdown(&suite.rows, &threads)
    );
    std::fs::write(dir.join("results.md"), &md).expect("write results.md");
    println!("\n{md}");
    let svg = dir.join("ratios.svg");
    write_chart(&suite.rows, &threads, &svg).expect("draw ratios.svg");
    println!(
        "\n{} cases in {:.0} s on {cpus} logical CPUs; other processes used {foreign:.2} CPUs \
         on average meanwhile; wrote {} and {}",
        suite.rows.len(),
        started.elapsed().as_secs_f64(),
        csv.display(),
        svg.display()
    );
}
