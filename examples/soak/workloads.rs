//! The soak's workloads: recursive shapes with leaf values that no formula sums, each with an
//! optional planted panic at one leaf, and the expected results to check them against.

use std::time::Duration;

use blitz::Worker;

use super::{Rng, plant};

/// splitmix64's finaliser: a value per index that no formula sums.
pub(super) fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A leaf value below 2^24, so sums of millions of them do not overflow.
pub(super) fn small(i: u64) -> u64 {
    mix(i) >> 40
}

/// Every 16th leaf (by hash) yields its CPU and every 256th sleeps a few microseconds, so that
/// a leaf's worker is descheduled in the middle of a join and thieves interleave with it.
pub(super) fn pause(i: u64) {
    match mix(i ^ 0xD1B5_4A32_D192_ED03) % 256 {
        0 => std::thread::sleep(Duration::from_micros(1 + i % 8)),
        1..=16 => std::thread::yield_now(),
        _ => {}
    }
}

/// Sum of leaf values over a tree of `2^depth` leaves; leaf `i` is worth `i`. With
/// `panic_at = Some(leaf)`, that leaf panics.
pub(super) fn tree(w: &Worker, first: u64, depth: u32, panic_at: Option<u64>) -> u64 {
    if depth == 0 {
        if panic_at == Some(first) {
            plant("join leaf", first);
        }
        return first;
    }
    let half = 1 << (depth - 1);
    let (a, b) = w.join(
        |w| tree(w, first, depth - 1, panic_at),
        |w| tree(w, first + half, depth - 1, panic_at),
    );
    a + b
}

pub(super) fn tree_expected(depth: u32) -> u64 {
    let n = 1u64 << depth;
    n * (n - 1) / 2
}

/// `small(0) + .. + small(n)` as a chain of `n` joins, each with a leaf on one side and the
/// rest of the chain on the other: `rest_first` keeps the chain on the joining worker (the
/// leaves are offered to thieves), otherwise the rest of the chain is what thieves take, so
/// it hops from worker to worker. The leaf `panic_at` panics.
pub(super) fn chain(w: &Worker, n: u64, rest_first: bool, panic_at: Option<u64>) -> u64 {
    let leaf = |i: u64| {
        pause(i);
        if panic_at == Some(i) {
            plant("chain leaf", i);
        }
        small(i)
    };
    if n == 0 {
        return leaf(0);
    }
    if rest_first {
        let (rest, last) = w.join(|w| chain(w, n - 1, rest_first, panic_at), |_| leaf(n));
        rest + last
    } else {
        let (last, rest) = w.join(|_| leaf(n), |w| chain(w, n - 1, rest_first, panic_at));
        last + rest
    }
}

/// `small(lo) + .. + small(hi - 1)` over a binary tree split at a quarter of each range (the
/// small part first or second, alternately), so one side is three times the other and the
/// tree is deep on one side. The item `panic_at` panics.
pub(super) fn skewed(w: &Worker, lo: u64, hi: u64, panic_at: Option<u64>) -> u64 {
    let len = hi - lo;
    if len <= 4 {
        return (lo..hi)
            .map(|i| {
                pause(i);
                if panic_at == Some(i) {
                    plant("skewed leaf", i);
                }
                small(i)
            })
            .sum();
    }
    let cut = if len.is_multiple_of(2) {
        lo + len / 4
    } else {
        hi - len / 4
    };
    let (a, b) = w.join(
        |w| skewed(w, lo, cut, panic_at),
        |w| skewed(w, cut, hi, panic_at),
    );
    a + b
}

/// The arity of the `fork_join!` nodes `depth` levels above the leaves: 3, 4 or 5, picked by
/// `shape`.
pub(super) fn arity(depth: u32, shape: u64) -> u64 {
    3 + (shape >> (2 * depth)) % 3
}

/// The number of leaves under a node `depth` levels above them.
pub(super) fn nway_leaves(depth: u32, shape: u64) -> u64 {
    (1..=depth).map(|d| arity(d, shape)).product()
}

/// `small(first) + ..` over the `nway_leaves(depth, shape)` leaves of a tree whose nodes fork
/// their 3 to 5 children with one `fork_join!` (in each of its forms). The leaf `panic_at`
/// panics.
#[blitz::parallel]
pub(super) fn nway(first: u64, depth: u32, shape: u64, panic_at: Option<u64>) -> u64 {
    if depth == 0 {
        pause(first);
        if panic_at == Some(first) {
            plant("fork_join leaf", first);
        }
        return small(first);
    }
    let span = nway_leaves(depth - 1, shape);
    let d = depth - 1;
    match arity(depth, shape) {
        3 => {
            let (a, b, c) = blitz::fork_join!(
                nway(first, d, shape, panic_at),
                nway(first + span, d, shape, panic_at),
                nway(first + 2 * span, d, shape, panic_at),
            );
            a + b + c
        }
        4 => {
            blitz::fork_join!(
                a = nway(first, d, shape, panic_at),
                b = nway(first + span, d, shape, panic_at),
                c: u64 = nway(first + 2 * span, d, shape, panic_at),
                d = nway(first + 3 * span, d, shape, panic_at),
            );
            a + b + c + d
        }
        _ => {
            let arms = blitz::fork_join![
                nway(first, d, shape, panic_at),
                nway(first + span, d, shape, panic_at),
                nway(first + 2 * span, d, shape, panic_at),
                nway(first + 3 * span, d, shape, panic_at),
                nway(first + 4 * span, d, shape, panic_at),
            ];
            arms.0 + arms.1 + arms.2 + arms.3 + arms.4
        }
    }
}

/// The sum, maximum and xor of `small(i)` over `lo..hi`: halves recursively down to ranges
/// of at most `leaf` items, each of which is a `par_for!` with three reductions. The item
/// `panic_at` panics.
#[blitz::parallel]
pub(super) fn loop_tree(
    lo: u64,
    hi: u64,
    leaf: u64,
    grain: usize,
    panic_at: Option<u64>,
) -> (u64, u64, u64) {
    if hi - lo <= leaf {
        let (mut sum, mut top, mut bits) = (0u64, 0u64, 0u64);
        blitz::par_for!(i in lo..hi, grain = grain,
            reduce(+: sum), reduce(max: top), reduce(^: bits) => {
            if panic_at == Some(i) {
                plant("par_for item", i);
            }
            let v = small(i);
            sum += v;
            top = top.max(v);
            bits ^= v;
        });
        return (sum, top, bits);
    }
    let mid = lo + (hi - lo) / 2;
    let (a, b) = (
        loop_tree(lo, mid, leaf, grain, panic_at),
        loop_tree(mid, hi, leaf, grain, panic_at),
    );
    (a.0 + b.0, a.1.max(b.1), a.2 ^ b.2)
}

/// An item whose cost varies by three orders of magnitude: most take a few rounds of `mix`,
/// one in 7 takes 200 and one in 61 takes 4000.
pub(super) fn uneven(i: u64) -> u64 {
    let h = mix(i);
    let rounds = if h.is_multiple_of(61) {
        4000
    } else if h.is_multiple_of(7) {
        200
    } else {
        h % 8
    };
    (0..rounds).fold(h, |x, _| mix(x)) >> 40
}

/// Fibonacci, forked at every call by `#[parallel]`; the leaves pause (see [`pause`]) by
/// their `id` (the root is 1, the children of `id` are `2 id` and `2 id + 1`) xor `salt`.
/// The leaf `panic_at` panics.
#[blitz::parallel]
pub(super) fn fib(n: u64, id: u64, salt: u64, panic_at: Option<u64>) -> u64 {
    if n < 2 {
        pause(id ^ salt);
        if panic_at == Some(id) {
            plant("fib leaf", id);
        }
        return n;
    }
    fib(n - 1, 2 * id, salt, panic_at) + fib(n - 2, 2 * id + 1, salt, panic_at)
}

pub(super) fn fib_expected(n: u64) -> u64 {
    (0..n).fold((0, 1), |(a, b), _| (b, a + b)).0
}

/// The id of a random leaf of `fib(n, 1, ..)`.
pub(super) fn fib_random_leaf(mut n: u64, rng: &mut Rng) -> u64 {
    let mut id = 1;
    while n >= 2 {
        let right = rng.below(2);
        n -= 1 + right;
        id = 2 * id + right;
    }
    id
}
