//! A probe for the fork fast path: fib with a hand-written `Worker::join` at every call, on a
//! pool of a given size, for timing or for counting instructions under callgrind.
//!
//! `cargo run --release --example fib_probe -- [n] [seq|blitz|lazy] [threads]` (default 30
//! blitz 1). `lazy` is the shape `#[parallel]` generates: `Worker::join` only where the fork
//! could be promoted, plain recursion that polls for requests below (or the sequential fn,
//! when the worker has nothing left to offer).
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

fn fib_plain(p: blitz::WorkRequestPoll<'_>, n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    p.poll();
    fib_plain(p, n - 1) + fib_plain(p, n - 2)
}

fn fib_lazy(w: &blitz::Worker, n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = match w.fork_mode() {
        blitz::ForkMode::Join(w) => w.join(|w| fib_lazy(w, n - 1), |w| fib_lazy(w, n - 2)),
        blitz::ForkMode::Plain(p) => (fib_plain(p, n - 1), fib_plain(p, n - 2)),
        blitz::ForkMode::Serial => (fib_seq(n - 1), fib_seq(n - 2)),
    };
    a + b
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
        "lazy" => pool.install_with_worker(|w| fib_lazy(w, std::hint::black_box(n))),
        _ => pool.install_with_worker(|w| fib(w, std::hint::black_box(n))),
    };
    let elapsed = start.elapsed();
    assert_eq!(r, fib_seq(n), "parallel fib differs from sequential");
    println!("{mode} fib({n}) = {r} in {elapsed:?} ({threads} threads)");
}
