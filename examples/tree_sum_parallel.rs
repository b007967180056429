//! Sums a binary tree with `#[blitz::parallel]` on a method.
//!
//! `cargo run --release --example tree_sum_parallel -- [depth]` (default 22).

use std::time::Instant;

struct Node {
    value: u64,
    left: Option<Box<Node>>,
    right: Option<Box<Node>>,
}

impl Node {
    fn build(depth: u32, seed: u64) -> Option<Box<Node>> {
        if depth == 0 {
            return None;
        }
        Some(Box::new(Node {
            value: seed % 1000,
            left: Node::build(
                depth - 1,
                seed.wrapping_mul(6364136223846793005).wrapping_add(1),
            ),
            right: Node::build(
                depth - 1,
                seed.wrapping_mul(1442695040888963407).wrapping_add(3),
            ),
        }))
    }

    #[blitz::parallel]
    fn sum(node: &Option<Box<Node>>) -> u64 {
        match node {
            None => 0,
            Some(n) => n.value + Self::sum(&n.left) + Self::sum(&n.right),
        }
    }

    fn sum_serial(node: &Option<Box<Node>>) -> u64 {
        match node {
            None => 0,
            Some(n) => n.value + Self::sum_serial(&n.left) + Self::sum_serial(&n.right),
        }
    }
}

fn main() {
    // Start the global pool outside the timings.
    blitz::join(|| (), || ());
    let depth: u32 = std::env::args()
        .nth(1)
        .map_or(22, |a| a.parse().expect("depth must be a number"));
    let tree = Node::build(depth, 1);

    let start = Instant::now();
    let want = Node::sum_serial(&tree);
    let serial = start.elapsed();

    let start = Instant::now();
    let got = Node::sum(&tree);
    let parallel = start.elapsed();

    assert_eq!(got, want);
    println!("tree of depth {depth}: sum {got}; serial {serial:?}, #[parallel] {parallel:?}");
}
