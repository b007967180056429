//! Merge sort with `#[blitz::parallel]`: the two recursive sorts are consecutive statements,
//! so they fork. The library's `par_sort` sorts a copy for comparison.
//!
//! `cargo run --release --example merge_sort -- [len]` (default 5_000_000).

use std::time::Instant;

use blitz::prelude::*;

#[blitz::parallel]
fn merge_sort(v: &mut [u64], buf: &mut [u64]) {
    if v.len() <= 2048 {
        v.sort();
        return;
    }
    let mid = v.len() / 2;
    let (left, right) = v.split_at_mut(mid);
    let (buf_left, buf_right) = buf.split_at_mut(mid);
    merge_sort(left, buf_left);
    merge_sort(right, buf_right);
    merge(v, mid, buf);
}

fn merge(v: &mut [u64], mid: usize, buf: &mut [u64]) {
    let (mut i, mut j) = (0, mid);
    for slot in buf.iter_mut() {
        if j >= v.len() || (i < mid && v[i] <= v[j]) {
            *slot = v[i];
            i += 1;
        } else {
            *slot = v[j];
            j += 1;
        }
    }
    v.copy_from_slice(buf);
}

fn main() {
    // Start the global pool outside the timings.
    blitz::join(|| (), || ());
    let len: usize = std::env::args()
        .nth(1)
        .map_or(5_000_000, |a| a.parse().expect("len must be a number"));
    let mut x = 88172645463325252u64;
    let mut v: Vec<u64> = (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % 1_000_000
        })
        .collect();
    let mut library = v.clone();
    let mut want = v.clone();

    let start = Instant::now();
    want.sort();
    let serial = start.elapsed();

    let mut buf = vec![0; len];
    let start = Instant::now();
    merge_sort(&mut v, &mut buf);
    let parallel = start.elapsed();

    assert_eq!(v, want);

    // The library's own stable parallel sort, for comparison.
    let start = Instant::now();
    library.par_sort();
    let par_sort = start.elapsed();
    assert_eq!(library, want);
    println!(
        "sorted {len} items: slice::sort {serial:?}, parallel merge sort {parallel:?}, \
         par_sort {par_sort:?}"
    );
}
