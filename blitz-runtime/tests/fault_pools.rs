//! Fault paths of pools used in unusual orders: dropped on a worker of another pool, given
//! work from an exit handler, failing half-way through their build. Nothing may hang, lose
//! work silently or leak a thread. See `common` for the harness.

mod common;

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex, mpsc};

use blitz_runtime::ThreadPoolBuilder;

use common::{Watchdog, describe, pool};

// ---------------------------------------------------------------------------------------------
// 4. Dropping a pool on a worker of another pool.

/// Pool A's pending task needs every worker of pool B (a broadcast on B), and A is dropped on
/// a worker of B. The drop must not wait for A's work (which waits for the dropping thread),
/// and A's workers must still finish that work and exit.
#[test]
fn dropping_a_pool_on_a_worker_of_another_pool_does_not_wait_for_it() {
    let _watchdog = Watchdog::arm("dropping_a_pool_on_a_worker_of_another_pool");
    let b = Arc::new(pool(2));
    let exited = Arc::new(AtomicUsize::new(0));
    let a = {
        let exited = Arc::clone(&exited);
        ThreadPoolBuilder::new()
            .num_threads(2)
            .exit_handler(move |_| {
                exited.fetch_add(1, Ordering::SeqCst);
            })
            .build()
            .unwrap()
    };
    let (done_tx, done_rx) = mpsc::channel();
    b.install(|| {
        let b_for_a = Arc::clone(&b);
        a.spawn(move || {
            let indices = b_for_a.broadcast(|ctx| ctx.index());
            done_tx.send(indices).unwrap();
        });
        drop(a);
    });
    assert_eq!(done_rx.recv().unwrap(), vec![0, 1], "A's work ran");
    // A's workers exit once their work is done (joined in the background).
    while exited.load(Ordering::SeqCst) < 2 {
        std::thread::yield_now();
    }
}

/// The workers wait for the thread that drops their pool: each exit handler meets it at a
/// barrier after the drop (as rayon's test of exit handlers does). The drop must return
/// (after waiting a while for the workers) so that the barrier can open.
#[test]
fn exit_handlers_that_wait_for_the_dropping_thread_do_not_hang_the_drop() {
    let _watchdog = Watchdog::arm("exit_handlers_that_wait_for_the_dropping_thread");
    let workers = 4;
    let barrier = Arc::new(Barrier::new(workers + 1));
    let ran = Arc::new(AtomicUsize::new(0));
    let pool = {
        let (barrier, ran) = (Arc::clone(&barrier), Arc::clone(&ran));
        ThreadPoolBuilder::new()
            .num_threads(workers)
            .exit_handler(move |_| {
                ran.fetch_add(1, Ordering::SeqCst);
                barrier.wait();
            })
            .build()
            .unwrap()
    };
    assert_eq!(pool.join(|| 1, || 2), (1, 2));
    drop(pool);
    barrier.wait();
    assert_eq!(ran.load(Ordering::SeqCst), workers);
}

/// The same with start handlers, and the pool dropped right after `build` (rayon's test of
/// start handlers: `let _ = builder.build()`, then the barrier).
#[test]
fn start_handlers_that_wait_for_the_dropping_thread_do_not_hang_the_drop() {
    let _watchdog = Watchdog::arm("start_handlers_that_wait_for_the_dropping_thread");
    let workers = 4;
    let barrier = Arc::new(Barrier::new(workers + 1));
    let ran = Arc::new(AtomicUsize::new(0));
    {
        let (barrier, ran) = (Arc::clone(&barrier), Arc::clone(&ran));
        let _ = ThreadPoolBuilder::new()
            .num_threads(workers)
            .start_handler(move |_| {
                ran.fetch_add(1, Ordering::SeqCst);
                barrier.wait();
            })
            .build()
            .unwrap();
    }
    barrier.wait();
    assert_eq!(ran.load(Ordering::SeqCst), workers);
}

/// A spawned task waits for a message that its pool's dropper sends after the drop: the drop
/// returns, the task still runs to the end on the terminating pool.
#[test]
fn a_spawned_task_that_waits_for_the_dropping_thread_still_completes() {
    let _watchdog = Watchdog::arm("a_spawned_task_that_waits_for_the_dropping_thread");
    let pool = pool(2);
    let (message_tx, message_rx) = mpsc::channel::<u32>();
    let (done_tx, done_rx) = mpsc::channel::<u32>();
    pool.spawn(move || {
        let message = message_rx.recv().unwrap();
        done_tx.send(message + 1).unwrap();
    });
    drop(pool);
    message_tx.send(41).unwrap();
    assert_eq!(done_rx.recv().unwrap(), 42);
}

// ---------------------------------------------------------------------------------------------
// 5. Work submitted from an exit handler.

/// An exit handler that tries `op` on its (terminating) pool; returns what each try panicked
/// with, or "ran" if it did not panic.
fn exit_handler_tries(op: fn()) -> Vec<String> {
    let _watchdog = Watchdog::arm("exit_handler_tries");
    let outcomes = Arc::new(Mutex::new(Vec::new()));
    let pool = {
        let outcomes = Arc::clone(&outcomes);
        ThreadPoolBuilder::new()
            .num_threads(2)
            .exit_handler(move |_| {
                let outcome = match panic::catch_unwind(op) {
                    Ok(()) => "ran".to_string(),
                    Err(payload) => describe(payload),
                };
                outcomes.lock().unwrap().push(outcome);
            })
            .build()
            .unwrap()
    };
    pool.install(|| ());
    drop(pool);
    let outcomes = outcomes.lock().unwrap().clone();
    assert_eq!(outcomes.len(), 2, "both exit handlers ran");
    outcomes
}

#[test]
fn spawn_from_an_exit_handler_is_rejected_with_a_clear_panic() {
    for outcome in exit_handler_tries(|| blitz_runtime::spawn(|| ())) {
        assert!(outcome.contains("shutting down"), "{outcome}");
    }
}

#[test]
fn broadcast_from_an_exit_handler_is_rejected_with_a_clear_panic() {
    for outcome in exit_handler_tries(|| drop(blitz_runtime::broadcast(|ctx| ctx.index()))) {
        assert!(outcome.contains("shutting down"), "{outcome}");
    }
}

#[test]
fn scope_spawn_broadcast_from_an_exit_handler_is_rejected_with_a_clear_panic() {
    // A job for every worker, the exited ones included: queued, it would never run, and the
    // scope (and so the pool's drop) would wait for it forever.
    let outcomes = exit_handler_tries(|| blitz_runtime::scope(|s| s.spawn_broadcast(|_, _| ())));
    for outcome in outcomes {
        assert!(outcome.contains("shutting down"), "{outcome}");
    }
}

/// Work that completes on the calling worker alone still runs in an exit handler.
#[test]
fn join_and_scope_in_an_exit_handler_run() {
    let outcomes = exit_handler_tries(|| {
        assert_eq!(blitz_runtime::join(|| 1, || 2), (1, 2));
        let mut x = 0;
        blitz_runtime::scope(|s| s.spawn(|_| x = 3));
        assert_eq!(x, 3);
    });
    assert_eq!(outcomes, vec!["ran", "ran"]);
}

// ---------------------------------------------------------------------------------------------
// 6. A failing build stops and joins the workers it started.

/// A `thread_name` closure that panics for worker 2, so that a build of three workers fails
/// with two started.
fn name_all_but_worker_2(index: usize) -> String {
    if index == 2 {
        panic!("no name for worker 2");
    }
    format!("named-{index}")
}

#[test]
fn panicking_thread_name_stops_the_workers_already_started() {
    let _watchdog = Watchdog::arm("panicking_thread_name");
    for _ in 0..50 {
        // Held by the pool's handlers, so by every worker until it has exited.
        let sentinel = Arc::new(());
        let in_handler = Arc::clone(&sentinel);
        let err = panic::catch_unwind(|| {
            ThreadPoolBuilder::new()
                .num_threads(3)
                .thread_name(name_all_but_worker_2)
                .start_handler(move |_| {
                    let _ = &in_handler;
                })
                .build()
        })
        .unwrap_err();
        assert_eq!(describe(err), "no name for worker 2");
        assert_eq!(
            Arc::strong_count(&sentinel),
            1,
            "the two started workers were joined"
        );
    }
}

/// Start handlers that wait at a barrier for the caller of `build`, which it reaches only
/// after `build` returned: a failed build must not wait for those workers without a limit.
#[test]
fn a_failed_build_returns_while_start_handlers_wait_for_its_caller() {
    let _watchdog = Watchdog::arm("a_failed_build_returns_while_start_handlers_wait");
    // The two started workers and the caller.
    let barrier = Arc::new(Barrier::new(3));
    let exits = Arc::new(AtomicUsize::new(0));
    let (at_start, on_exit) = (Arc::clone(&barrier), Arc::clone(&exits));
    let err = panic::catch_unwind(AssertUnwindSafe(|| {
        ThreadPoolBuilder::new()
            .num_threads(3)
            .thread_name(name_all_but_worker_2)
            .start_handler(move |_| {
                at_start.wait();
            })
            .exit_handler(move |_| {
                on_exit.fetch_add(1, Ordering::SeqCst);
            })
            .build()
    }))
    .unwrap_err();
    assert_eq!(describe(err), "no name for worker 2");
    // Released, the started workers finish their handlers and exit.
    barrier.wait();
    while exits.load(Ordering::SeqCst) < 2 {
        std::thread::yield_now();
    }
}

/// A start handler that waits for every worker (a broadcast) on a build that fails half-way:
/// the workers never started would keep it, and the build's join of the started ones, waiting
/// forever. The started workers run their handlers, and the broadcast is refused there.
#[test]
fn a_failed_build_refuses_a_broadcast_that_would_wait_for_missing_workers() {
    let _watchdog = Watchdog::arm("a_failed_build_refuses_a_broadcast");
    for _ in 0..20 {
        let refusals = Arc::new(Mutex::new(Vec::new()));
        let exits = Arc::new(AtomicUsize::new(0));
        let (on_start, on_exit) = (Arc::clone(&refusals), Arc::clone(&exits));
        let err = panic::catch_unwind(|| {
            ThreadPoolBuilder::new()
                .num_threads(3)
                .thread_name(name_all_but_worker_2)
                .start_handler(move |_| {
                    let refused =
                        panic::catch_unwind(|| blitz_runtime::broadcast(|ctx| ctx.index()))
                            .unwrap_err();
                    on_start.lock().unwrap().push(describe(refused));
                    // Uncaught, the refusal is dropped too: the build reports its own error.
                    blitz_runtime::spawn_broadcast(|_| ());
                })
                .exit_handler(move |_| {
                    on_exit.fetch_add(1, Ordering::SeqCst);
                })
                .build()
        })
        .unwrap_err();
        assert_eq!(describe(err), "no name for worker 2");
        // `build` joined the two started workers: both ran both handlers.
        let refusals = refusals.lock().unwrap().clone();
        assert_eq!(refusals.len(), 2);
        for refusal in refusals {
            assert!(refusal.contains("build failed"), "{refusal}");
        }
        assert_eq!(exits.load(Ordering::SeqCst), 2);
    }
    // A build that succeeds runs the same handlers, broadcast included, on every worker.
    let handlers_run = Arc::new(AtomicUsize::new(0));
    let on_start = Arc::clone(&handlers_run);
    let pool = ThreadPoolBuilder::new()
        .num_threads(3)
        .start_handler(move |_| {
            assert_eq!(blitz_runtime::broadcast(|ctx| ctx.index()), [0, 1, 2]);
            on_start.fetch_add(1, Ordering::SeqCst);
        })
        .build()
        .unwrap();
    pool.install(|| ());
    drop(pool);
    assert_eq!(handlers_run.load(Ordering::SeqCst), 3);
}

/// rayon's test of a panicking `thread_name`: the build fails with that panic, and the workers
/// started before it ran their start and exit handlers.
#[test]
fn a_panicking_thread_name_leaves_the_started_workers_to_run_their_handlers() {
    let _watchdog = Watchdog::arm("a_panicking_thread_name_leaves_the_started_workers");
    let starts = Arc::new(AtomicUsize::new(0));
    let exits = Arc::new(AtomicUsize::new(0));
    let (on_start, on_exit) = (Arc::clone(&starts), Arc::clone(&exits));
    let builder = ThreadPoolBuilder::new()
        .num_threads(10)
        .start_handler(move |_| {
            on_start.fetch_add(1, Ordering::SeqCst);
        })
        .exit_handler(move |_| {
            on_exit.fetch_add(1, Ordering::SeqCst);
        })
        .thread_name(|i| {
            if i >= 5 {
                panic!("no name past 4");
            }
            format!("named#{i}")
        });
    let err = panic::catch_unwind(AssertUnwindSafe(|| builder.build())).unwrap_err();
    assert_eq!(describe(err), "no name past 4");
    assert_eq!(starts.load(Ordering::SeqCst), 5);
    assert_eq!(exits.load(Ordering::SeqCst), 5);
}
