//! The soak's fault mode (`--faults`): operations that misbehave where nobody expects it, mixed
//! into the random ones. Panic payloads and results whose `Drop` panics (in scopes, joins and
//! broadcasts), pools dropped on a worker of another pool while their pending work needs that
//! pool, exit handlers that submit work, thread-name closures that panic half-way through a
//! build. Each must end the way the API promises, with no hang (the soak's watchdog) and no
//! leaked thread; every fault planted is counted.

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};

use blitz::{ThreadPool, ThreadPoolBuilder};

use super::{Planted, Rng, SizeStats, still_usable};

/// Fault operations run, and faults planted in them (a misbehaving payload, value, handler or
/// closure each count one).
pub(super) static FAULT_OPS: AtomicUsize = AtomicUsize::new(0);
pub(super) static FAULTS_INJECTED: AtomicU64 = AtomicU64::new(0);

/// A panic payload or a result whose `Drop` panics (with a `Planted` payload, which the soak's
/// panic hook keeps quiet). The runtime must drop it without unwinding out of its bookkeeping;
/// the soak defuses the ones that reach it.
pub(super) struct Bomb(pub(super) Planted);

impl Drop for Bomb {
    fn drop(&mut self) {
        panic::panic_any(self.0);
    }
}

/// Plants one more fault.
fn injected(n: u64) {
    FAULTS_INJECTED.fetch_add(n, Ordering::Relaxed);
}

/// What a caught panic carried: the `Planted` of a `Bomb` (defused: forgotten, not dropped) or
/// of a plain planted panic.
fn planted_in(payload: Box<dyn std::any::Any + Send>) -> Option<Planted> {
    match payload.downcast::<Bomb>() {
        Ok(bomb) => {
            let planted = bomb.0;
            std::mem::forget(bomb);
            Some(planted)
        }
        Err(payload) => payload.downcast_ref::<Planted>().copied(),
    }
}

/// The number of fault kinds `run_fault` draws from.
const KINDS: u64 = 7;

/// Runs one random fault operation on `pool` (one of the shared pools; `shared` holds them all),
/// checking how it ends.
pub(super) fn run_fault(
    pool: &ThreadPool,
    shared: &Arc<Vec<(usize, ThreadPool)>>,
    rng: &mut Rng,
    stats: &SizeStats,
) {
    let id = rng.next();
    match rng.below(KINDS) {
        0 => scope_with_bombs(pool, rng, stats, id),
        1 | 2 => join_discarding_a_bomb(pool, rng, stats, id),
        3 => broadcast_with_bombs(pool, stats, id),
        4 => drop_pool_on_a_worker(pool, shared, rng, stats),
        5 => exit_handler_submits_work(stats),
        _ => failing_thread_name(rng, stats),
    }
    FAULT_OPS.fetch_add(1, Ordering::Relaxed);
}

/// A scope whose tasks panic with bombs, and whose body panics too: the first panic surfaces,
/// every task ran, the pool still works.
fn scope_with_bombs(pool: &ThreadPool, rng: &mut Rng, stats: &SizeStats, id: u64) {
    let what = "fault: scope with bomb payloads";
    let tasks = 2 + rng.below(50);
    let body_panics = rng.below(2) == 0;
    let ran = AtomicU64::new(0);
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.install(|| {
            blitz::scope(|s| {
                for i in 0..tasks {
                    let ran = &ran;
                    s.spawn(move |_| {
                        ran.fetch_add(1, Ordering::Relaxed);
                        if i % 2 == 0 {
                            panic::panic_any(Bomb(Planted {
                                site: "scope task bomb",
                                id: id ^ i,
                            }));
                        }
                    });
                }
                if body_panics {
                    panic::panic_any(Bomb(Planted {
                        site: "scope body bomb",
                        id,
                    }));
                }
            })
        })
    }));
    injected(tasks.div_ceil(2) + u64::from(body_panics));
    match result.map_err(planted_in) {
        Err(Some(Planted { site, .. })) if site.ends_with("bomb") => {}
        Err(other) => stats.fail(what, &format!("surfaced {other:?}")),
        Ok(()) => stats.fail(what, "returned although its tasks panicked"),
    }
    stats.check(what, ran.into_inner(), tasks);
    still_usable(pool, rng, stats);
}

/// A join where one side panics and the other leaves a bomb (its value, or its own panic's
/// payload): the planted panic of the first side surfaces (`a`'s when both panic).
fn join_discarding_a_bomb(pool: &ThreadPool, rng: &mut Rng, stats: &SizeStats, id: u64) {
    let what = "fault: join discarding a bomb";
    let depth = rng.below(4) as u32;
    let a_panics = rng.below(2) == 0;
    let b_panics = !a_panics || rng.below(2) == 0;
    let expected = Planted {
        site: if a_panics { "join a" } else { "join b" },
        id,
    };
    fn nest<R>(w: &blitz::Worker, depth: u32, f: &(dyn Fn(&blitz::Worker) -> R + Sync)) -> R {
        if depth == 0 {
            return f(w);
        }
        w.join(|w| nest(w, depth - 1, f), |_| ()).0
    }
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.install_with_worker(|w| {
            nest(w, depth, &|w| {
                w.join(
                    |_| {
                        if a_panics {
                            panic::panic_any(Planted { site: "join a", id });
                        }
                        Bomb(Planted {
                            site: "a value",
                            id,
                        })
                    },
                    |_| {
                        if b_panics && a_panics {
                            // Both panic: `b`'s payload is discarded, and its drop panics.
                            panic::panic_any(Bomb(Planted { site: "b bomb", id }));
                        }
                        if b_panics {
                            panic::panic_any(Planted { site: "join b", id });
                        }
                        Bomb(Planted {
                            site: "b value",
                            id,
                        })
                    },
                )
            })
        })
    }));
    injected(1);
    match result {
        Ok(values) => {
            std::mem::forget(values);
            stats.fail(what, "returned although a side panicked");
        }
        Err(payload) => {
            let got = planted_in(payload);
            if got != Some(expected) {
                stats.fail(what, &format!("surfaced {got:?}, expected {expected:?}"));
            }
        }
    }
    still_usable(pool, rng, stats);
}

/// A broadcast where one worker panics and the others return bombs.
fn broadcast_with_bombs(pool: &ThreadPool, stats: &SizeStats, id: u64) {
    let what = "fault: broadcast with bomb values";
    let threads = pool.current_num_threads();
    let bad = (id % threads as u64) as usize;
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.broadcast(|ctx| {
            if ctx.index() == bad {
                panic::panic_any(Planted {
                    site: "broadcast",
                    id,
                });
            }
            Bomb(Planted {
                site: "broadcast value",
                id,
            })
        })
    }));
    injected(threads as u64);
    match result {
        Ok(values) => {
            std::mem::forget(values);
            stats.fail(what, "returned although a worker panicked");
        }
        Err(payload) => {
            let got = planted_in(payload);
            let expected = Planted {
                site: "broadcast",
                id,
            };
            if got != Some(expected) {
                stats.fail(what, &format!("surfaced {got:?}, expected {expected:?}"));
            }
        }
    }
}

/// A fresh pool whose pending task broadcasts on a shared pool is dropped on a worker of that
/// shared pool: the drop must not wait for it, and the task must still complete.
fn drop_pool_on_a_worker(
    pool: &ThreadPool,
    shared: &Arc<Vec<(usize, ThreadPool)>>,
    rng: &mut Rng,
    stats: &SizeStats,
) {
    let what = "fault: pool dropped on a worker of another pool";
    let index = shared
        .iter()
        .position(|(_, p)| std::ptr::eq(p, pool))
        .expect("a shared pool");
    let fresh = ThreadPoolBuilder::new()
        .num_threads(1 + rng.below(3) as usize)
        .build()
        .expect("pool");
    let (done, finished) = mpsc::channel();
    let shared_for_task = Arc::clone(shared);
    pool.install(|| {
        fresh.spawn(move || {
            let target = &shared_for_task[index].1;
            let _ = done.send(target.broadcast(|ctx| ctx.index()).len());
        });
        drop(fresh);
    });
    injected(1);
    match finished.recv() {
        Ok(n) => stats.check(what, n, pool.current_num_threads()),
        Err(_) => stats.fail(what, "the dropped pool's task never ran"),
    }
}

/// A pool whose exit handlers try `spawn` and `broadcast` on it: both must be rejected with a
/// panic (not lost, not hung).
fn exit_handler_submits_work(stats: &SizeStats) {
    let what = "fault: exit handler submits work";
    let rejected = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&rejected);
    let threads = 2;
    let pool = ThreadPoolBuilder::new()
        .num_threads(threads)
        .exit_handler(move |_| {
            let spawn = panic::catch_unwind(|| blitz::spawn(|| ())).is_err();
            let broadcast = panic::catch_unwind(|| blitz::broadcast(|_| ())).is_err();
            record.lock().unwrap().push(spawn && broadcast);
        })
        .build()
        .expect("pool");
    pool.install(|| ());
    drop(pool);
    injected(2 * threads as u64);
    let rejected = rejected.lock().unwrap().clone();
    stats.check(what, rejected, vec![true; threads]);
}

/// A build whose thread-name closure panics at a random worker: the panic surfaces and every
/// worker already started is joined (the handlers they hold are dropped).
fn failing_thread_name(rng: &mut Rng, stats: &SizeStats) {
    let what = "fault: thread_name panics";
    let threads = 1 + rng.below(4) as usize;
    let bad = rng.below(threads as u64) as usize;
    let sentinel = Arc::new(());
    let held = Arc::clone(&sentinel);
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(move |i| {
                if i == bad {
                    panic::panic_any(Planted {
                        site: "thread name",
                        id: i as u64,
                    });
                }
                format!("soak-fault-{i}")
            })
            .start_handler(move |_| {
                let _ = &held;
            })
            .build()
    }));
    injected(1);
    match result {
        Ok(_) => stats.fail(what, "the build succeeded"),
        Err(payload) => {
            let got = planted_in(payload);
            let expected = Planted {
                site: "thread name",
                id: bad as u64,
            };
            if got != Some(expected) {
                stats.fail(what, &format!("surfaced {got:?}, expected {expected:?}"));
            }
        }
    }
    stats.check(
        "fault: workers of a failed build joined",
        Arc::strong_count(&sentinel),
        1,
    );
}
