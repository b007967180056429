//! Fault paths of panic payloads and results whose `Drop` panics: dropping one must never
//! unwind out of the runtime's bookkeeping (a scope's count, a worker's loop, a join's wait),
//! and the panic that surfaces is the one the API promises. See `common` for the harness.

mod common;

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use common::{DropBomb, Watchdog, assert_child_succeeds, child_scenario, describe, pool, wait_for};

/// The child's side: runs the scenario named by `common::CHILD_ENV`; without it, does nothing.
#[test]
fn fault_child() {
    let Some(scenario) = child_scenario() else {
        return;
    };
    let _watchdog = Watchdog::arm("fault_child");
    match scenario.as_str() {
        "join_b_stolen_result_drop_panics" => join_b_stolen_discarded_drop_panics(false),
        "join_b_stolen_payload_drop_panics" => join_b_stolen_discarded_drop_panics(true),
        "broadcast_discarded_drop_panics" => broadcast_discarded_drop_panics(),
        "join_a_value_drop_panics_b_panics" => join_a_value_drop_panics_b_panics(),
        other => panic!("unknown scenario {other}"),
    }
}

// ---------------------------------------------------------------------------------------------
// 2. A task's panic payload whose `Drop` panics, on a worker that does not own the scope.

/// Both tasks panic with payloads whose `Drop` panics, and the scope body panics too: at least
/// one task payload loses and is dropped, on the worker that ran the task. Neither the worker
/// nor the scope may be lost over it: the scope returns the first payload and the pool keeps
/// both its workers.
#[test]
fn losing_task_payload_with_panicking_drop_does_not_kill_its_worker() {
    let _watchdog = Watchdog::arm("losing_task_payload_with_panicking_drop");
    let pool = pool(2);
    for _ in 0..20 {
        let ran_on_peer = AtomicUsize::new(0);
        let err = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.install(|| {
                let finished = &AtomicUsize::new(0);
                blitz_runtime::scope(|s| {
                    let owner = blitz_runtime::current_thread_index();
                    for name in ["task 1", "task 2"] {
                        let ran_on_peer = &ran_on_peer;
                        s.spawn(move |_| {
                            if blitz_runtime::current_thread_index() != owner {
                                ran_on_peer.fetch_add(1, Ordering::Relaxed);
                            }
                            finished.fetch_add(1, Ordering::Release);
                            panic::panic_any(DropBomb(name));
                        });
                    }
                    // Leave both tasks to the peer: the body does not wait in the scope.
                    while finished.load(Ordering::Acquire) < 2 {
                        std::thread::yield_now();
                    }
                    panic!("body");
                })
            })
        }))
        .unwrap_err();
        let first = describe(err);
        assert!(
            ["bomb task 1", "bomb task 2", "body"].contains(&first.as_str()),
            "the first panic surfaces, not a payload's drop: {first}"
        );
        assert_eq!(ran_on_peer.into_inner(), 2, "the peer ran both tasks");
        // Both workers are still alive.
        assert_eq!(pool.broadcast(|ctx| ctx.index()), vec![0, 1]);
    }
}

// ---------------------------------------------------------------------------------------------
// 3. `join` where `a` panics and what `b` left has a panicking `Drop`.

/// `b` runs inline (nobody stole it): `a`'s panic surfaces, whatever `b` returned or threw.
#[test]
fn join_inline_b_discarded_drop_panics_a_payload_surfaces() {
    let _watchdog = Watchdog::arm("join_inline_b_discarded_drop_panics");
    let pool = pool(2);
    for b_panics in [false, true] {
        // Depth 1: the outermost fork is published, the inner one stays private (or is
        // promoted and popped back): either way `b` runs on this thread after `a`.
        let err = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.install_with_worker(|w| {
                w.join(
                    |w| {
                        w.join(
                            |_| panic!("a"),
                            |_| {
                                if b_panics {
                                    panic::panic_any(DropBomb("b payload"));
                                }
                                DropBomb("b value")
                            },
                        )
                    },
                    |_| (),
                )
            })
        }))
        .err()
        .expect("a panicked");
        assert_eq!(describe(err), "a", "b panics: {b_panics}");
    }
    assert_eq!(pool.join(|| 1, || 2), (1, 2));
}

/// The scenario of the two `join_stolen_*` tests: `b` is stolen by the peer and leaves a value
/// (or payload) whose `Drop` panics; then `a` panics. `a`'s payload must surface.
fn join_b_stolen_discarded_drop_panics(b_panics: bool) {
    let pool = pool(2);
    let b_started = AtomicBool::new(false);
    let err = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.install_with_worker(|w| {
            let owner = w.index();
            // The outermost fork of a new call tree is published at once: the idle peer
            // steals `b`, and `a` waits for that before panicking.
            w.join(
                |_| {
                    wait_for(&b_started);
                    panic!("a")
                },
                |w| {
                    assert_ne!(w.index(), owner, "b was stolen");
                    b_started.store(true, Ordering::Release);
                    if b_panics {
                        panic::panic_any(DropBomb("b payload"));
                    }
                    DropBomb("b value")
                },
            )
        })
    }))
    .err()
    .expect("a panicked");
    assert_eq!(describe(err), "a");
    assert_eq!(pool.join(|| 1, || 2), (1, 2));
}

#[test]
fn join_stolen_b_value_drop_panics_a_payload_surfaces() {
    assert_child_succeeds("join_b_stolen_result_drop_panics");
}

#[test]
fn join_stolen_b_payload_drop_panics_a_payload_surfaces() {
    assert_child_succeeds("join_b_stolen_payload_drop_panics");
}

/// A broadcast where worker 1 panics and the others return values whose `Drop` panics: the
/// panic surfaces, and the discarded values do not turn it into an abort.
fn broadcast_discarded_drop_panics() {
    let pool = pool(3);
    let err = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.broadcast(|ctx| {
            if ctx.index() == 1 {
                panic!("worker 1");
            }
            DropBomb("broadcast value")
        })
    }))
    .err()
    .expect("worker 1 panicked");
    assert_eq!(describe(err), "worker 1");
    assert_eq!(pool.broadcast(|ctx| ctx.index()), vec![0, 1, 2]);
}

#[test]
fn broadcast_panic_surfaces_over_discarded_values_that_panic_on_drop() {
    assert_child_succeeds("broadcast_discarded_drop_panics");
}

/// `a` returns a value whose `Drop` panics and `b` panics, at several depths and many times, so
/// that `b` runs inline, is popped back after being published, or is stolen: `b`'s panic
/// surfaces every time, never the drop's (nor an abort).
fn join_a_value_drop_panics_b_panics() {
    let pool = pool(2);
    for round in 0..200 {
        let depth = round % 4;
        fn nest(w: &blitz_runtime::Worker, depth: u32) -> DropBomb {
            if depth > 0 {
                return w.join(|w| nest(w, depth - 1), |_| ()).0;
            }
            w.join(|_| DropBomb("a value"), |_| -> () { panic!("b") }).0
        }
        let err = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.install_with_worker(|w| nest(w, depth))
        }))
        .err()
        .expect("b panicked");
        assert_eq!(describe(err), "b", "round {round}");
    }
}

#[test]
fn join_b_panic_surfaces_over_a_value_that_panics_on_drop() {
    assert_child_succeeds("join_a_value_drop_panics_b_panics");
}
