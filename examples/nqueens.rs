//! Counts the solutions of the n-queens puzzle. Each placement of the next queen is a branch;
//! `fork_join!` runs the branches of a row in parallel, two halves at a time.
//!
//! `cargo run --release --example nqueens -- [n]` (default 12).

use std::time::Instant;

/// Counts completions of a board whose filled rows are summarised by the three bitmasks of
/// attacked columns and diagonals; `candidates` are the free columns of this row still to try.
#[blitz::parallel(cutoff = depth > 4)]
fn count(n: u32, cols: u32, diag1: u32, diag2: u32, candidates: u32, depth: u32) -> u64 {
    let full = (1u32 << n) - 1;
    if cols == full {
        return 1;
    }
    if candidates == 0 {
        return 0;
    }
    if candidates.count_ones() == 1 {
        let bit = candidates;
        let (c, d1, d2) = (cols | bit, (diag1 | bit) << 1, (diag2 | bit) >> 1);
        let next = full & !(c | d1 | d2);
        return count(n, c, d1, d2, next, depth + 1);
    }
    // Split the candidate columns in two halves and count each half in parallel.
    let mut low = 0;
    let mut rest = candidates;
    for _ in 0..candidates.count_ones() / 2 {
        let bit = rest & rest.wrapping_neg();
        low |= bit;
        rest &= !bit;
    }
    count(n, cols, diag1, diag2, low, depth) + count(n, cols, diag1, diag2, rest, depth)
}

fn count_serial(n: u32, cols: u32, diag1: u32, diag2: u32) -> u64 {
    let full = (1u32 << n) - 1;
    if cols == full {
        return 1;
    }
    let mut free = full & !(cols | diag1 | diag2);
    let mut total = 0;
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free &= !bit;
        total += count_serial(n, cols | bit, (diag1 | bit) << 1, (diag2 | bit) >> 1);
    }
    total
}

fn main() {
    // Start the global pool outside the timings.
    blitz::join(|| (), || ());
    let n: u32 = std::env::args()
        .nth(1)
        .map_or(12, |a| a.parse().expect("n must be a number"));
    assert!((1..=16).contains(&n), "n must be in 1..=16");

    let start = Instant::now();
    let want = count_serial(n, 0, 0, 0);
    let serial = start.elapsed();

    let start = Instant::now();
    let got = count(n, 0, 0, 0, (1 << n) - 1, 0);
    let parallel = start.elapsed();

    assert_eq!(got, want);
    println!("{n}-queens: {got} solutions; serial {serial:?}, parallel {parallel:?}");
}
