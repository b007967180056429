//! Idle CPU, wake-up latency and the round trip of a call from outside: the suite's rows
//! that time a pool's sleep and wake-up rather than a workload.

use std::collections::HashMap;
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::common::*;
use super::{Row, Suite, median_p90};

/// CPU time of every live thread of this process, in ns, by thread id: the first field of
/// `/proc/self/task/<tid>/schedstat` (ns resolution, unlike the 10 ms ticks of `/proc/self/stat`;
/// no dependency needed).
fn thread_cpu_ns() -> HashMap<String, u64> {
    let mut out = HashMap::new();
    for entry in std::fs::read_dir("/proc/self/task").expect("/proc/self/task") {
        let entry = entry.expect("task entry");
        let tid = entry.file_name().to_string_lossy().into_owned();
        // A thread may exit between the listing and the read: skip it.
        if let Ok(text) = std::fs::read_to_string(entry.path().join("schedstat"))
            && let Some(ns) = text.split_whitespace().next().and_then(|f| f.parse().ok())
        {
            out.insert(tid, ns);
        }
    }
    out
}

/// CPU time (all threads) spent while `f` runs, in µs. Threads alive at the start and the end
/// count their difference; threads born in between count in full.
fn cpu_us_during(f: impl FnOnce()) -> f64 {
    let before = thread_cpu_ns();
    f();
    let after = thread_cpu_ns();
    let ns: u64 = after
        .iter()
        .map(|(tid, &end)| end.saturating_sub(before.get(tid).copied().unwrap_or(0)))
        .sum();
    ns as f64 / 1e3
}

const IDLE: Duration = Duration::from_secs(1);
const IDLE_TRIES: usize = 3;

pub(crate) fn idle_cpu(suite: &mut Suite) {
    let workload = "idle CPU 1 s";
    if !suite.wants(workload) {
        return;
    }
    // One job (a fork at every call, so every worker gets busy), then 1 s without work.
    const JOB: u64 = 25;
    for &t in &suite.threads.clone() {
        let mut measure = |implementation: &str, job: &dyn Fn() -> u64| {
            let mut samples: Vec<f64> = (0..IDLE_TRIES)
                .map(|_| {
                    assert_eq!(job(), fib_seq(JOB));
                    cpu_us_during(|| std::thread::sleep(IDLE))
                })
                .collect();
            let (median_us, _) = median_p90(&mut samples);
            let max_us = samples[samples.len() - 1];
            suite.push(Row {
                workload: workload.to_string(),
                implementation: implementation.to_string(),
                threads: t,
                median_us,
                p90_us: max_us,
                ratio: None,
            });
        };
        let pool = blitz_pool(t);
        measure("blitz", &|| {
            pool.install_with_worker(|w| fib_blitz(w, JOB, 0))
        });
        drop(pool);
        let pool = rayon_pool(t);
        measure("rayon", &|| pool.install(|| fib_rayon(JOB, 0)));
        drop(pool);
        let pool = chili_pool(t);
        measure("chili", &|| fib_chili(&mut pool.scope(), JOB, 0));
    }
}

const WAKE_TRIES: usize = 100;
const WAKE_IDLE: Duration = Duration::from_millis(100);
/// How long the forking side waits for the other side to start elsewhere before giving up.
const FORK_WAIT: Duration = Duration::from_millis(100);

fn wake_row(
    suite: &mut Suite,
    workload: &str,
    implementation: &str,
    t: usize,
    f: impl Fn() -> Duration,
) {
    let mut samples: Vec<f64> = (0..WAKE_TRIES)
        .map(|_| {
            std::thread::sleep(WAKE_IDLE);
            f().as_secs_f64() * 1e6
        })
        .collect();
    let (median_us, p90_us) = median_p90(&mut samples);
    suite.push(Row {
        workload: workload.to_string(),
        implementation: implementation.to_string(),
        threads: t,
        median_us,
        p90_us,
        ratio: None,
    });
}

/// The forking side of a fork-to-steal probe: wait (bounded) until the other side has started.
fn wait_for(flag: &AtomicBool, since: Instant) {
    while !flag.load(Ordering::Acquire) && since.elapsed() < FORK_WAIT {
        std::hint::spin_loop();
    }
}

pub(crate) fn wake_latency(suite: &mut Suite) {
    // From outside the pool: the time from submitting a tiny job to its start on a worker.
    let workload = "wake: submit->start";
    if suite.wants(workload) {
        for &t in &suite.threads.clone() {
            let pool = blitz_pool(t);
            wake_row(suite, workload, "blitz", t, || {
                let submitted = Instant::now();
                pool.install(Instant::now) - submitted
            });
            drop(pool);
            let pool = rayon_pool(t);
            wake_row(suite, workload, "rayon", t, || {
                let submitted = Instant::now();
                pool.install(Instant::now) - submitted
            });
        }
    }
    // chili cannot take a job from outside (its scope runs on the caller), so the comparable
    // probe is a fork on an idle pool: the time until the other side starts on another thread.
    // The forking side spins until then, so the latency includes waking a sleeping worker.
    let workload = "wake: fork->steal";
    if suite.wants(workload) {
        for &t in suite.threads.clone().iter().filter(|&&t| t >= 2) {
            let pool = blitz_pool(t);
            wake_row(suite, workload, "blitz", t, || {
                pool.install_with_worker(|w| {
                    let started = AtomicBool::new(false);
                    let forked = Instant::now();
                    let (_, stolen) = w.join(
                        |_| wait_for(&started, forked),
                        |_| {
                            started.store(true, Ordering::Release);
                            Instant::now()
                        },
                    );
                    stolen - forked
                })
            });
            drop(pool);
            let pool = rayon_pool(t);
            wake_row(suite, workload, "rayon", t, || {
                pool.install(|| {
                    let started = AtomicBool::new(false);
                    let forked = Instant::now();
                    let (_, stolen) = rayon::join(
                        || wait_for(&started, forked),
                        || {
                            started.store(true, Ordering::Release);
                            Instant::now()
                        },
                    );
                    stolen - forked
                })
            });
            drop(pool);
            let pool = chili_pool(t);
            wake_row(suite, workload, "chili", t, || {
                let started = AtomicBool::new(false);
                let forked = Instant::now();
                let (_, stolen) = pool.scope().join(
                    |_| wait_for(&started, forked),
                    |_| {
                        started.store(true, Ordering::Release);
                        Instant::now()
                    },
                );
                stolen - forked
            });
        }
    }
}

// ---------------------------------------------------------------- round trip from outside

/// Tries per round-trip row (`BLITZ_BENCH_ROUND_TRIPS` overrides it): with 200, the p99 is the
/// third largest.
const ROUND_TRIP_TRIES: usize = 200;
/// The idle periods before each try, and their names in the rows.
const ROUND_TRIP_IDLES: [(Duration, &str); 4] = [
    (Duration::ZERO, "0"),
    (Duration::from_millis(1), "1 ms"),
    (Duration::from_millis(10), "10 ms"),
    (Duration::from_millis(100), "100 ms"),
];
/// The short job's length, and the idle periods it runs after.
const SHORT_JOB_US: u64 = 10;
const SHORT_JOB_IDLES: [(Duration, &str); 2] = [
    (Duration::ZERO, "0"),
    (Duration::from_millis(100), "100 ms"),
];

fn round_trip_tries() -> usize {
    std::env::var("BLITZ_BENCH_ROUND_TRIPS").map_or(ROUND_TRIP_TRIES, |n| {
        n.parse().expect("BLITZ_BENCH_ROUND_TRIPS: a number")
    })
}

/// One round-trip row: `run` is called from this (outside) thread after `idle` without work,
/// `tries` times; the row holds the median and, in its `p90_us` field, the p99 of the time from
/// the call to its return. Every result is checked with `check`, outside the timed region. With
/// no idle period the calls follow each other back to back (after one untimed call).
fn round_trip_row<R>(
    suite: &mut Suite,
    (workload, implementation, threads): (&str, &str, usize),
    idle: Duration,
    run: impl Fn() -> R,
    check: impl Fn(&R) -> bool,
) {
    let tries = round_trip_tries();
    assert!(
        check(&run()),
        "{workload}: {implementation} at {threads} threads returned a wrong result"
    );
    let mut samples: Vec<f64> = (0..tries)
        .map(|_| {
            if !idle.is_zero() {
                std::thread::sleep(idle);
            }
            let start = Instant::now();
            let result = run();
            let elapsed = start.elapsed();
            assert!(
                check(&result),
                "{workload}: {implementation} at {threads} threads returned a wrong result"
            );
            elapsed.as_secs_f64() * 1e6
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    suite.push(Row {
        workload: workload.to_string(),
        implementation: implementation.to_string(),
        threads,
        median_us: at(0.5),
        p90_us: at(0.99),
        ratio: None,
    });
}

/// The round trip of a caller outside the pool: from the call that runs a closure in the pool
/// to its return, after the pool idled for a while, for a trivial closure and for a short job.
/// blitz and rayon: `pool.install(f)`, where `f` runs on a worker (checked: it sees a worker
/// index). chili runs `f` on the calling thread, in `f(&mut pool.scope())`, which is what a
/// chili user writes: it wakes nobody.
pub(crate) fn round_trip(suite: &mut Suite) {
    // What runs in the chili scope: the same as the closures given to `install` below.
    fn trivial(_: &mut chili::Scope<'_>) -> u32 {
        black_box(1)
    }
    fn short_job(_: &mut chili::Scope<'_>, n: u64) -> u64 {
        spin(black_box(n), 7)
    }
    let n = spin_iterations_us(SHORT_JOB_US);
    let want = spin(n, 7);
    for &t in &suite.threads.clone() {
        for (idle, label) in ROUND_TRIP_IDLES {
            let workload = format!("round trip, idle {label}");
            if !suite.wants(&workload) {
                continue;
            }
            let key = |i| (workload.as_str(), i, t);
            let pool = blitz_pool(t);
            let on_worker = |i: &Option<usize>| i.is_some_and(|i| i < t);
            let run = || pool.install(blitz::current_thread_index);
            round_trip_row(suite, key("blitz"), idle, run, on_worker);
            drop(pool);
            let pool = rayon_pool(t);
            let run = || pool.install(rayon::current_thread_index);
            round_trip_row(suite, key("rayon"), idle, run, on_worker);
            drop(pool);
            let pool = chili_pool(t);
            let run = || trivial(&mut pool.scope());
            round_trip_row(suite, key("chili"), idle, run, |&r| r == 1);
        }
        for (idle, label) in SHORT_JOB_IDLES {
            let workload = format!("round trip, {SHORT_JOB_US} us job, idle {label}");
            if !suite.wants(&workload) {
                continue;
            }
            let key = |i| (workload.as_str(), i, t);
            let ok = |r: &u64| *r == want;
            let pool = blitz_pool(t);
            let run = || pool.install(|| spin(black_box(n), 7));
            round_trip_row(suite, key("blitz"), idle, run, ok);
            drop(pool);
            let pool = rayon_pool(t);
            let run = || pool.install(|| spin(black_box(n), 7));
            round_trip_row(suite, key("rayon"), idle, run, ok);
            drop(pool);
            let pool = chili_pool(t);
            let run = || short_job(&mut pool.scope(), n);
            round_trip_row(suite, key("chili"), idle, run, ok);
        }
    }
}
