//! Quicksort: partition, then sort both halves with `fork_join!`.
//!
//! `cargo run --release --example quicksort -- [len]` (default 5_000_000).

use std::time::Instant;

use blitz::prelude::*;

fn quicksort<T: Ord + Send>(v: &mut [T]) {
    if v.len() <= 1024 {
        v.sort_unstable();
        return;
    }
    let mid = partition(v);
    let (lo, hi) = v.split_at_mut(mid);
    blitz::fork_join!(quicksort(lo), quicksort(&mut hi[1..]));
}

/// Lomuto partition around the median of three; returns the pivot's final index.
fn partition<T: Ord>(v: &mut [T]) -> usize {
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

fn main() {
    // Start the global pool outside the timings.
    blitz::join(|| (), || ());
    let len: usize = std::env::args()
        .nth(1)
        .map_or(5_000_000, |a| a.parse().expect("len must be a number"));
    let mut v = random(len);
    let mut library = v.clone();
    let mut want = v.clone();

    let start = Instant::now();
    want.sort_unstable();
    let serial = start.elapsed();

    let start = Instant::now();
    quicksort(&mut v);
    let parallel = start.elapsed();

    assert_eq!(v, want);

    // The library's own parallel quicksort, for comparison.
    let start = Instant::now();
    library.par_sort_unstable();
    let par_sort = start.elapsed();
    assert_eq!(library, want);
    println!(
        "sorted {len} items: sort_unstable {serial:?}, parallel quicksort {parallel:?}, \
         par_sort_unstable {par_sort:?}"
    );
}
