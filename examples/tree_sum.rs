//! Sums a balanced binary tree with a fork at every node, and compares with the sequential sum.
//!
//! `cargo run --release --example tree_sum -- [nodes] [threads]`

use std::time::{Duration, Instant};

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

fn sum_sequential(node: &Node) -> u64 {
    node.value
        + node.left.as_deref().map_or(0, sum_sequential)
        + node.right.as_deref().map_or(0, sum_sequential)
}

/// The same recursion, forking the two subtrees. The worker context is passed down so each
/// fork is a direct call into the runtime.
fn sum_parallel(w: &blitz::Worker, node: &Node) -> u64 {
    let (left, right) = w.join(
        |w| node.left.as_deref().map_or(0, |n| sum_parallel(w, n)),
        |w| node.right.as_deref().map_or(0, |n| sum_parallel(w, n)),
    );
    node.value + left + right
}

/// The median of `runs` timings of `f`, and its (checked identical) result.
fn time<R: PartialEq + std::fmt::Debug>(runs: usize, mut f: impl FnMut() -> R) -> (Duration, R) {
    let mut result = None;
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            let r = f();
            let elapsed = start.elapsed();
            if let Some(previous) = &result {
                assert_eq!(previous, &r, "results differ between runs");
            }
            result = Some(r);
            elapsed
        })
        .collect();
    times.sort();
    (times[runs / 2], result.expect("runs > 0"))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let nodes: usize = args
        .next()
        .map_or(10_000_000, |a| a.parse().expect("nodes"));
    let threads: usize = args.next().map_or(0, |a| a.parse().expect("threads"));
    assert!(nodes > 0, "the tree needs at least one node");

    let pool = blitz::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");
    let tree = make_tree(nodes, 0).expect("nodes > 0");
    let expected = (nodes as u64) * (nodes as u64 - 1) / 2;

    let (seq_time, seq_sum) = time(5, || sum_sequential(&tree));
    let (par_time, par_sum) = time(5, || pool.install_with_worker(|w| sum_parallel(w, &tree)));
    assert_eq!(seq_sum, expected);
    assert_eq!(par_sum, expected, "parallel sum differs from sequential");

    println!(
        "tree sum over {nodes} nodes, {} threads: sequential {:.2} ms, blitz {:.2} ms, speedup {:.2}x",
        pool.current_num_threads(),
        seq_time.as_secs_f64() * 1e3,
        par_time.as_secs_f64() * 1e3,
        seq_time.as_secs_f64() / par_time.as_secs_f64()
    );
}
