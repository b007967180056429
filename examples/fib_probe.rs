//! A probe for the fork fast path: fib with a fork at every call, on a pool of a given size,
//! for timing or for counting instructions under callgrind.
//!
//! `cargo run --release --example fib_probe -- [n] [seq|blitz|parallel] [threads]` (default 30
//! blitz 1). `blitz` forks through a hand-written `Worker::join` at every call; `parallel` is
//! the same fn under `#[blitz::parallel]`, whose generated code records a fork only where it
//! could be promoted and otherwise recurses plainly, polling for requests from idle workers.
fn fib_seq(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib_seq(n - 1) + fib_seq(n - 2)
}

fn fib(w: &blitz::Worker, n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = w.join(|w| fib(w, n - 1), |w| fib(w, n - 2));
    a + b
}

#[blitz::parallel]
fn fib_parallel(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib_parallel(n - 1) + fib_parallel(n - 2)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: u64 = args.next().map_or(30, |a| a.parse().unwrap());
    let mode = args.next().unwrap_or_else(|| "blitz".into());
    let threads: usize = args.next().map_or(1, |a| a.parse().unwrap());
    let pool = blitz::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let start = std::time::Instant::now();
    let r = match mode.as_str() {
        "seq" => fib_seq(std::hint::black_box(n)),
        "parallel" => pool.install(|| fib_parallel(std::hint::black_box(n))),
        _ => pool.install_with_worker(|w| fib(w, std::hint::black_box(n))),
    };
    let elapsed = start.elapsed();
    assert_eq!(r, fib_seq(n), "parallel fib differs from sequential");
    println!("{mode} fib({n}) = {r} in {elapsed:?} ({threads} threads)");
}
