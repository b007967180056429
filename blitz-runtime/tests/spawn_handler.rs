//! Pools whose threads a spawn handler of the user's starts: `spawn_handler`, `build_scoped`.

use std::io;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::JoinHandle;

use blitz_runtime::{ThreadBuilder, ThreadPool, ThreadPoolBuildError, ThreadPoolBuilder, Worker};

/// Sums `0..n` with a fork at every level, so a 2-worker pool shares it.
fn forked_sum(w: &Worker, lo: u64, hi: u64) -> u64 {
    if hi - lo <= 64 {
        return (lo..hi).sum();
    }
    let mid = lo + (hi - lo) / 2;
    let (a, b) = w.join(|w| forked_sum(w, lo, mid), |w| forked_sum(w, mid, hi));
    a + b
}

/// Checks that every worker of `pool` runs and that forked work is right.
fn check_pool_runs(pool: &ThreadPool, num_threads: usize) {
    let mut indices = pool.broadcast(|ctx| ctx.index());
    indices.sort_unstable();
    assert_eq!(indices, (0..num_threads).collect::<Vec<_>>());
    let n = 1 << 16;
    assert_eq!(
        pool.install(|| Worker::with_current(|w| forked_sum(w.unwrap(), 0, n))),
        n * (n - 1) / 2
    );
}

#[test]
fn spawn_handler_starts_every_worker_and_passes_name_and_stack_size() {
    let handles: Mutex<Vec<JoinHandle<()>>> = Mutex::new(Vec::new());
    // What the handler was given: index, name, stack size.
    type Given = (usize, Option<String>, Option<usize>);
    let seen: Mutex<Vec<Given>> = Mutex::new(Vec::new());
    let pool = ThreadPoolBuilder::new()
        .num_threads(3)
        .thread_name(|i| format!("handled-{i}"))
        .stack_size(1 << 20)
        .spawn_handler(|thread: ThreadBuilder| {
            seen.lock().unwrap().push((
                thread.index(),
                thread.name().map(str::to_owned),
                thread.stack_size(),
            ));
            let mut builder = std::thread::Builder::new();
            if let Some(name) = thread.name() {
                builder = builder.name(name.to_owned());
            }
            handles
                .lock()
                .unwrap()
                .push(builder.spawn(move || thread.run())?);
            Ok(())
        })
        .build()
        .unwrap();
    check_pool_runs(&pool, 3);
    let mut names = pool.broadcast(|_| std::thread::current().name().map(str::to_owned));
    names.sort();
    assert_eq!(
        names,
        ["handled-0", "handled-1", "handled-2"].map(|n| Some(n.to_owned()))
    );
    drop(pool);
    // The pool does not join threads it did not start; once it is dropped they exit.
    for handle in handles.into_inner().unwrap() {
        handle.join().unwrap();
    }
    let seen = seen.into_inner().unwrap();
    assert_eq!(
        seen,
        (0..3)
            .map(|i| (i, Some(format!("handled-{i}")), Some(1 << 20)))
            .collect::<Vec<_>>()
    );
}

#[test]
fn spawn_handler_error_fails_the_build_and_stops_the_started_workers() {
    let stopped = AtomicUsize::new(0);
    // The scope joins the two started workers: they must have exited.
    let result = std::thread::scope(|scope| {
        ThreadPoolBuilder::new()
            .num_threads(4)
            .exit_handler(|_| {})
            .spawn_handler(|thread| {
                if thread.index() == 2 {
                    return Err(io::Error::other("no third thread today"));
                }
                let stopped = &stopped;
                scope.spawn(move || {
                    thread.run();
                    stopped.fetch_add(1, Ordering::Relaxed);
                });
                Ok(())
            })
            .build()
    });
    assert_eq!(stopped.load(Ordering::Relaxed), 2);
    match result {
        Err(ThreadPoolBuildError::ThreadSpawn(err)) => {
            assert_eq!(err.to_string(), "no third thread today")
        }
        other => panic!("expected a ThreadSpawn error, got {other:?}"),
    }
}

#[test]
fn spawn_handler_panic_propagates_from_build_and_stops_the_started_workers() {
    let stopped = AtomicUsize::new(0);
    let payload = std::thread::scope(|scope| {
        panic::catch_unwind(AssertUnwindSafe(|| {
            ThreadPoolBuilder::new()
                .num_threads(3)
                .spawn_handler(|thread| {
                    if thread.index() == 1 {
                        panic!("handler gave up");
                    }
                    let stopped = &stopped;
                    scope.spawn(move || {
                        thread.run();
                        stopped.fetch_add(1, Ordering::Relaxed);
                    });
                    Ok(())
                })
                .build()
        }))
        .unwrap_err()
    });
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"handler gave up"));
    assert_eq!(stopped.load(Ordering::Relaxed), 1);
}

#[test]
fn build_scoped_workers_borrow_the_callers_stack_and_are_joined() {
    let started = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    let sum = ThreadPoolBuilder::new()
        .num_threads(2)
        .build_scoped(
            |thread| {
                started.fetch_add(1, Ordering::Relaxed);
                thread.run();
                finished.fetch_add(1, Ordering::Relaxed);
            },
            |pool| {
                check_pool_runs(pool, 2);
                pool.install(|| Worker::with_current(|w| forked_sum(w.unwrap(), 0, 1000)))
            },
        )
        .unwrap();
    assert_eq!(sum, 499_500);
    assert_eq!(started.load(Ordering::Relaxed), 2);
    // Every worker has returned from `run` by the time `build_scoped` returns.
    assert_eq!(finished.load(Ordering::Relaxed), 2);
}

/// The text of a panic payload (`panic!` with a literal or with a format).
fn panic_text(payload: &(dyn std::any::Any + Send)) -> Option<&str> {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or(payload.downcast_ref::<String>().map(String::as_str))
}

#[test]
fn build_scoped_propagates_a_panic_of_with_pool_after_joining_the_workers() {
    let finished = AtomicUsize::new(0);
    let payload = panic::catch_unwind(AssertUnwindSafe(|| {
        ThreadPoolBuilder::new().num_threads(2).build_scoped(
            |thread| {
                thread.run();
                finished.fetch_add(1, Ordering::Relaxed);
            },
            |pool| pool.install(|| panic!("with_pool failed")),
        )
    }))
    .unwrap_err();
    let message = panic_text(&*payload);
    assert_eq!(message, Some("with_pool failed"));
    assert_eq!(finished.load(Ordering::Relaxed), 2);
}

/// A wrapper that panics after its worker ran (in its clean-up): `build_scoped` resumes that
/// panic with its own payload, not the scope's "a scoped thread panicked".
#[test]
fn build_scoped_resumes_a_wrapper_panic_with_its_payload() {
    let payload = panic::catch_unwind(AssertUnwindSafe(|| {
        ThreadPoolBuilder::new().num_threads(2).build_scoped(
            |thread| {
                let index = thread.index();
                thread.run();
                if index == 1 {
                    panic!("clean-up of worker 1 failed");
                }
            },
            |pool| pool.install(|| blitz_runtime::join(|| 1, || 2)),
        )
    }))
    .unwrap_err();
    let message = panic_text(&*payload);
    assert_eq!(message, Some("clean-up of worker 1 failed"));
}

#[test]
fn build_scoped_applies_thread_name() {
    let names = ThreadPoolBuilder::new()
        .num_threads(2)
        .thread_name(|i| format!("scoped-{i}"))
        .build_scoped(ThreadBuilder::run, |pool| {
            let mut names = pool.broadcast(|_| std::thread::current().name().map(str::to_owned));
            names.sort();
            names
        })
        .unwrap();
    assert_eq!(names, ["scoped-0", "scoped-1"].map(|n| Some(n.to_owned())));
}

#[test]
fn running_a_thread_builder_on_a_worker_panics_with_a_clear_message() {
    let outer = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let message: Mutex<Option<String>> = Mutex::new(None);
    let pool = ThreadPoolBuilder::new()
        .num_threads(2)
        .spawn_handler(|thread| {
            // Run on a worker of `outer`: refused before the worker starts.
            let refused =
                outer.install(|| panic::catch_unwind(AssertUnwindSafe(move || thread.run())));
            let payload = refused.unwrap_err();
            *message.lock().unwrap() = payload.downcast_ref::<String>().cloned();
            Err(io::Error::other("refused"))
        })
        .build();
    assert!(matches!(pool, Err(ThreadPoolBuildError::ThreadSpawn(_))));
    let message = message.into_inner().unwrap().expect("a String payload");
    assert!(
        message.contains("already a pool's worker"),
        "unexpected message: {message}"
    );
    // The outer pool is unharmed.
    check_pool_runs(&outer, 2);
}
