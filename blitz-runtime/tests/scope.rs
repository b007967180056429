//! `scope`, `spawn` and `broadcast` on started pools.

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};

use blitz_runtime::{Scope, ThreadPool, ThreadPoolBuilder};

fn pool(n: usize) -> ThreadPool {
    ThreadPoolBuilder::new().num_threads(n).build().unwrap()
}

#[test]
fn scope_waits_for_tasks_that_borrow_locals() {
    let pool = pool(2);
    let mut v = vec![0u64; 1000];
    let base = 7u64;
    pool.install(|| {
        blitz_runtime::scope(|s| {
            for (i, chunk) in v.chunks_mut(100).enumerate() {
                let base = &base;
                s.spawn(move |_| {
                    for (j, x) in chunk.iter_mut().enumerate() {
                        *x = *base + (i * 100 + j) as u64;
                    }
                });
            }
        })
    });
    let expected: Vec<u64> = (0..1000).map(|i| 7 + i).collect();
    assert_eq!(v, expected);
}

#[test]
fn pool_scope_returns_the_body_value() {
    let pool = pool(2);
    let counter = AtomicUsize::new(0);
    let r = pool.scope(|s| {
        s.spawn(|_| {
            counter.fetch_add(1, Ordering::Relaxed);
        });
        "body"
    });
    assert_eq!(r, "body");
    assert_eq!(counter.into_inner(), 1);
}

#[test]
fn nested_scopes() {
    let pool = pool(2);
    let counter = AtomicUsize::new(0);
    pool.install(|| {
        blitz_runtime::scope(|outer| {
            for _ in 0..10 {
                outer.spawn(|_| {
                    // An inner scope inside an outer task: it waits only for its own tasks.
                    let inner_count = AtomicUsize::new(0);
                    blitz_runtime::scope(|inner| {
                        for _ in 0..10 {
                            inner.spawn(|_| {
                                inner_count.fetch_add(1, Ordering::Relaxed);
                                counter.fetch_add(1, Ordering::Relaxed);
                            });
                        }
                    });
                    assert_eq!(inner_count.into_inner(), 10);
                });
            }
        })
    });
    assert_eq!(counter.into_inner(), 100);
}

/// Spawns a binary tree of tasks of the given depth; each task counts itself.
fn spawn_tree<'scope>(s: &Scope<'scope>, depth: u32, count: &'scope AtomicUsize) {
    count.fetch_add(1, Ordering::Relaxed);
    if depth > 0 {
        s.spawn(move |s| spawn_tree(s, depth - 1, count));
        s.spawn(move |s| spawn_tree(s, depth - 1, count));
    }
}

#[test]
fn tasks_spawn_more_tasks() {
    let pool = pool(2);
    let count = AtomicUsize::new(0);
    pool.scope(|s| spawn_tree(s, 12, &count));
    assert_eq!(count.into_inner(), (1 << 13) - 1);
}

#[test]
fn a_hundred_thousand_spawns_in_one_scope() {
    let pool = pool(2);
    let count = AtomicUsize::new(0);
    let seen_workers: Vec<AtomicUsize> = (0..2).map(|_| AtomicUsize::new(0)).collect();
    pool.scope(|s| {
        for _ in 0..100_000 {
            s.spawn(|_| {
                count.fetch_add(1, Ordering::Relaxed);
                let index = blitz_runtime::current_thread_index().unwrap();
                seen_workers[index].fetch_add(1, Ordering::Relaxed);
            });
        }
    });
    assert_eq!(count.into_inner(), 100_000);
    let per_worker: usize = seen_workers.iter().map(|c| c.load(Ordering::Relaxed)).sum();
    assert_eq!(
        per_worker, 100_000,
        "every task ran on a worker of the pool"
    );
}

#[test]
fn a_panicking_task_does_not_stop_the_others_and_reaches_the_caller() {
    let pool = pool(2);
    let ran = AtomicUsize::new(0);
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.scope(|s| {
            for i in 0..100 {
                let ran = &ran;
                s.spawn(move |_| {
                    if i == 37 {
                        panic!("task 37 failed");
                    }
                    ran.fetch_add(1, Ordering::Relaxed);
                });
            }
        })
    }));
    let payload = result.expect_err("the task's panic must reach the scope's caller");
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"task 37 failed"));
    assert_eq!(ran.into_inner(), 99, "every other task still ran");
    // The pool is still usable.
    assert_eq!(
        pool.scope(|s| {
            s.spawn(|_| {});
            5
        }),
        5
    );
}

#[test]
fn a_panicking_body_still_waits_for_its_tasks() {
    let pool = pool(2);
    let ran = AtomicUsize::new(0);
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.scope(|s| {
            for _ in 0..50 {
                s.spawn(|_| {
                    ran.fetch_add(1, Ordering::Relaxed);
                });
            }
            panic!("body failed");
        })
    }));
    assert_eq!(
        result.unwrap_err().downcast_ref::<&str>(),
        Some(&"body failed")
    );
    assert_eq!(ran.into_inner(), 50);
}

#[test]
fn scope_from_outside_every_pool_uses_the_global_pool() {
    let mut a = 0;
    let mut b = 0;
    blitz_runtime::scope(|s| {
        s.spawn(|_| a = 1);
        s.spawn(|_| b = 2);
    });
    assert_eq!(a + b, 3);
}

#[test]
fn spawn_panic_goes_to_the_panic_handler() {
    let (tx, rx) = mpsc::channel::<String>();
    let tx = Mutex::new(tx);
    let pool = ThreadPoolBuilder::new()
        .num_threads(2)
        .panic_handler(move |payload| {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .unwrap_or_default();
            tx.lock().unwrap().send(message).unwrap();
        })
        .build()
        .unwrap();
    let ran_after = Arc::new(AtomicUsize::new(0));
    pool.spawn(|| panic!("spawned task failed"));
    assert_eq!(rx.recv().unwrap(), "spawned task failed");
    // The pool keeps working after the handled panic, including spawns from a worker.
    let (done_tx, done_rx) = mpsc::channel();
    {
        let ran_after = Arc::clone(&ran_after);
        pool.install(move || {
            blitz_runtime::spawn(move || {
                ran_after.fetch_add(1, Ordering::Relaxed);
                done_tx.send(()).unwrap();
            })
        });
    }
    done_rx.recv().unwrap();
    drop(pool);
    assert_eq!(ran_after.load(Ordering::Relaxed), 1);
}

#[test]
fn dropping_the_pool_runs_pending_spawns() {
    let count = Arc::new(AtomicUsize::new(0));
    let pool = pool(2);
    for _ in 0..1000 {
        let count = Arc::clone(&count);
        pool.spawn(move || {
            count.fetch_add(1, Ordering::Relaxed);
        });
    }
    drop(pool);
    assert_eq!(count.load(Ordering::Relaxed), 1000);
}

/// Runs a broadcast that records, per worker index, how often it ran there, and checks that
/// each call ran on the worker it reports.
fn check_broadcast_once_per_worker(pool: &ThreadPool, from_inside: bool) {
    let n = pool.current_num_threads();
    let runs: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
    let op = |ctx: blitz_runtime::BroadcastContext<'_>| {
        assert_eq!(ctx.num_threads(), n);
        assert_eq!(blitz_runtime::current_thread_index(), Some(ctx.index()));
        runs[ctx.index()].fetch_add(1, Ordering::Relaxed);
        ctx.index() * 3
    };
    let results = if from_inside {
        pool.install(|| blitz_runtime::broadcast(op))
    } else {
        pool.broadcast(op)
    };
    assert_eq!(results, (0..n).map(|i| i * 3).collect::<Vec<_>>());
    for (i, r) in runs.iter().enumerate() {
        assert_eq!(r.load(Ordering::Relaxed), 1, "worker {i}");
    }
}

/// Waits (without a time limit) until every worker of `pool` is blocked in the sleep protocol.
fn wait_until_all_asleep(pool: &ThreadPool) {
    while pool.sleeping_threads() < pool.current_num_threads() {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

#[test]
fn broadcast_runs_once_per_worker_with_2_and_4_threads() {
    for n in [2, 4] {
        let pool = pool(n);
        for _ in 0..50 {
            check_broadcast_once_per_worker(&pool, false);
            check_broadcast_once_per_worker(&pool, true);
        }
    }
}

#[test]
fn broadcast_wakes_sleeping_workers() {
    for n in [2, 4] {
        let pool = pool(n);
        for round in 0..5 {
            wait_until_all_asleep(&pool);
            check_broadcast_once_per_worker(&pool, round % 2 == 0);
        }
    }
}

#[test]
fn broadcast_panic_reaches_the_caller_after_all_ran() {
    let pool = pool(4);
    let ran = AtomicUsize::new(0);
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.broadcast(|ctx| {
            ran.fetch_add(1, Ordering::Relaxed);
            if ctx.index() == 2 {
                panic!("worker 2");
            }
        })
    }));
    assert_eq!(
        result.unwrap_err().downcast_ref::<&str>(),
        Some(&"worker 2")
    );
    assert_eq!(ran.into_inner(), 4);
    assert_eq!(pool.broadcast(|ctx| ctx.index()), vec![0, 1, 2, 3]);
}

/// `b.in_place_scope` called by every worker of `a`, whose tasks need `a`: the callers must run
/// `a`'s jobs while they wait (as `install` does), or nothing is left to run the tasks' `a`
/// work and the scopes wait forever.
#[test]
fn in_place_scope_on_another_pool_keeps_the_callers_pool_running() {
    let (a, b) = (pool(2), pool(2));
    let done = AtomicUsize::new(0);
    a.broadcast(|_| {
        b.in_place_scope(|s| {
            s.spawn(|_| {
                done.fetch_add(a.install(|| 3), Ordering::SeqCst);
            });
        });
        b.in_place_scope_fifo(|s| {
            s.spawn_fifo(|_| {
                done.fetch_add(a.install(|| 4), Ordering::SeqCst);
            });
        });
    });
    assert_eq!(done.into_inner(), 2 * (3 + 4));
}

/// `Scope::spawn_broadcast` runs once per worker, borrows the caller's data, may spawn more
/// tasks into the scope, and its panic reaches the scope's caller after every run finished.
#[test]
fn scope_spawn_broadcast_runs_once_per_worker() {
    for threads in [2, 3] {
        let pool = pool(threads);
        let per_worker: Vec<AtomicUsize> = (0..threads).map(|_| AtomicUsize::new(0)).collect();
        let spawned = AtomicUsize::new(0);
        pool.scope(|s| {
            s.spawn_broadcast(|s, ctx| {
                assert_eq!(ctx.num_threads(), threads);
                per_worker[ctx.index()].fetch_add(1, Ordering::SeqCst);
                s.spawn(|_| {
                    spawned.fetch_add(1, Ordering::SeqCst);
                });
            });
        });
        assert!(per_worker.iter().all(|n| n.load(Ordering::SeqCst) == 1));
        assert_eq!(spawned.into_inner(), threads);

        let finished = AtomicUsize::new(0);
        let err = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.scope(|s| {
                s.spawn_broadcast(|_, ctx| {
                    if ctx.index() == 0 {
                        panic!("broadcast run 0");
                    }
                    finished.fetch_add(1, Ordering::SeqCst);
                });
            })
        }))
        .unwrap_err();
        assert_eq!(err.downcast_ref::<&str>(), Some(&"broadcast run 0"));
        assert_eq!(finished.into_inner(), threads - 1);
        // The pool is still usable.
        assert_eq!(pool.install(|| blitz_runtime::join(|| 1, || 2)), (1, 2));
    }
}
