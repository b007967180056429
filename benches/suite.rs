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

use std::collections::HashMap;
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::load::{foreign_load, ticks};
use common::*;
use plotters::prelude::*;

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

// ---------------------------------------------------------------- idle CPU and wake latency

/// CPU time of every live thread of this process, in ns, by thread id: the first field of
/// `/proc/self/task/<tid>/schedstat` (ns resolution, unlike the 10 ms ticks of `/proc/self/stat`;
/// no dependency needed).
fn thread_cpu_ns() -> HashMap<String, u64> {
    let mut out = HashMap::new();
    for entry in std::fs::read_dir("/proc/self/task").expect("/proc/self/task") {
        let entry = entry.expect("task entry");
        let tid = entry.file_name().to_string_lossy().into_owned();
        // A thread may exit between the listing and the read: skip it.
        if let Ok(text) = std::fs::read_to_string(entry.path().join("schedstat"))
            && let Some(ns) = text.split_whitespace().next().and_then(|f| f.parse().ok())
        {
            out.insert(tid, ns);
        }
    }
    out
}

/// CPU time (all threads) spent while `f` runs, in µs. Threads alive at the start and the end
/// count their difference; threads born in between count in full.
fn cpu_us_during(f: impl FnOnce()) -> f64 {
    let before = thread_cpu_ns();
    f();
    let after = thread_cpu_ns();
    let ns: u64 = after
        .iter()
        .map(|(tid, &end)| end.saturating_sub(before.get(tid).copied().unwrap_or(0)))
        .sum();
    ns as f64 / 1e3
}

const IDLE: Duration = Duration::from_secs(1);
const IDLE_TRIES: usize = 3;

fn idle_cpu(suite: &mut Suite) {
    let workload = "idle CPU 1 s";
    if !suite.wants(workload) {
        return;
    }
    // One job (a fork at every call, so every worker gets busy), then 1 s without work.
    const JOB: u64 = 25;
    for &t in &suite.threads.clone() {
        let mut measure = |implementation: &str, job: &dyn Fn() -> u64| {
            let mut samples: Vec<f64> = (0..IDLE_TRIES)
                .map(|_| {
                    assert_eq!(job(), fib_seq(JOB));
                    cpu_us_during(|| std::thread::sleep(IDLE))
                })
                .collect();
            let (median_us, _) = median_p90(&mut samples);
            let max_us = samples[samples.len() - 1];
            suite.push(Row {
                workload: workload.to_string(),
                implementation: implementation.to_string(),
                threads: t,
                median_us,
                p90_us: max_us,
                ratio: None,
            });
        };
        let pool = blitz_pool(t);
        measure("blitz", &|| {
            pool.install_with_worker(|w| fib_blitz(w, JOB, 0))
        });
        drop(pool);
        let pool = rayon_pool(t);
        measure("rayon", &|| pool.install(|| fib_rayon(JOB, 0)));
        drop(pool);
        let pool = chili_pool(t);
        measure("chili", &|| fib_chili(&mut pool.scope(), JOB, 0));
    }
}

const WAKE_TRIES: usize = 100;
const WAKE_IDLE: Duration = Duration::from_millis(100);
/// How long the forking side waits for the other side to start elsewhere before giving up.
const FORK_WAIT: Duration = Duration::from_millis(100);

fn wake_row(
    suite: &mut Suite,
    workload: &str,
    implementation: &str,
    t: usize,
    f: impl Fn() -> Duration,
) {
    let mut samples: Vec<f64> = (0..WAKE_TRIES)
        .map(|_| {
            std::thread::sleep(WAKE_IDLE);
            f().as_secs_f64() * 1e6
        })
        .collect();
    let (median_us, p90_us) = median_p90(&mut samples);
    suite.push(Row {
        workload: workload.to_string(),
        implementation: implementation.to_string(),
        threads: t,
        median_us,
        p90_us,
        ratio: None,
    });
}

/// The forking side of a fork-to-steal probe: wait (bounded) until the other side has started.
fn wait_for(flag: &AtomicBool, since: Instant) {
    while !flag.load(Ordering::Acquire) && since.elapsed() < FORK_WAIT {
        std::hint::spin_loop();
    }
}

fn wake_latency(suite: &mut Suite) {
    // From outside the pool: the time from submitting a tiny job to its start on a worker.
    let workload = "wake: submit->start";
    if suite.wants(workload) {
        for &t in &suite.threads.clone() {
            let pool = blitz_pool(t);
            wake_row(suite, workload, "blitz", t, || {
                let submitted = Instant::now();
                pool.install(Instant::now) - submitted
            });
            drop(pool);
            let pool = rayon_pool(t);
            wake_row(suite, workload, "rayon", t, || {
                let submitted = Instant::now();
                pool.install(Instant::now) - submitted
            });
        }
    }
    // chili cannot take a job from outside (its scope runs on the caller), so the comparable
    // probe is a fork on an idle pool: the time until the other side starts on another thread.
    // The forking side spins until then, so the latency includes waking a sleeping worker.
    let workload = "wake: fork->steal";
    if suite.wants(workload) {
        for &t in suite.threads.clone().iter().filter(|&&t| t >= 2) {
            let pool = blitz_pool(t);
            wake_row(suite, workload, "blitz", t, || {
                pool.install_with_worker(|w| {
                    let started = AtomicBool::new(false);
                    let forked = Instant::now();
                    let (_, stolen) = w.join(
                        |_| wait_for(&started, forked),
                        |_| {
                            started.store(true, Ordering::Release);
                            Instant::now()
                        },
                    );
                    stolen - forked
                })
            });
            drop(pool);
            let pool = rayon_pool(t);
            wake_row(suite, workload, "rayon", t, || {
                pool.install(|| {
                    let started = AtomicBool::new(false);
                    let forked = Instant::now();
                    let (_, stolen) = rayon::join(
                        || wait_for(&started, forked),
                        || {
                            started.store(true, Ordering::Release);
                            Instant::now()
                        },
                    );
                    stolen - forked
                })
            });
            drop(pool);
            let pool = chili_pool(t);
            wake_row(suite, workload, "chili", t, || {
                let started = AtomicBool::new(false);
                let forked = Instant::now();
                let (_, stolen) = pool.scope().join(
                    |_| wait_for(&started, forked),
                    |_| {
                        started.store(true, Ordering::Release);
                        Instant::now()
                    },
                );
                stolen - forked
            });
        }
    }
}

// ---------------------------------------------------------------- round trip from outside

/// Tries per round-trip row (`BLITZ_BENCH_ROUND_TRIPS` overrides it): with 200, the p99 is the
/// third largest.
const ROUND_TRIP_TRIES: usize = 200;
/// The idle periods before each try, and their names in the rows.
const ROUND_TRIP_IDLES: [(Duration, &str); 4] = [
    (Duration::ZERO, "0"),
    (Duration::from_millis(1), "1 ms"),
    (Duration::from_millis(10), "10 ms"),
    (Duration::from_millis(100), "100 ms"),
];
/// The short job's length, and the idle periods it runs after.
const SHORT_JOB_US: u64 = 10;
const SHORT_JOB_IDLES: [(Duration, &str); 2] = [
    (Duration::ZERO, "0"),
    (Duration::from_millis(100), "100 ms"),
];

fn round_trip_tries() -> usize {
    std::env::var("BLITZ_BENCH_ROUND_TRIPS").map_or(ROUND_TRIP_TRIES, |n| {
        n.parse().expect("BLITZ_BENCH_ROUND_TRIPS: a number")
    })
}

/// One round-trip row: `run` is called from this (outside) thread after `idle` without work,
/// `tries` times; the row holds the median and, in its `p90_us` field, the p99 of the time from
/// the call to its return. Every result is checked with `check`, outside the timed region. With
/// no idle period the calls follow each other back to back (after one untimed call).
fn round_trip_row<R>(
    suite: &mut Suite,
    (workload, implementation, threads): (&str, &str, usize),
    idle: Duration,
    run: impl Fn() -> R,
    check: impl Fn(&R) -> bool,
) {
    let tries = round_trip_tries();
    assert!(
        check(&run()),
        "{workload}: {implementation} at {threads} threads returned a wrong result"
    );
    let mut samples: Vec<f64> = (0..tries)
        .map(|_| {
            if !idle.is_zero() {
                std::thread::sleep(idle);
            }
            let start = Instant::now();
            let result = run();
            let elapsed = start.elapsed();
            assert!(
                check(&result),
                "{workload}: {implementation} at {threads} threads returned a wrong result"
            );
            elapsed.as_secs_f64() * 1e6
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    suite.push(Row {
        workload: workload.to_string(),
        implementation: implementation.to_string(),
        threads,
        median_us: at(0.5),
        p90_us: at(0.99),
        ratio: None,
    });
}

/// The round trip of a caller outside the pool: from the call that runs a closure in the pool
/// to its return, after the pool idled for a while, for a trivial closure and for a short job.
/// blitz and rayon: `pool.install(f)`, where `f` runs on a worker (checked: it sees a worker
/// index). chili runs `f` on the calling thread, in `f(&mut pool.scope())`, which is what a
/// chili user writes: it wakes nobody.
fn round_trip(suite: &mut Suite) {
    // What runs in the chili scope: the same as the closures given to `install` below.
    fn trivial(_: &mut chili::Scope<'_>) -> u32 {
        black_box(1)
    }
    fn short_job(_: &mut chili::Scope<'_>, n: u64) -> u64 {
        spin(black_box(n), 7)
    }
    let n = spin_iterations_us(SHORT_JOB_US);
    let want = spin(n, 7);
    for &t in &suite.threads.clone() {
        for (idle, label) in ROUND_TRIP_IDLES {
            let workload = format!("round trip, idle {label}");
            if !suite.wants(&workload) {
                continue;
            }
            let key = |i| (workload.as_str(), i, t);
            let pool = blitz_pool(t);
            let on_worker = |i: &Option<usize>| i.is_some_and(|i| i < t);
            let run = || pool.install(blitz::current_thread_index);
            round_trip_row(suite, key("blitz"), idle, run, on_worker);
            drop(pool);
            let pool = rayon_pool(t);
            let run = || pool.install(rayon::current_thread_index);
            round_trip_row(suite, key("rayon"), idle, run, on_worker);
            drop(pool);
            let pool = chili_pool(t);
            let run = || trivial(&mut pool.scope());
            round_trip_row(suite, key("chili"), idle, run, |&r| r == 1);
        }
        for (idle, label) in SHORT_JOB_IDLES {
            let workload = format!("round trip, {SHORT_JOB_US} us job, idle {label}");
            if !suite.wants(&workload) {
                continue;
            }
            let key = |i| (workload.as_str(), i, t);
            let ok = |r: &u64| *r == want;
            let pool = blitz_pool(t);
            let run = || pool.install(|| spin(black_box(n), 7));
            round_trip_row(suite, key("blitz"), idle, run, ok);
            drop(pool);
            let pool = rayon_pool(t);
            let run = || pool.install(|| spin(black_box(n), 7));
            round_trip_row(suite, key("rayon"), idle, run, ok);
            drop(pool);
            let pool = chili_pool(t);
            let run = || short_job(&mut pool.scope(), n);
            round_trip_row(suite, key("chili"), idle, run, ok);
        }
    }
}

// ---------------------------------------------------------------- output

fn out_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    target.join("blitz-bench")
}

fn write_csv(rows: &[Row], path: &Path) -> std::io::Result<()> {
    let mut csv =
        String::from("workload,implementation,threads,median_us,p90_us,ratio_to_sequential\n");
    for r in rows {
        let ratio = r.ratio.map_or(String::new(), |x| format!("{x:.4}"));
        writeln!(
            csv,
            "{},{},{},{:.3},{:.3},{}",
            r.workload, r.implementation, r.threads, r.median_us, r.p90_us, ratio
        )
        .unwrap();
    }
    std::fs::write(path, csv)
}

/// The results as two Markdown tables (the README's): time and ratio to sequential per workload
/// and implementation; then idle CPU and wake latency per pool.
fn markdown(rows: &[Row], threads: &[usize]) -> String {
    let find = |w: &str, i: &str, t: usize| {
        rows.iter()
            .find(|r| r.workload == w && r.implementation == i && r.threads == t)
    };
    let mut workloads: Vec<&str> = Vec::new();
    let mut probes: Vec<(&str, &str)> = Vec::new();
    for r in rows {
        if r.ratio.is_some() {
            if !workloads.contains(&r.workload.as_str()) {
                workloads.push(&r.workload);
            }
        } else if !probes.contains(&(r.workload.as_str(), r.implementation.as_str())) {
            probes.push((&r.workload, &r.implementation));
        }
    }
    let mut md = String::new();
    if !workloads.is_empty() {
        md.push_str("| workload | sequential |");
        for i in IMPLS {
            for t in threads {
                write!(md, " {i} {t}T |").unwrap();
            }
        }
        md.push_str("\n|---|---:|");
        md.push_str(&"---:|".repeat(IMPLS.len() * threads.len()));
        md.push('\n');
        for w in &workloads {
            let seq = find(w, "sequential", 1).map_or("-".into(), |r| fmt_us(r.median_us));
            write!(md, "| {w} | {seq} |").unwrap();
            for i in IMPLS {
                for &t in threads {
                    match find(w, i, t) {
                        Some(r) => write!(
                            md,
                            " {} (x{:.2}) |",
                            fmt_us(r.median_us),
                            r.ratio.unwrap_or(f64::NAN)
                        )
                        .unwrap(),
                        None => md.push_str(" - |"),
                    }
                }
            }
            md.push('\n');
        }
    }
    let references: Vec<&Row> = rows
        .iter()
        .filter(|r| {
            r.ratio.is_some()
                && r.implementation != "sequential"
                && !IMPLS.contains(&r.implementation.as_str())
        })
        .collect();
    if !references.is_empty() {
        md.push_str("\n| reference | what | threads | median |\n|---|---|---:|---:|\n");
        for r in references {
            writeln!(
                md,
                "| {} | {} | {} | {} (x{:.2}) |",
                r.workload,
                r.implementation,
                r.threads,
                fmt_us(r.median_us),
                r.ratio.unwrap_or(f64::NAN)
            )
            .unwrap();
        }
    }
    if !probes.is_empty() {
        md.push_str("\n| probe | pool |");
        for t in threads {
            write!(md, " {t}T |").unwrap();
        }
        md.push_str("\n|---|---|");
        md.push_str(&"---:|".repeat(threads.len()));
        md.push('\n');
        for (w, i) in &probes {
            write!(md, "| {w} | {i} |").unwrap();
            for &t in threads {
                match find(w, i, t) {
                    // Idle rows hold the CPU time used in 1 s: as a share of one core.
                    Some(r) if r.workload.starts_with("idle") => write!(
                        md,
                        " {:.3}% of a core (max {:.3}%) |",
                        r.median_us / 1e4,
                        r.p90_us / 1e4
                    )
                    .unwrap(),
                    // Round-trip rows hold their p99 where the others hold their p90.
                    Some(r) if r.workload.starts_with("round trip") => write!(
                        md,
                        " median {}, p99 {} |",
                        fmt_us(r.median_us),
                        fmt_us(r.p90_us)
                    )
                    .unwrap(),
                    Some(r) => write!(
                        md,
                        " median {}, p90 {} |",
                        fmt_us(r.median_us),
                        fmt_us(r.p90_us)
                    )
                    .unwrap(),
                    None => md.push_str(" - |"),
                }
            }
            md.push('\n');
        }
    }
    md
}

/// Ticks for the log axis: 1, 2, 5 per decade, plus quarters below 1 where the faster-than-
/// sequential bars end (plotters' own log ticks skip that region).
fn y_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let mut ticks = vec![0.25, 0.5, 0.75];
    let mut decade = 1.0;
    while decade <= hi {
        ticks.extend([decade, 2.0 * decade, 5.0 * decade]);
        decade *= 10.0;
    }
    let mut small = 0.1;
    while small >= lo {
        ticks.extend(
            [small, small * 2.0, small * 5.0]
                .iter()
                .filter(|&&t| t < 0.25),
        );
        small /= 10.0;
    }
    ticks.retain(|&t| t >= lo && t <= hi);
    ticks
}

fn impl_color(implementation: &str) -> RGBColor {
    match implementation {
        "blitz-dsl" => RGBColor(200, 30, 30),
        "blitz-raw" => RGBColor(240, 140, 20),
        "rayon" => RGBColor(30, 90, 200),
        _ => RGBColor(30, 150, 60),
    }
}

/// A grouped bar chart: one group per workload, one bar per (implementation, threads), height
/// = time relative to sequential on a log axis (1 = as fast as sequential).
fn write_chart(
    rows: &[Row],
    threads: &[usize],
    path: &Path,
) -> Result<(), Box<dyn std::error::Error>> {
    let ratio_rows: Vec<&Row> = rows
        .iter()
        .filter(|r| r.ratio.is_some() && r.implementation != "sequential")
        .collect();
    let mut workloads: Vec<&str> = Vec::new();
    for r in &ratio_rows {
        if !workloads.contains(&r.workload.as_str()) {
            workloads.push(&r.workload);
        }
    }
    if workloads.is_empty() {
        return Ok(());
    }
    let series: Vec<(&str, usize)> = IMPLS
        .iter()
        .flat_map(|&i| threads.iter().map(move |&t| (i, t)))
        .filter(|&(i, t)| {
            ratio_rows
                .iter()
                .any(|r| r.implementation == i && r.threads == t)
        })
        .collect();
    let ratio_of = |w: &str, i: &str, t: usize| {
        ratio_rows
            .iter()
            .find(|r| r.workload == w && r.implementation == i && r.threads == t)
            .and_then(|r| r.ratio)
    };
    let (lo, hi) = ratio_rows
        .iter()
        .filter_map(|r| r.ratio)
        .fold((1.0f64, 1.0f64), |(lo, hi), x| (lo.min(x), hi.max(x)));
    let (lo, hi) = (lo / 1.5, hi * 1.5);

    let root = SVGBackend::new(path, (1600, 760)).into_drawing_area();
    root.fill(&WHITE)?;
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let root = root.titled(
        &format!(
            "Blitz vs rayon vs chili: median time relative to sequential, lower is better \
             ({cpus} logical CPUs)"
        ),
        ("sans-serif", 24),
    )?;
    // The legend gets its own column so it never hides a bar.
    let (plot, legend) = root.split_horizontally(1370);
    // x in thousandths of a group (plotters' f64 axis cannot take a label formatter with key
    // points); one tick, labelled with the workload, at the middle of each group.
    const UNIT: i32 = 1000;
    let groups = workloads.len() as i32;
    let x = (0..groups * UNIT).with_key_points((0..groups).map(|g| g * UNIT + UNIT / 2).collect());
    let mut chart = ChartBuilder::on(&plot)
        .margin(20)
        .x_label_area_size(50)
        .y_label_area_size(90)
        .build_cartesian_2d(x, (lo..hi).log_scale().with_key_points(y_ticks(lo, hi)))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .max_light_lines(1)
        .x_desc("workload")
        .y_desc("median time / sequential median time (log scale)")
        .x_label_formatter(&|v| {
            let g = (*v / UNIT) as usize;
            workloads.get(g).map_or(String::new(), |w| w.to_string())
        })
        .y_label_formatter(&|v| format!("{v}"))
        .axis_desc_style(("sans-serif", 18))
        .label_style(("sans-serif", 14))
        .draw()?;

    let width = UNIT * 84 / 100 / series.len() as i32;
    let mut key = ChartBuilder::on(&legend)
        .margin(20)
        .build_cartesian_2d(0..1, 0..1)?;
    for (k, &(implementation, t)) in series.iter().enumerate() {
        // The most threads get the full colour; fewer, a lighter shade of it.
        let rank = threads.iter().position(|&x| x == t).unwrap_or(0) + 1;
        let color = impl_color(implementation).mix(0.3 + 0.7 * rank as f64 / threads.len() as f64);
        let bars: Vec<_> = workloads
            .iter()
            .enumerate()
            .filter_map(|(g, w)| ratio_of(w, implementation, t).map(|r| (g, r)))
            .map(|(g, r)| {
                let x0 = g as i32 * UNIT + UNIT * 8 / 100 + k as i32 * width;
                Rectangle::new([(x0, lo), (x0 + width * 9 / 10, r)], color.filled())
            })
            .collect();
        chart.draw_series(bars)?;
        let plural = if t == 1 { "" } else { "s" };
        key.draw_series(std::iter::empty::<Rectangle<(i32, i32)>>())?
            .label(format!("{implementation}, {t} thread{plural}"))
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 14, y + 6)], color.filled()));
    }
    chart.draw_series(std::iter::once(PathElement::new(
        vec![(0, 1.0), (groups * UNIT, 1.0)],
        BLACK.stroke_width(2),
    )))?;
    key.draw_series(std::iter::empty::<Rectangle<(i32, i32)>>())?
        .label("sequential (= 1)")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 14, y)], BLACK.stroke_width(2)));
    key.configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE)
        .border_style(BLACK)
        .label_font(("sans-serif", 15))
        .draw()?;
    root.present()?;
    Ok(())
}

/// Rows read back from a `results.csv` this suite wrote.
fn read_csv(path: &Path) -> Vec<Row> {
    let text = std::fs::read_to_string(path).expect("read the CSV to redraw");
    text.lines()
        .skip(1)
        .filter(|line| !line.is_empty())
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            assert_eq!(f.len(), 6, "not a results.csv line: {line}");
            Row {
                workload: f[0].to_string(),
                implementation: f[1].to_string(),
                threads: f[2].parse().expect("threads"),
                median_us: f[3].parse().expect("median_us"),
                p90_us: f[4].parse().expect("p90_us"),
                ratio: f[5].parse().ok(),
            }
        })
        .collect()
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
