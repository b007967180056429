//! The pool and join on started pools (>= 2 workers unless the test is about 1).

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use blitz_runtime::{ThreadPool, ThreadPoolBuildError, ThreadPoolBuilder, Worker};

fn pool(n: usize) -> ThreadPool {
    ThreadPoolBuilder::new().num_threads(n).build().unwrap()
}

/// Sum of leaf indices over a binary tree of `2^depth` leaves, with a join at every node.
fn tree_sum(w: &Worker, first_leaf: u64, depth: u32) -> u64 {
    if depth == 0 {
        return first_leaf;
    }
    let half = 1u64 << (depth - 1);
    let (a, b) = w.join(
        |w| tree_sum(w, first_leaf, depth - 1),
        |w| tree_sum(w, first_leaf + half, depth - 1),
    );
    a + b
}

/// Like `tree_sum`, also counting which workers ran leaves.
fn tree_sum_recording(w: &Worker, first_leaf: u64, depth: u32, seen: &[AtomicUsize]) -> u64 {
    if depth == 0 {
        seen[w.index()].fetch_add(1, Ordering::Relaxed);
        return first_leaf;
    }
    let half = 1u64 << (depth - 1);
    let (a, b) = w.join(
        |w| tree_sum_recording(w, first_leaf, depth - 1, seen),
        |w| tree_sum_recording(w, first_leaf + half, depth - 1, seen),
    );
    a + b
}

fn expected_tree_sum(depth: u32) -> u64 {
    let n = 1u64 << depth;
    n * (n - 1) / 2
}

#[test]
fn recursive_join_over_2_pow_20_leaves() {
    let pool = pool(2);
    let seen: Vec<AtomicUsize> = (0..2).map(|_| AtomicUsize::new(0)).collect();
    let sum = pool.install_with_worker(|w| tree_sum_recording(w, 0, 20, &seen));
    assert_eq!(sum, expected_tree_sum(20));
    let leaves: usize = seen.iter().map(|s| s.load(Ordering::Relaxed)).sum();
    assert_eq!(leaves, 1 << 20, "every leaf runs exactly once");
}

#[test]
fn work_is_stolen_by_the_other_worker() {
    // Each leaf spins a little, so the idle worker has time to steal; with 2^12 leaves it is
    // overwhelmingly likely to get some. Retry a few times rather than assume timing.
    let pool = pool(2);
    fn busy_tree(w: &Worker, depth: u32, seen: &[AtomicUsize]) -> u64 {
        if depth == 0 {
            seen[w.index()].fetch_add(1, Ordering::Relaxed);
            return (0..2_000u64).fold(0, |acc, x| acc ^ std::hint::black_box(x)) & 1;
        }
        let (a, b) = w.join(
            |w| busy_tree(w, depth - 1, seen),
            |w| busy_tree(w, depth - 1, seen),
        );
        a + b
    }
    for _attempt in 0..20 {
        let seen: Vec<AtomicUsize> = (0..2).map(|_| AtomicUsize::new(0)).collect();
        pool.install_with_worker(|w| busy_tree(w, 12, &seen));
        if seen.iter().all(|s| s.load(Ordering::Relaxed) > 0) {
            return;
        }
    }
    panic!("the second worker never ran a leaf: nothing was stolen");
}

#[test]
fn joins_from_eight_outside_threads_at_once() {
    let pool = Arc::new(pool(2));
    let barrier = Arc::new(Barrier::new(8));
    let threads: Vec<_> = (0..8u64)
        .map(|t| {
            let pool = Arc::clone(&pool);
            let barrier = Arc::clone(&barrier);
            std::thread::spawn(move || {
                barrier.wait();
                let mut total = 0;
                for round in 0..50u64 {
                    let (a, b) = pool.join(|| t * 1000 + round, || round * 2);
                    total += a + b;
                    total += pool.install_with_worker(|w| tree_sum(w, t, 8));
                }
                total
            })
        })
        .collect();
    for (t, handle) in threads.into_iter().enumerate() {
        let t = t as u64;
        let rounds: u64 = (0..50u64).map(|r| t * 1000 + r + r * 2).sum();
        let trees = 50 * (expected_tree_sum(8) + 256 * t);
        assert_eq!(handle.join().unwrap(), rounds + trees);
    }
}

#[test]
fn global_join_from_outside_threads() {
    let threads: Vec<_> = (0..8u64)
        .map(|t| std::thread::spawn(move || blitz_runtime::join(|| t, || t * 2)))
        .collect();
    for (t, handle) in threads.into_iter().enumerate() {
        let t = t as u64;
        assert_eq!(handle.join().unwrap(), (t, t * 2));
    }
}

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

/// Runs a join whose closures may panic; returns the panic message and whether each side ran
/// to completion.
fn join_with_panics(pool: &ThreadPool, panic_a: bool, panic_b: bool) -> (String, bool, bool) {
    let a_done = AtomicUsize::new(0);
    let b_done = AtomicUsize::new(0);
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.install_with_worker(|w| {
            w.join(
                |_| {
                    std::thread::sleep(Duration::from_millis(5));
                    a_done.store(1, Ordering::SeqCst);
                    if panic_a {
                        panic!("a failed");
                    }
                },
                |_| {
                    std::thread::sleep(Duration::from_millis(5));
                    b_done.store(1, Ordering::SeqCst);
                    if panic_b {
                        panic!("b failed");
                    }
                },
            )
        })
    }));
    let message = match result {
        Ok(_) => String::new(),
        Err(payload) => panic_message(payload),
    };
    (
        message,
        a_done.load(Ordering::SeqCst) == 1,
        b_done.load(Ordering::SeqCst) == 1,
    )
}

fn pool_still_works(pool: &ThreadPool) {
    assert_eq!(
        pool.install_with_worker(|w| tree_sum(w, 0, 10)),
        expected_tree_sum(10)
    );
}

#[test]
fn panic_in_a_waits_for_b_then_propagates() {
    let pool = pool(2);
    assert_eq!(
        join_with_panics(&pool, true, false),
        ("a failed".into(), true, true)
    );
    pool_still_works(&pool);
}

#[test]
fn panic_in_b_propagates_after_a() {
    let pool = pool(2);
    assert_eq!(
        join_with_panics(&pool, false, true),
        ("b failed".into(), true, true)
    );
    pool_still_works(&pool);
}

#[test]
fn panic_in_both_first_wins() {
    let pool = pool(2);
    for _ in 0..10 {
        assert_eq!(
            join_with_panics(&pool, true, true),
            ("a failed".into(), true, true)
        );
    }
    pool_still_works(&pool);
}

#[test]
fn panic_in_a_stolen_b() {
    let pool = pool(2);
    let stolen_and_panicked = AtomicUsize::new(0);
    // Make `a` wait until `b` has been stolen by the other worker, which then panics.
    for _ in 0..5 {
        let b_started = AtomicUsize::new(usize::MAX);
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.install_with_worker(|w| {
                let me = w.index();
                w.join(
                    |_| {
                        // Wait (bounded) for a thief to start `b`.
                        let deadline = Instant::now() + Duration::from_secs(10);
                        while b_started.load(Ordering::SeqCst) == usize::MAX
                            && Instant::now() < deadline
                        {
                            std::thread::yield_now();
                        }
                        me
                    },
                    |w| {
                        b_started.store(w.index(), Ordering::SeqCst);
                        panic!("stolen b failed");
                    },
                )
            })
        }));
        let message = panic_message(result.expect_err("b's panic must propagate"));
        assert_eq!(message, "stolen b failed");
        if b_started.load(Ordering::SeqCst) != usize::MAX {
            stolen_and_panicked.fetch_add(1, Ordering::SeqCst);
        }
    }
    assert!(stolen_and_panicked.load(Ordering::SeqCst) > 0);
    pool_still_works(&pool);
}

#[test]
fn one_thread_pool_runs_everything() {
    let pool = pool(1);
    assert_eq!(pool.current_num_threads(), 1);
    assert_eq!(
        pool.install_with_worker(|w| tree_sum(w, 0, 16)),
        expected_tree_sum(16)
    );
    assert_eq!(pool.install(|| pool.current_thread_index()), Some(0));
}

#[test]
fn two_hundred_pools_created_and_dropped() {
    let exits = Arc::new(AtomicUsize::new(0));
    for i in 0..200u64 {
        let exits2 = Arc::clone(&exits);
        let pool = ThreadPoolBuilder::new()
            .num_threads(2)
            .exit_handler(move |_| {
                exits2.fetch_add(1, Ordering::SeqCst);
            })
            .build()
            .unwrap();
        assert_eq!(pool.join(|| i, || i + 1), (i, i + 1));
        drop(pool);
        // Drop joins the threads, so their exit handlers have run.
        assert_eq!(exits.load(Ordering::SeqCst), 2 * (i as usize + 1));
    }
}

#[test]
fn install_nested_in_install() {
    let outer = pool(2);
    let inner = pool(2);
    let result = outer.install(|| {
        let outer_index = outer.current_thread_index();
        assert!(outer_index.is_some());
        // Same pool: runs inline on the same worker.
        let same = outer.install(|| outer.current_thread_index());
        assert_eq!(same, outer_index);
        // Another pool: runs on one of its workers while this one waits.
        let (in_inner, inner_sum) = inner.install(|| {
            (
                inner.current_thread_index().is_some() && outer.current_thread_index().is_none(),
                inner.install_with_worker(|w| tree_sum(w, 0, 12)),
            )
        });
        assert!(in_inner);
        inner_sum + outer.install_with_worker(|w| tree_sum(w, 0, 12))
    });
    assert_eq!(result, 2 * expected_tree_sum(12));
}

#[test]
fn idle_workers_fall_asleep_and_a_join_wakes_them() {
    let pool = pool(2);
    assert_eq!(pool.join(|| 1, || 2), (1, 2));
    std::thread::sleep(Duration::from_millis(100));
    // All workers should be asleep by now; allow a generous grace period on a loaded machine
    // (this is a hang guard, not a timing assertion).
    let deadline = Instant::now() + Duration::from_secs(30);
    while pool.sleeping_threads() != 2 {
        assert!(Instant::now() < deadline, "workers never fell asleep");
        std::thread::sleep(Duration::from_millis(10));
    }
    // A new join wakes them and completes, and the other worker can take part.
    let seen: Vec<AtomicUsize> = (0..2).map(|_| AtomicUsize::new(0)).collect();
    let sum = pool.install_with_worker(|w| tree_sum_recording(w, 0, 14, &seen));
    assert_eq!(sum, expected_tree_sum(14));
    assert!(pool.sleeping_threads() <= 2);
}

/// A thread outside the pool calling in again and again, back to back and after pauses (the
/// worker that served it may be awake, going to sleep or asleep): every call runs on a worker,
/// forks inside the pool and returns the right result.
#[test]
fn outside_calls_back_to_back_and_after_pauses() {
    let pool = pool(2);
    for i in 0..400u64 {
        if i % 50 == 0 {
            std::thread::sleep(Duration::from_millis(i / 50));
        }
        let index = pool.install(|| pool.current_thread_index());
        assert!(index.is_some_and(|index| index < 2), "call {i}: {index:?}");
        let (a, b) = pool.join(|| i, || pool.current_thread_index());
        assert_eq!(a, i);
        assert!(
            b.is_some(),
            "call {i}: the join's second closure ran outside the pool"
        );
        assert_eq!(
            pool.install_with_worker(|w| tree_sum(w, i, 6)),
            (0..64).map(|leaf| i + leaf).sum::<u64>(),
            "call {i}"
        );
    }
}

#[test]
fn current_thread_index_and_num_threads() {
    let pool = pool(3);
    assert_eq!(pool.current_thread_index(), None);
    let mut indices: Vec<usize> = pool.install(|| {
        assert_eq!(blitz_runtime::current_num_threads(), 3);
        let index = blitz_runtime::current_thread_index().unwrap();
        assert!(index < 3);
        vec![index]
    });
    indices.dedup();
    assert_eq!(indices.len(), 1);
}

#[test]
fn handlers_and_names() {
    let started = Arc::new(AtomicUsize::new(0));
    let started2 = Arc::clone(&started);
    let pool = ThreadPoolBuilder::new()
        .num_threads(2)
        .thread_name(|i| format!("blitz-test-{i}"))
        .stack_size(4 << 20)
        .start_handler(move |_| {
            started2.fetch_add(1, Ordering::SeqCst);
        })
        .build()
        .unwrap();
    let name = pool.install(|| std::thread::current().name().map(str::to_owned));
    assert!(name.unwrap().starts_with("blitz-test-"));
    // Handlers run before any job on their thread; both threads start without jobs, so wait
    // (bounded) for the second.
    let deadline = Instant::now() + Duration::from_secs(30);
    while started.load(Ordering::SeqCst) < 2 {
        assert!(Instant::now() < deadline);
        std::thread::yield_now();
    }
}

#[test]
fn two_outside_calls_whose_jobs_wait_for_each_other_both_run() {
    // Two threads call into an idle pool of two at once, and each job waits for the other:
    // both must be running together. A worker that takes one of them must not be counted on
    // for the other, which once sat in the injector while the second worker slept (in about
    // one round in a thousand on a 2-vCPU machine, hence the many rounds).
    let pool = Arc::new(pool(2));
    for round in 0..3000 {
        std::thread::sleep(Duration::from_micros(if round % 2 == 0 {
            1000
        } else {
            200
        }));
        let (a_tx, a_rx) = std::sync::mpsc::channel::<()>();
        let (b_tx, b_rx) = std::sync::mpsc::channel::<()>();
        let start = Arc::new(Barrier::new(2));
        let (other_pool, other_start) = (Arc::clone(&pool), Arc::clone(&start));
        let other = std::thread::spawn(move || {
            other_start.wait();
            other_pool.install(move || {
                a_tx.send(()).unwrap();
                b_rx.recv_timeout(Duration::from_secs(20)).is_ok()
            })
        });
        start.wait();
        let here = pool.install(move || {
            b_tx.send(()).unwrap();
            a_rx.recv_timeout(Duration::from_secs(20)).is_ok()
        });
        assert!(
            here && other.join().unwrap(),
            "round {round}: one job never ran"
        );
    }
}

#[test]
fn two_spawns_from_outside_run_together() {
    // The first task waits for the second; a worker took them from the injector together.
    let pool = pool(2);
    for round in 0..300 {
        std::thread::sleep(Duration::from_micros(if round % 2 == 0 {
            1000
        } else {
            200
        }));
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let (done_tx, done_rx) = std::sync::mpsc::channel::<bool>();
        pool.spawn(move || {
            let _ = done_tx.send(rx.recv_timeout(Duration::from_secs(20)).is_ok());
        });
        pool.spawn(move || {
            let _ = tx.send(());
        });
        assert!(
            done_rx.recv().unwrap(),
            "round {round}: the second task never ran"
        );
    }
}

#[test]
fn work_from_outside_starts_in_the_order_it_came_in() {
    // Every worker is held by a task from outside while 64 more are queued behind them; once
    // let go, the worker that takes the queue runs it oldest first (a thief takes from the
    // newest end). On one worker the tasks start exactly in spawn order.
    const TASKS: usize = 64;
    for threads in [1, 2] {
        let pool = pool(threads);
        let all_held = Arc::new(Barrier::new(threads + 1));
        let release = Arc::new(Barrier::new(threads + 1));
        for _ in 0..threads {
            let (all_held, release) = (Arc::clone(&all_held), Arc::clone(&release));
            pool.spawn(move || {
                all_held.wait();
                release.wait();
            });
        }
        all_held.wait();
        let (tx, rx) = std::sync::mpsc::channel::<(usize, usize)>();
        for task in 0..TASKS {
            let tx = tx.clone();
            pool.spawn(move || {
                let worker = blitz_runtime::current_thread_index().unwrap();
                tx.send((worker, task)).unwrap();
            });
        }
        release.wait();
        let started: Vec<(usize, usize)> = (0..TASKS)
            .map(|_| {
                rx.recv_timeout(Duration::from_secs(20))
                    .expect("a task never ran")
            })
            .collect();
        let first_worker = started.iter().find(|&&(_, task)| task == 0).unwrap().0;
        let on_first_worker: Vec<usize> = started
            .iter()
            .filter(|&&(worker, _)| worker == first_worker)
            .map(|&(_, task)| task)
            .collect();
        assert!(
            on_first_worker.windows(2).all(|pair| pair[0] < pair[1]),
            "{threads} workers: the worker that took the queue ran {on_first_worker:?}"
        );
        if threads == 1 {
            assert_eq!(on_first_worker, (0..TASKS).collect::<Vec<_>>());
        }
    }
}

#[test]
fn start_handlers_may_spawn_after_the_pool_is_dropped() {
    // Each start handler spawns onto its pool; the handle is dropped at once, possibly before
    // some workers have started. Every spawn is accepted and runs before the drop returns.
    for _ in 0..20 {
        let ran = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&ran);
        let pool = ThreadPoolBuilder::new()
            .num_threads(4)
            .start_handler(move |_| {
                let counter = Arc::clone(&counter);
                blitz::spawn(move || {
                    counter.fetch_add(1, Ordering::SeqCst);
                });
            })
            .build()
            .unwrap();
        drop(pool);
        assert_eq!(ran.load(Ordering::SeqCst), 4);
    }
}

#[test]
fn install_propagates_panic_and_pool_survives() {
    let pool = pool(2);
    let result = panic::catch_unwind(AssertUnwindSafe(|| pool.install(|| panic!("boom"))));
    assert_eq!(panic_message(result.unwrap_err()), "boom");
    pool_still_works(&pool);
}

/// A stack size the operating system refuses: the build error names it, which the system's
/// own error ("Invalid argument") does not.
#[test]
#[cfg_attr(miri, ignore)] // Starts a real thread with the requested stack.
fn a_refused_stack_size_is_named_in_the_error() {
    let err = ThreadPoolBuilder::new()
        .num_threads(1)
        .stack_size(usize::MAX)
        .build()
        .unwrap_err();
    assert!(matches!(err, ThreadPoolBuildError::ThreadSpawn(_)), "{err}");
    let message = err.to_string();
    assert!(
        message.contains(&format!("with a stack size of {} bytes", usize::MAX)),
        "{message}"
    );
}

#[test]
fn too_many_threads_is_an_error() {
    let err = ThreadPoolBuilder::new()
        .num_threads(70_000)
        .build()
        .unwrap_err();
    assert!(matches!(
        err,
        ThreadPoolBuildError::TooManyThreads {
            requested: 70_000,
            max: 65_535
        }
    ));
    assert_eq!(
        err.to_string(),
        "cannot build a pool of 70000 threads: at most 65535 are supported \
         (the sleep counters are 16 bits wide)"
    );
}

#[test]
fn long_stolen_job_lets_the_joiner_sleep() {
    // ERRATA 5: while `b` runs for a long time on the other worker, the joiner (with nothing
    // else to do) must end up asleep on b's latch rather than spinning. `b`, once it knows it
    // was stolen, waits (bounded) until one worker sleeps: with b's own worker busy, that can
    // only be the joiner.
    let pool = pool(2);
    let outcome = (0..20).find_map(|_| {
        pool.install_with_worker(|w| {
            let joiner = w.index();
            w.join(
                |_| std::thread::sleep(Duration::from_millis(2)),
                |thief| {
                    if thief.index() == joiner {
                        return None; // not stolen this time: try again
                    }
                    let deadline = Instant::now() + Duration::from_secs(30);
                    while Instant::now() < deadline {
                        if pool.sleeping_threads() == 1 {
                            return Some(true);
                        }
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    Some(false)
                },
            )
            .1
        })
    });
    assert_eq!(
        outcome,
        Some(true),
        "the joiner of a long stolen job never slept"
    );
    pool_still_works(&pool);
}

/// `default()` names the default spawner, as `new()` does (rayon code calls either).
#[test]
fn default_builder_builds_like_new() {
    let pool = ThreadPoolBuilder::default().num_threads(2).build().unwrap();
    assert_eq!(pool.current_num_threads(), 2);
    assert_eq!(pool.join(|| 1, || 2), (1, 2));
}
