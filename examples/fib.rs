//! Fibonacci with `#[blitz::parallel]`: the two recursive calls run as a fork/join pair.
//!
//! `cargo run --release --example fib -- [n]` (default 35).

use std::time::Instant;

#[blitz::parallel]
fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib(n - 1) + fib(n - 2)
}

/// The same fn with a cutoff: below it, a fork-free clone of the body runs.
#[blitz::parallel(cutoff = n < 20)]
fn fib_cutoff(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib_cutoff(n - 1) + fib_cutoff(n - 2)
}

fn fib_serial(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib_serial(n - 1) + fib_serial(n - 2)
}

fn main() {
    // Start the global pool outside the timings.
    blitz::join(|| (), || ());
    let n: u64 = std::env::args()
        .nth(1)
        .map_or(35, |a| a.parse().expect("n must be a number"));

    let start = Instant::now();
    let want = fib_serial(n);
    let serial = start.elapsed();

    let start = Instant::now();
    let got = fib(n);
    let parallel = start.elapsed();

    let start = Instant::now();
    let got_cutoff = fib_cutoff(n);
    let cutoff = start.elapsed();

    assert_eq!(got, want);
    assert_eq!(got_cutoff, want);
    println!(
        "fib({n}) = {got} on {} threads: serial {serial:?}, #[parallel] {parallel:?}, \
         #[parallel(cutoff = n < 20)] {cutoff:?}",
        blitz::current_num_threads()
    );
}
