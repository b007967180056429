//! Soak test: random mixes of everything the runtime does, from 8 outside threads at once,
//! every result checked.
//!
//! `cargo run --release --example soak -- --seconds N`
//!
//! Operations: nested joins, scopes with (nested) spawns, parallel loops and reductions,
//! broadcasts, panics planted at random points (which must propagate and leave the pool
//! usable), and pools created and dropped. A watchdog fails the run if any single operation
//! takes more than 10 s (a hang). Prints the counts of operations, panics caught and
//! mismatches; exits non-zero if any result was wrong or anything hung.

use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use blitz::{ThreadPool, ThreadPoolBuilder, Worker};

const OUTSIDE_THREADS: usize = 8;
const HANG_LIMIT: Duration = Duration::from_secs(10);
const PLANTED: &str = "soak: planted panic";

/// xorshift64*: deterministic per thread, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[derive(Default)]
struct Stats {
    operations: AtomicUsize,
    panics_caught: AtomicUsize,
    mismatches: AtomicUsize,
    pools_created: AtomicUsize,
}

impl Stats {
    fn check(&self, what: &str, got: u64, expected: u64) {
        if got != expected {
            self.mismatches.fetch_add(1, Ordering::SeqCst);
            eprintln!("soak: MISMATCH in {what}: got {got}, expected {expected}");
        }
    }
}

/// Sum of leaf values over a tree of `2^depth` leaves; leaf `i` is worth `i`. With
/// `panic_at = Some(leaf)`, that leaf panics.
fn tree(w: &Worker, first: u64, depth: u32, panic_at: Option<u64>) -> u64 {
    if depth == 0 {
        if panic_at == Some(first) {
            panic!("{PLANTED} in a join leaf");
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

fn tree_expected(depth: u32) -> u64 {
    let n = 1u64 << depth;
    n * (n - 1) / 2
}

fn is_planted(payload: &(dyn std::any::Any + Send)) -> bool {
    let message = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or("");
    message.contains(PLANTED)
}

/// One random operation on `pool`.
fn operation(pool: &ThreadPool, rng: &mut Rng, stats: &Stats) {
    match rng.below(9) {
        0 => {
            let depth = 4 + rng.below(11) as u32;
            let got = pool.install_with_worker(|w| tree(w, 0, depth, None));
            stats.check("join tree", got, tree_expected(depth));
        }
        1 => {
            // A scope with spawns, some of which spawn more; every task adds its id.
            let tasks = 1 + rng.below(2000);
            let total = AtomicU64::new(0);
            pool.install(|| {
                blitz::scope(|s| {
                    for i in 0..tasks {
                        let total = &total;
                        s.spawn(move |s| {
                            total.fetch_add(i, Ordering::Relaxed);
                            if i % 7 == 0 {
                                s.spawn(move |_| {
                                    total.fetch_add(1, Ordering::Relaxed);
                                });
                            }
                        });
                    }
                })
            });
            let nested = tasks.div_ceil(7);
            stats.check(
                "scope",
                total.into_inner(),
                tasks * (tasks - 1) / 2 + nested,
            );
        }
        2 => {
            // A per-element function LLVM cannot fold into a formula.
            let f = |i: u64| (i ^ (i >> 3)).wrapping_mul(0x9E37_79B9) >> 7;
            let n = rng.below(2_000_000);
            let grain = rng.below(5000);
            let got = pool.install(|| {
                blitz::reduce_pieces(
                    0..n,
                    grain as usize,
                    |piece| piece.map(f).sum::<u64>(),
                    |a, b| a + b,
                )
            });
            stats.check("reduce", got, (0..n).map(f).sum());
        }
        3 => {
            let mut v = vec![0u32; rng.below(300_000) as usize];
            let grain = rng.below(1000) as usize;
            pool.install(|| {
                blitz::for_each_piece(&mut v, grain, |piece| {
                    for x in piece {
                        *x += 1;
                    }
                })
            });
            let wrong = v.iter().filter(|&&x| x != 1).count() as u64;
            stats.check("for_each visits", wrong, 0);
        }
        4 => {
            // A panic at a random leaf of a join tree.
            let depth = 3 + rng.below(10) as u32;
            let leaf = rng.below(1 << depth);
            let result = panic::catch_unwind(AssertUnwindSafe(|| {
                pool.install_with_worker(|w| tree(w, 0, depth, Some(leaf)))
            }));
            match result {
                Err(payload) if is_planted(&*payload) => {
                    stats.panics_caught.fetch_add(1, Ordering::Relaxed);
                }
                _ => stats.check("join panic propagated", 0, 1),
            }
        }
        5 => {
            // A panic in one spawned task: the others still run, the scope re-throws.
            let tasks = 2 + rng.below(200);
            let bad = rng.below(tasks);
            let ran = AtomicU64::new(0);
            let result = panic::catch_unwind(AssertUnwindSafe(|| {
                pool.install(|| {
                    blitz::scope(|s| {
                        for i in 0..tasks {
                            let ran = &ran;
                            s.spawn(move |_| {
                                ran.fetch_add(1, Ordering::Relaxed);
                                if i == bad {
                                    panic!("{PLANTED} in a spawned task");
                                }
                            });
                        }
                    })
                })
            }));
            match result {
                Err(payload) if is_planted(&*payload) => {
                    stats.panics_caught.fetch_add(1, Ordering::Relaxed);
                }
                _ => stats.check("scope panic propagated", 0, 1),
            }
            stats.check("scope tasks after a panic", ran.into_inner(), tasks);
        }
        6 => {
            // A panic inside a parallel loop body.
            let n = 1 + rng.below(100_000);
            let bad = rng.below(n);
            let result = panic::catch_unwind(AssertUnwindSafe(|| {
                pool.install(|| {
                    blitz::for_each_piece(0..n, 0, |piece| {
                        for i in piece {
                            if i == bad {
                                panic!("{PLANTED} in a loop body");
                            }
                        }
                    })
                })
            }));
            match result {
                Err(payload) if is_planted(&*payload) => {
                    stats.panics_caught.fetch_add(1, Ordering::Relaxed);
                }
                _ => stats.check("loop panic propagated", 0, 1),
            }
        }
        7 => {
            let indices = pool.install(|| blitz::broadcast(|ctx| ctx.index() as u64));
            let expected: u64 = (0..pool.current_num_threads() as u64).sum();
            stats.check("broadcast", indices.iter().sum(), expected);
            stats.check(
                "broadcast count",
                indices.len() as u64,
                pool.current_num_threads() as u64,
            );
        }
        _ => {
            // A short-lived pool of its own.
            let threads = 1 + rng.below(3) as usize;
            let own = ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("pool");
            stats.pools_created.fetch_add(1, Ordering::Relaxed);
            let depth = 4 + rng.below(8) as u32;
            let got = own.install_with_worker(|w| tree(w, 0, depth, None));
            stats.check("fresh pool", got, tree_expected(depth));
            drop(own);
        }
    }
    stats.operations.fetch_add(1, Ordering::Relaxed);
}

fn main() {
    let mut seconds = 60u64;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--seconds" => {
                seconds = args
                    .next()
                    .and_then(|s| s.parse().ok())
                    .expect("--seconds takes a whole number")
            }
            other => panic!("unknown argument {other:?} (usage: soak --seconds N)"),
        }
    }

    // Planted panics are expected: keep them off stderr, report everything else.
    let default_hook = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if !is_planted(info.payload()) {
            default_hook(info);
        }
    }));

    let pool = Arc::new(ThreadPoolBuilder::new().build().expect("pool"));
    let stats = Arc::new(Stats::default());
    let start = Instant::now();
    let deadline = start + Duration::from_secs(seconds);
    let done = Arc::new(AtomicBool::new(false));
    // Per outside thread: when its current operation started (ms since `start`), 0 if idle.
    let op_started: Arc<Vec<AtomicU64>> =
        Arc::new((0..OUTSIDE_THREADS).map(|_| AtomicU64::new(0)).collect());

    let watchdog = {
        let (done, op_started) = (Arc::clone(&done), Arc::clone(&op_started));
        std::thread::spawn(move || {
            while !done.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(100));
                let now = start.elapsed().as_millis() as u64;
                for (t, started) in op_started.iter().enumerate() {
                    let s = started.load(Ordering::SeqCst);
                    if s != 0 && now.saturating_sub(s) > HANG_LIMIT.as_millis() as u64 {
                        eprintln!(
                            "soak: HANG: thread {t}'s operation has run for {} ms",
                            now - s
                        );
                        std::process::exit(2);
                    }
                }
            }
        })
    };

    let threads: Vec<_> = (0..OUTSIDE_THREADS)
        .map(|t| {
            let (pool, stats, op_started) = (
                Arc::clone(&pool),
                Arc::clone(&stats),
                Arc::clone(&op_started),
            );
            std::thread::spawn(move || {
                let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ ((t as u64 + 1) * 0x1234_5678_9ABC));
                while Instant::now() < deadline {
                    op_started[t].store(start.elapsed().as_millis() as u64 + 1, Ordering::SeqCst);
                    operation(&pool, &mut rng, &stats);
                    op_started[t].store(0, Ordering::SeqCst);
                }
            })
        })
        .collect();
    for t in threads {
        t.join()
            .expect("outside thread panicked outside a checked operation");
    }
    done.store(true, Ordering::SeqCst);
    watchdog.join().unwrap();

    let mismatches = stats.mismatches.load(Ordering::SeqCst);
    println!(
        "soak: {} s, {} threads in the pool, {} outside threads: {} operations, {} panics caught, \
         {} pools created and dropped, {} mismatches, 0 hangs",
        seconds,
        pool.current_num_threads(),
        OUTSIDE_THREADS,
        stats.operations.load(Ordering::SeqCst),
        stats.panics_caught.load(Ordering::SeqCst),
        stats.pools_created.load(Ordering::SeqCst),
        mismatches,
    );
    if mismatches > 0 {
        std::process::exit(1);
    }
}
