//! Blitz's main job: each DSL form on a real workload at the default thread count, checked
//! against the sequential version, with a table of timings.
//!
//! `cargo run --release --example showcase` (`BLITZ_NUM_THREADS=n` to choose the thread count).
//!
//! | form                  | workload                                                  |
//! |-----------------------|-----------------------------------------------------------|
//! | `#[parallel]`         | sum of a 10M-node binary tree, a fork at every node      |
//! | `#[parallel(cutoff)]` | the same sum, forking only in the top 12 levels           |
//! | `fork_join!`          | quicksort of 10M `u64`                                    |
//! | `par_for!` + reduce   | sum of `sqrt(i)` for `i` below 100M                       |
//! | `par_for!` over `&mut`| escape times of 1M points of the Mandelbrot set, in place |

use std::hint::black_box;
use std::time::{Duration, Instant};

// ---------------------------------------------------------------- #[parallel]: tree sum

struct Node {
    value: u64,
    left: Option<Box<Node>>,
    right: Option<Box<Node>>,
}

/// A balanced tree of exactly `n` nodes holding `first..first + n`.
fn make_tree(n: usize, first: u64) -> Option<Box<Node>> {
    if n == 0 {
        return None;
    }
    let left = (n - 1) / 2;
    Some(Box::new(Node {
        value: first,
        left: make_tree(left, first + 1),
        right: make_tree(n - 1 - left, first + 1 + left as u64),
    }))
}

fn tree_sum_seq(node: &Node) -> u64 {
    let l = if let Some(n) = node.left.as_deref() {
        tree_sum_seq(n)
    } else {
        0
    };
    let r = if let Some(n) = node.right.as_deref() {
        tree_sum_seq(n)
    } else {
        0
    };
    node.value + l + r
}

/// The same body: the two statements each recurse and neither uses the other's binding, so
/// they fork.
#[blitz::parallel]
fn tree_sum(node: &Node) -> u64 {
    let l = if let Some(n) = node.left.as_deref() {
        tree_sum(n)
    } else {
        0
    };
    let r = if let Some(n) = node.right.as_deref() {
        tree_sum(n)
    } else {
        0
    };
    node.value + l + r
}

/// Below depth 12 (4096 subtrees), a fork-free clone of the body runs.
#[blitz::parallel(cutoff = depth >= 12)]
fn tree_sum_cutoff(node: &Node, depth: u32) -> u64 {
    let l = if let Some(n) = node.left.as_deref() {
        tree_sum_cutoff(n, depth + 1)
    } else {
        0
    };
    let r = if let Some(n) = node.right.as_deref() {
        tree_sum_cutoff(n, depth + 1)
    } else {
        0
    };
    node.value + l + r
}

// ---------------------------------------------------------------- fork_join!: quicksort

fn quicksort_seq(v: &mut [u64]) {
    if v.len() <= 1024 {
        v.sort_unstable();
        return;
    }
    let mid = partition(v);
    let (lo, hi) = v.split_at_mut(mid);
    quicksort_seq(lo);
    quicksort_seq(&mut hi[1..]);
}

fn quicksort(v: &mut [u64]) {
    if v.len() <= 1024 {
        v.sort_unstable();
        return;
    }
    let mid = partition(v);
    let (lo, hi) = v.split_at_mut(mid);
    blitz::fork_join!(quicksort(lo), quicksort(&mut hi[1..]));
}

/// Lomuto partition around the median of three; returns the pivot's final index.
fn partition(v: &mut [u64]) -> usize {
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
    let mut store = 0;
    for i in 0..last {
        if v[i] <= v[last] {
            v.swap(i, store);
            store += 1;
        }
    }
    v.swap(store, last);
    store
}

/// xorshift64 values.
fn random(len: usize) -> Vec<u64> {
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

// ---------------------------------------------------------------- par_for! reduce: sum of sqrt

fn sqrt_sum_seq(n: u64) -> f64 {
    let mut acc = 0.0;
    for i in 0..n {
        acc += (i as f64).sqrt();
    }
    acc
}

fn sqrt_sum(n: u64) -> f64 {
    let mut acc = 0.0;
    blitz::par_for!(i in 0..n, reduce(+: acc) => acc += (i as f64).sqrt());
    acc
}

// ---------------------------------------------------------------- par_for! over &mut: Mandelbrot

const MAX_ITER: u32 = 500;

#[derive(Clone, PartialEq, Debug)]
struct Point {
    c: (f64, f64),
    escape: u32,
}

fn grid(side: usize) -> Vec<Point> {
    (0..side * side)
        .map(|i| Point {
            c: (
                -2.0 + 2.6 * (i % side) as f64 / side as f64,
                -1.3 + 2.6 * (i / side) as f64 / side as f64,
            ),
            escape: 0,
        })
        .collect()
}

fn escape_time((cx, cy): (f64, f64)) -> u32 {
    let (mut x, mut y) = (0.0f64, 0.0f64);
    let mut i = 0;
    while i < MAX_ITER && x * x + y * y <= 4.0 {
        let t = x * x - y * y + cx;
        y = 2.0 * x * y + cy;
        x = t;
        i += 1;
    }
    i
}

fn mandelbrot_seq(points: &mut [Point]) {
    for p in points {
        p.escape = escape_time(p.c);
    }
}

fn mandelbrot(points: &mut [Point]) {
    blitz::par_for!(p in points => p.escape = escape_time(p.c));
}

// ---------------------------------------------------------------- timing

const RUNS: usize = 3;

/// The median of `RUNS` timings of `run`, each on a fresh `setup()` made outside the timing,
/// and the last result.
fn time<I, R>(mut setup: impl FnMut() -> I, mut run: impl FnMut(I) -> R) -> (Duration, R) {
    let mut times = Vec::new();
    let mut result = None;
    // One untimed warm-up run (caches, page faults, waking the pool), then RUNS timed ones.
    black_box(run(setup()));
    for _ in 0..RUNS {
        let input = setup();
        let start = Instant::now();
        // black_box: the optimiser must neither skip nor hoist the work out of the timing.
        let r = black_box(run(black_box(input)));
        times.push(start.elapsed());
        result = Some(r);
    }
    times.sort();
    (times[RUNS / 2], result.expect("RUNS > 0"))
}

struct Row {
    form: &'static str,
    workload: &'static str,
    sequential: Duration,
    blitz: Duration,
}

fn main() {
    let started = Instant::now();
    // Start the global pool outside the timings.
    blitz::join(|| (), || ());
    let mut rows = Vec::new();

    let nodes = 10_000_000;
    let tree = make_tree(nodes, 0).expect("nodes > 0");
    let tree = &*tree;
    let (seq, want) = time(|| (), |()| tree_sum_seq(black_box(tree)));
    assert_eq!(want, (nodes as u64) * (nodes as u64 - 1) / 2);
    let (par, got) = time(|| (), |()| tree_sum(black_box(tree)));
    assert_eq!(got, want, "#[parallel] tree sum");
    rows.push(Row {
        form: "#[parallel]",
        workload: "tree sum, 10M nodes, fork at every node",
        sequential: seq,
        blitz: par,
    });
    let (par, got) = time(|| (), |()| tree_sum_cutoff(black_box(tree), 0));
    assert_eq!(got, want, "#[parallel(cutoff)] tree sum");
    rows.push(Row {
        form: "#[parallel(cutoff = ..)]",
        workload: "tree sum, 10M nodes, forks above depth 12",
        sequential: seq,
        blitz: par,
    });

    let input = random(10_000_000);
    let mut want = input.clone();
    want.sort_unstable();
    let sorted = |mut v: Vec<u64>, sort: fn(&mut [u64])| {
        sort(&mut v);
        v
    };
    // Each run sorts a fresh copy of the same input, made outside the timing.
    let (seq, got) = time(|| input.clone(), |v| sorted(v, quicksort_seq));
    assert!(got == want, "sequential quicksort");
    let (par, got) = time(|| input.clone(), |v| sorted(v, quicksort));
    assert!(got == want, "fork_join! quicksort");
    rows.push(Row {
        form: "fork_join!",
        workload: "quicksort, 10M u64",
        sequential: seq,
        blitz: par,
    });

    let n = 100_000_000;
    let (seq, want) = time(|| (), |()| sqrt_sum_seq(black_box(n)));
    let (par, got) = time(|| (), |()| sqrt_sum(black_box(n)));
    // The parallel sum adds in another order: equal up to rounding.
    assert!(
        (got - want).abs() <= 1e-9 * want,
        "par_for! reduce: {got} vs {want}"
    );
    rows.push(Row {
        form: "par_for! reduce(+)",
        workload: "sum of sqrt(i), i < 100M",
        sequential: seq,
        blitz: par,
    });

    let points = grid(1000);
    let (seq, want) = time(
        || points.clone(),
        |mut v| {
            mandelbrot_seq(&mut v);
            v
        },
    );
    let (par, got) = time(
        || points.clone(),
        |mut v| {
            mandelbrot(&mut v);
            v
        },
    );
    assert!(got == want, "par_for! over &mut: escape times differ");
    rows.push(Row {
        form: "par_for! over &mut [T]",
        workload: "Mandelbrot escape times, 1M points, in place",
        sequential: seq,
        blitz: par,
    });

    println!(
        "Blitz showcase: {} threads, median of {RUNS} runs, every result checked against the \
         sequential one\n",
        blitz::current_num_threads()
    );
    println!(
        "{:<25} {:<46} {:>13} {:>10} {:>8}",
        "form", "workload", "sequential ms", "blitz ms", "speedup"
    );
    for r in &rows {
        println!(
            "{:<25} {:<46} {:>13.1} {:>10.1} {:>7.2}x",
            r.form,
            r.workload,
            r.sequential.as_secs_f64() * 1e3,
            r.blitz.as_secs_f64() * 1e3,
            r.sequential.as_secs_f64() / r.blitz.as_secs_f64()
        );
    }
    println!(
        "\nall results match; total {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
