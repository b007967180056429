//! Soak test: random mixes of everything the runtime does, from 8 outside threads at once,
//! every result checked.
//!
//! `cargo run --release --example soak -- --seconds N [--threads LIST]`
//!
//! Operations: nested joins, scopes with (nested) spawns, parallel loops and reductions,
//! broadcasts, panics planted at random points (which must propagate with their exact payload
//! and leave the pool usable), and pools created and dropped. On top of those, operations that
//! spread over many workers: deep join chains, binary trees split at a quarter, recursive
//! `fork_join!` with 3 to 5 arms, `par_for!` reductions nested in `#[parallel]` recursion,
//! loops whose items differ in cost by orders of magnitude, and a `#[parallel]` fib whose
//! leaves sometimes yield or sleep so that thieves really interleave. Each of these plants a
//! panic in a random leaf one time in three.
//!
//! `--threads 2,16,64` gives the pool sizes: one long-lived pool of each size is shared by the
//! outside threads, and the pools created and dropped draw their size from the list. Without
//! it, one shared pool has the default size (one worker per CPU) and the fresh pools have 1 to
//! 3 workers. More workers than CPUs is the point: most of them are then descheduled at any
//! moment, which is when a scheduler's races show.
//!
//! `--faults` mixes fault operations into the random ones (one in four, on the shared pools;
//! see `faults.rs`): panic payloads and results whose `Drop` panics, pools dropped on a worker
//! of another pool, exit handlers that submit work, thread-name closures that panic. The
//! summary then also counts fault operations and faults injected.
//!
//! A watchdog fails the run (exit code 2) if any single operation takes more than 10 s (a
//! hang), naming the operation and the pool size. Prints the counts of operations, panics
//! caught, pools and mismatches, in total and per pool size; exits with code 1 if any result
//! was wrong, any payload was not the planted one, or anything panicked unexpectedly.

use std::fmt::Debug;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use blitz::{ThreadPool, ThreadPoolBuilder};

mod faults;
mod workloads;
use workloads::*;

const OUTSIDE_THREADS: usize = 8;
const HANG_LIMIT: Duration = Duration::from_secs(10);
/// Worker stack size: the deep chains recurse a few hundred joins deep, and a worker that
/// waits for a stolen job may run another deep operation on top of its own.
const STACK_SIZE: usize = 32 << 20;

/// The operations, by kind; the index is what [`run_op`] matches on.
const OPS: [&str; 16] = [
    "join tree",
    "scope",
    "reduce",
    "for_each",
    "join panic",
    "scope panic",
    "loop panic",
    "broadcast",
    "pool create/drop",
    "deep chain",
    "skewed tree",
    "fork_join n-way",
    "par_for in #[parallel]",
    "uneven loop",
    "yielding fib",
    "fault injection",
];
/// The kinds drawn at random: all but [`FAULTS`].
const NORMAL_KINDS: u64 = OPS.len() as u64 - 1;
/// The kind of the fault operations of `--faults` (see `faults.rs`).
const FAULTS: usize = 15;
/// The kind that builds a pool of its own, runs operations of the other kinds on it and drops
/// it (see [`fresh_pool`]).
const FRESH_POOL: usize = 8;

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

    /// `Some(below(n))` one time in three: where to plant a panic, if anywhere.
    fn maybe_below(&mut self, n: u64) -> Option<u64> {
        (self.below(3) == 0).then(|| self.below(n))
    }
}

/// The payload of every planted panic: where it was planted, so that the caller can check
/// that the panic that reached it is exactly the one planted (not another one, nor a copy).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Planted {
    site: &'static str,
    id: u64,
}

/// Panics with the payload `Planted { site, id }`.
fn plant(site: &'static str, id: u64) -> ! {
    panic::panic_any(Planted { site, id })
}

/// The counts for one pool size.
struct SizeStats {
    threads: usize,
    /// Operations completed, by kind (indices of [`OPS`]).
    ops: [AtomicUsize; OPS.len()],
    panics_caught: AtomicUsize,
    pools_created: AtomicUsize,
    mismatches: AtomicUsize,
    /// The longest an operation took, in ms (for the margin to [`HANG_LIMIT`]).
    slowest_ms: AtomicU64,
}

impl SizeStats {
    fn new(threads: usize) -> Self {
        Self {
            threads,
            ops: std::array::from_fn(|_| AtomicUsize::new(0)),
            panics_caught: AtomicUsize::new(0),
            pools_created: AtomicUsize::new(0),
            mismatches: AtomicUsize::new(0),
            slowest_ms: AtomicU64::new(0),
        }
    }

    fn fail(&self, what: &str, detail: &str) {
        self.mismatches.fetch_add(1, Ordering::SeqCst);
        eprintln!(
            "soak: MISMATCH in {what} on a {}-thread pool: {detail}",
            self.threads
        );
    }

    fn check<T: PartialEq + Debug>(&self, what: &str, got: T, expected: T) {
        if got != expected {
            self.fail(what, &format!("got {got:?}, expected {expected:?}"));
        }
    }

    /// Checks how a catch-unwound operation ended: with `planted = None` it must return
    /// `expected`; with `Some(p)` it must panic with payload `p`, after which the pool must
    /// still run a checked operation correctly.
    fn settle<T: PartialEq + Debug>(
        &self,
        what: &str,
        result: std::thread::Result<T>,
        expected: T,
        planted: Option<Planted>,
        pool: &ThreadPool,
        rng: &mut Rng,
    ) {
        match (result, planted) {
            (Ok(got), None) => self.check(what, got, expected),
            (Ok(got), Some(p)) => self.fail(
                what,
                &format!("returned {got:?}, expected the planted panic {p:?} to propagate"),
            ),
            (Err(payload), planted) => {
                match (payload.downcast_ref::<Planted>(), planted) {
                    (Some(got), Some(p)) if *got == p => {
                        self.panics_caught.fetch_add(1, Ordering::Relaxed);
                    }
                    (got, p) => self.fail(
                        what,
                        &format!(
                            "panicked with {}, expected {}",
                            describe(&*payload, got),
                            p.map_or("no panic".to_string(), |p| format!("{p:?}"))
                        ),
                    ),
                }
                still_usable(pool, rng, self);
            }
        }
    }
}

/// A panic payload, for a report.
fn describe(payload: &(dyn std::any::Any + Send), planted: Option<&Planted>) -> String {
    if let Some(p) = planted {
        return format!("{p:?}");
    }
    let message = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or("a payload of another type");
    format!("{message:?}")
}

/// The counts for every pool size the run uses.
struct Stats {
    sizes: Vec<SizeStats>,
}

impl Stats {
    fn new(mut sizes: Vec<usize>) -> Self {
        sizes.sort_unstable();
        sizes.dedup();
        Self {
            sizes: sizes.into_iter().map(SizeStats::new).collect(),
        }
    }

    fn of(&self, threads: usize) -> &SizeStats {
        self.sizes
            .iter()
            .find(|s| s.threads == threads)
            .expect("every pool size has its stats")
    }

    fn total(&self, field: impl Fn(&SizeStats) -> usize) -> usize {
        self.sizes.iter().map(field).sum()
    }
}

/// After a planted panic: the pool must still compute correctly.
fn still_usable(pool: &ThreadPool, rng: &mut Rng, stats: &SizeStats) {
    let depth = 4 + rng.below(6) as u32;
    let got = pool.install_with_worker(|w| tree(w, 0, depth, None));
    stats.check("join tree after a panic", got, tree_expected(depth));
    let shape = rng.next();
    let got = pool.install(|| nway(0, 2, shape, None));
    let expected = (0..nway_leaves(2, shape)).map(small).sum();
    stats.check("fork_join after a panic", got, expected);
}

/// Runs one operation of kind `kind` (not [`FRESH_POOL`]) on `pool`, checking its result.
fn run_op(kind: usize, pool: &ThreadPool, rng: &mut Rng, stats: &SizeStats) {
    let what = OPS[kind];
    match kind {
        0 => {
            let depth = 4 + rng.below(11) as u32;
            let got = pool.install_with_worker(|w| tree(w, 0, depth, None));
            stats.check(what, got, tree_expected(depth));
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
            stats.check(what, total.into_inner(), tasks * (tasks - 1) / 2 + nested);
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
            stats.check(what, got, (0..n).map(f).sum());
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
            let wrong = v.iter().filter(|&&x| x != 1).count();
            stats.check("for_each items not visited exactly once", wrong, 0);
        }
        4 => {
            // A panic at a random leaf of a join tree.
            let depth = 3 + rng.below(10) as u32;
            let leaf = rng.below(1 << depth);
            let result = panic::catch_unwind(AssertUnwindSafe(|| {
                pool.install_with_worker(|w| tree(w, 0, depth, Some(leaf)))
            }));
            let planted = Planted {
                site: "join leaf",
                id: leaf,
            };
            stats.settle(what, result, 0, Some(planted), pool, rng);
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
                                    plant("spawned task", i);
                                }
                            });
                        }
                    })
                })
            }));
            let planted = Planted {
                site: "spawned task",
                id: bad,
            };
            stats.settle(what, result, (), Some(planted), pool, rng);
            stats.check("scope tasks run despite a panic", ran.into_inner(), tasks);
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
                                plant("loop body", i);
                            }
                        }
                    })
                })
            }));
            let planted = Planted {
                site: "loop body",
                id: bad,
            };
            stats.settle(what, result, (), Some(planted), pool, rng);
        }
        7 => {
            let indices = pool.install(|| blitz::broadcast(|ctx| ctx.index() as u64));
            let threads = pool.current_num_threads() as u64;
            stats.check(what, indices.iter().sum::<u64>(), (0..threads).sum());
            stats.check("broadcast count", indices.len() as u64, threads);
        }
        9 => {
            let n = rng.below(400);
            let rest_first = rng.below(2) == 0;
            let panic_at = rng.maybe_below(n + 1);
            let result = panic::catch_unwind(AssertUnwindSafe(|| {
                pool.install_with_worker(|w| chain(w, n, rest_first, panic_at))
            }));
            let expected = (0..=n).map(small).sum();
            let planted = panic_at.map(|id| Planted {
                site: "chain leaf",
                id,
            });
            stats.settle(what, result, expected, planted, pool, rng);
        }
        10 => {
            let lo = rng.below(1 << 40);
            let len = 1 + rng.below(50_000);
            let panic_at = rng.maybe_below(len).map(|i| lo + i);
            let result = panic::catch_unwind(AssertUnwindSafe(|| {
                pool.install_with_worker(|w| skewed(w, lo, lo + len, panic_at))
            }));
            let expected = (lo..lo + len).map(small).sum();
            let planted = panic_at.map(|id| Planted {
                site: "skewed leaf",
                id,
            });
            stats.settle(what, result, expected, planted, pool, rng);
        }
        11 => {
            // At most 5^6 = 15625 leaves.
            let depth = 1 + rng.below(6) as u32;
            let shape = rng.next();
            let leaves = nway_leaves(depth, shape);
            let panic_at = rng.maybe_below(leaves);
            let result = panic::catch_unwind(AssertUnwindSafe(|| {
                pool.install(|| nway(0, depth, shape, panic_at))
            }));
            let expected = (0..leaves).map(small).sum();
            let planted = panic_at.map(|id| Planted {
                site: "fork_join leaf",
                id,
            });
            stats.settle(what, result, expected, planted, pool, rng);
        }
        12 => {
            let lo = rng.below(1 << 40);
            let len = rng.below(200_000);
            let leaf = 1 + rng.below(20_000);
            let grain = rng.below(64) as usize;
            let panic_at = rng.maybe_below(len.max(1)).map(|i| lo + i);
            let result = panic::catch_unwind(AssertUnwindSafe(|| {
                pool.install(|| loop_tree(lo, lo + len, leaf, grain, panic_at))
            }));
            let expected = (lo..lo + len)
                .map(small)
                .fold((0, 0, 0), |(s, m, x), v| (s + v, m.max(v), x ^ v));
            // An empty range plants nothing: no item runs.
            let planted = panic_at.filter(|_| len > 0).map(|id| Planted {
                site: "par_for item",
                id,
            });
            stats.settle(what, result, expected, planted, pool, rng);
        }
        13 => {
            let n = rng.below(20_000);
            let grain = rng.below(16) as usize;
            match rng.below(3) {
                0 => {
                    let panic_at = rng.maybe_below(n.max(1)).filter(|_| n > 0);
                    let result = panic::catch_unwind(AssertUnwindSafe(|| {
                        pool.install(|| {
                            let mut sum = 0u64;
                            blitz::par_for!(i in 0..n, grain = grain, reduce(+: sum) => {
                                if panic_at == Some(i) {
                                    plant("uneven item", i);
                                }
                                sum += uneven(i);
                            });
                            sum
                        })
                    }));
                    let planted = panic_at.map(|id| Planted {
                        site: "uneven item",
                        id,
                    });
                    let expected = (0..n).map(uneven).sum();
                    stats.settle(what, result, expected, planted, pool, rng);
                }
                1 => {
                    let mut out = vec![u64::MAX; n as usize];
                    pool.install(|| {
                        blitz::par_for!((i, o) in out.iter_mut().enumerate(), grain = grain => {
                            *o = uneven(i as u64);
                        })
                    });
                    let wrong = (0..n).filter(|&i| out[i as usize] != uneven(i)).count();
                    stats.check("uneven loop items wrong", wrong, 0);
                }
                _ => {
                    let got =
                        pool.install(|| blitz::map_reduce(0..n, grain, || 0, uneven, |a, b| a + b));
                    stats.check(what, got, (0..n).map(uneven).sum());
                }
            }
        }
        14 => {
            let n = 8 + rng.below(15);
            let salt = rng.next();
            let panic_at = (rng.below(3) == 0).then(|| fib_random_leaf(n, rng));
            let result = panic::catch_unwind(AssertUnwindSafe(|| {
                pool.install(|| fib(n, 1, salt, panic_at))
            }));
            let planted = panic_at.map(|id| Planted {
                site: "fib leaf",
                id,
            });
            stats.settle(what, result, fib_expected(n), planted, pool, rng);
        }
        _ => unreachable!("operation kind {kind}"),
    }
}

/// A short-lived pool of `threads` workers: a few random operations on it, then it is dropped.
fn fresh_pool(threads: usize, rng: &mut Rng, stats: &Stats, current: &Slot) {
    let own = ThreadPoolBuilder::new()
        .num_threads(threads)
        .stack_size(STACK_SIZE)
        .build()
        .expect("pool");
    let stats = stats.of(threads);
    stats.pools_created.fetch_add(1, Ordering::Relaxed);
    for _ in 0..1 + rng.below(3) {
        let kind = other_kind(rng);
        current.kind.store(kind, Ordering::SeqCst);
        run_op(kind, &own, rng, stats);
        stats.ops[kind].fetch_add(1, Ordering::Relaxed);
    }
    current.kind.store(FRESH_POOL, Ordering::SeqCst);
    drop(own);
    stats.ops[FRESH_POOL].fetch_add(1, Ordering::Relaxed);
}

/// A random operation kind other than [`FRESH_POOL`].
fn other_kind(rng: &mut Rng) -> usize {
    let kind = rng.below(NORMAL_KINDS - 1) as usize;
    kind + usize::from(kind >= FRESH_POOL)
}

/// What one outside thread is doing, for the watchdog.
#[derive(Default)]
struct Slot {
    /// When its current operation started (ms since the start, plus 1), 0 if idle.
    started: AtomicU64,
    /// The operation's kind (an index of [`OPS`]) and its pool's size.
    kind: AtomicUsize,
    threads: AtomicUsize,
}

/// The command line.
struct Options {
    seconds: u64,
    /// The sizes of the shared pools (`None`: one of the default size).
    shared: Option<Vec<usize>>,
    /// The sizes the created-and-dropped pools draw from.
    fresh: Vec<usize>,
    /// Mix fault operations in (`--faults`).
    faults: bool,
}

const USAGE: &str = "usage: soak [--seconds N] [--threads P1,P2,..] [--faults]";

fn parse_args() -> Options {
    let mut options = Options {
        seconds: 60,
        shared: None,
        fresh: vec![1, 2, 3],
        faults: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--seconds" => {
                options.seconds = args
                    .next()
                    .and_then(|s| s.parse().ok())
                    .expect("--seconds takes a whole number")
            }
            "--threads" => {
                let list: Vec<usize> = args
                    .next()
                    .expect("--threads takes a list, such as 2,16,64")
                    .split(',')
                    .map(|p| match p.trim().parse() {
                        Ok(p) if p > 0 => p,
                        _ => panic!("--threads: {p:?} is not a positive whole number"),
                    })
                    .collect();
                let mut shared = list.clone();
                shared.sort_unstable();
                shared.dedup();
                options.shared = Some(shared);
                options.fresh = list;
            }
            "--faults" => options.faults = true,
            "--help" | "-h" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => panic!("unknown argument {other:?} ({USAGE})"),
        }
    }
    options
}

fn main() {
    let options = parse_args();
    let seconds = options.seconds;

    // Planted panics are expected: keep them off stderr, report everything else. So are, in
    // fault mode, the runtime's rejections of work submitted from an exit handler.
    let default_hook = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let rejected = payload
            .downcast_ref::<String>()
            .is_some_and(|m| m.contains("on a thread pool that is shutting down"));
        if !(payload.is::<Planted>() || payload.is::<faults::Bomb>() || rejected) {
            default_hook(info);
        }
    }));
    let with_faults = options.faults;

    let build = |threads: Option<usize>| {
        let builder = ThreadPoolBuilder::new().stack_size(STACK_SIZE);
        let pool = match threads {
            Some(p) => builder.num_threads(p),
            None => builder,
        }
        .build()
        .expect("pool");
        (pool.current_num_threads(), pool)
    };
    let pools: Arc<Vec<(usize, ThreadPool)>> = Arc::new(match &options.shared {
        Some(sizes) => sizes.iter().map(|&p| build(Some(p))).collect(),
        None => vec![build(None)],
    });
    let shared_sizes: Vec<usize> = pools.iter().map(|(p, _)| *p).collect();
    let stats = Arc::new(Stats::new(
        shared_sizes.iter().chain(&options.fresh).copied().collect(),
    ));
    let fresh = Arc::new(options.fresh);

    let start = Instant::now();
    let deadline = start + Duration::from_secs(seconds);
    let done = Arc::new(AtomicBool::new(false));
    let slots: Arc<Vec<Slot>> = Arc::new((0..OUTSIDE_THREADS).map(|_| Slot::default()).collect());

    let watchdog = {
        let (done, slots) = (Arc::clone(&done), Arc::clone(&slots));
        std::thread::spawn(move || {
            while !done.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(100));
                let now = start.elapsed().as_millis() as u64;
                for (t, slot) in slots.iter().enumerate() {
                    let s = slot.started.load(Ordering::SeqCst);
                    if s != 0 && now.saturating_sub(s) > HANG_LIMIT.as_millis() as u64 {
                        eprintln!(
                            "soak: HANG: thread {t}'s operation ({} on a {}-thread pool) has \
                             run for {} ms",
                            OPS[slot.kind.load(Ordering::SeqCst)],
                            slot.threads.load(Ordering::SeqCst),
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
            let (pools, fresh, stats, slots) = (
                Arc::clone(&pools),
                Arc::clone(&fresh),
                Arc::clone(&stats),
                Arc::clone(&slots),
            );
            std::thread::spawn(move || {
                let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ ((t as u64 + 1) * 0x1234_5678_9ABC));
                let slot = &slots[t];
                while Instant::now() < deadline {
                    let kind = if with_faults && rng.below(4) == 0 {
                        FAULTS
                    } else {
                        rng.below(NORMAL_KINDS) as usize
                    };
                    let (threads, pool) = if kind == FRESH_POOL {
                        (fresh[rng.below(fresh.len() as u64) as usize], None)
                    } else {
                        let (p, pool) = &pools[rng.below(pools.len() as u64) as usize];
                        (*p, Some(pool))
                    };
                    slot.kind.store(kind, Ordering::SeqCst);
                    slot.threads.store(threads, Ordering::SeqCst);
                    slot.started
                        .store(start.elapsed().as_millis() as u64 + 1, Ordering::SeqCst);
                    let result = panic::catch_unwind(AssertUnwindSafe(|| match pool {
                        Some(pool) if kind == FAULTS => {
                            faults::run_fault(pool, &pools, &mut rng, stats.of(threads));
                            stats.of(threads).ops[kind].fetch_add(1, Ordering::Relaxed);
                        }
                        Some(pool) => {
                            run_op(kind, pool, &mut rng, stats.of(threads));
                            stats.of(threads).ops[kind].fetch_add(1, Ordering::Relaxed);
                        }
                        None => fresh_pool(threads, &mut rng, &stats, slot),
                    }));
                    if let Err(payload) = result {
                        let planted = payload.downcast_ref::<Planted>();
                        stats.of(threads).fail(
                            OPS[slot.kind.load(Ordering::SeqCst)],
                            &format!("unexpected panic: {}", describe(&*payload, planted)),
                        );
                    }
                    let took = start.elapsed().as_millis() as u64 + 1
                        - slot.started.swap(0, Ordering::SeqCst);
                    stats
                        .of(threads)
                        .slowest_ms
                        .fetch_max(took, Ordering::Relaxed);
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

    for s in &stats.sizes {
        let load = |a: &AtomicUsize| a.load(Ordering::SeqCst);
        let by_kind: Vec<String> = OPS
            .iter()
            .zip(&s.ops)
            .map(|(name, n)| format!("{name} {}", load(n)))
            .collect();
        println!(
            "soak: {:>3}-thread pools: {} operations, {} panics caught, {} pools created and \
             dropped, {} mismatches, slowest operation {} ms\n      ({})",
            s.threads,
            s.ops.iter().map(load).sum::<usize>(),
            load(&s.panics_caught),
            load(&s.pools_created),
            load(&s.mismatches),
            s.slowest_ms.load(Ordering::SeqCst),
            by_kind.join(", "),
        );
    }
    let mismatches = stats.total(|s| s.mismatches.load(Ordering::SeqCst));
    let sizes: Vec<String> = shared_sizes.iter().map(usize::to_string).collect();
    println!(
        "soak: {} s, {} threads in the pool{}, {} outside threads: {} operations, {} panics \
         caught, {} pools created and dropped, {} mismatches, 0 hangs",
        seconds,
        sizes.join(","),
        if sizes.len() > 1 { "s" } else { "" },
        OUTSIDE_THREADS,
        stats.total(|s| s.ops.iter().map(|n| n.load(Ordering::SeqCst)).sum()),
        stats.total(|s| s.panics_caught.load(Ordering::SeqCst)),
        stats.total(|s| s.pools_created.load(Ordering::SeqCst)),
        mismatches,
    );
    if with_faults {
        println!(
            "soak: fault mode: {} fault operations, {} faults injected, {} mismatches, 0 hangs",
            faults::FAULT_OPS.load(Ordering::SeqCst),
            faults::FAULTS_INJECTED.load(Ordering::SeqCst),
            mismatches,
        );
    }
    if mismatches > 0 {
        std::process::exit(1);
    }
}
