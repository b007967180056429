//! Parallel loops called from a thread outside every pool run every item on a worker of the
//! global pool, as rayon's do: per-thread buffers indexed by `current_thread_index()` and
//! thread-locals set by a start handler work from `main`. Its own test binary: it configures
//! the global pool.

use std::cell::Cell;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use blitz_runtime::ThreadPoolBuilder;
use blitz_runtime::iter::prelude::*;

const THREADS: usize = 2;

thread_local! {
    /// Set on the global pool's workers by its start handler.
    static WORKER_MARK: Cell<bool> = const { Cell::new(false) };
}

fn global_pool() {
    static BUILT: std::sync::Once = std::sync::Once::new();
    BUILT.call_once(|| {
        ThreadPoolBuilder::new()
            .num_threads(THREADS)
            .start_handler(|_| WORKER_MARK.with(|mark| mark.set(true)))
            .build_global()
            .expect("the global pool is built once, here");
    });
}

/// The item's worker index, checked against the start handler's mark.
fn worker_of_item() -> usize {
    assert!(
        WORKER_MARK.with(Cell::get),
        "an item ran on a thread the start handler did not run on"
    );
    blitz_runtime::current_thread_index().expect("an item ran outside the pool")
}

#[test]
fn iterator_items_run_on_workers_whatever_the_length() {
    global_pool();
    assert_eq!(blitz_runtime::current_thread_index(), None);
    for len in [0u64, 1, 2, 3, 100, 10_000, 1_000_000] {
        // The per-thread buffer idiom of rayon code.
        let buffers: Vec<Mutex<u64>> = (0..THREADS).map(|_| Mutex::new(0)).collect();
        (0..len).into_par_iter().for_each(|x| {
            *buffers[worker_of_item()].lock().unwrap() += x;
        });
        let total: u64 = buffers.iter().map(|b| *b.lock().unwrap()).sum();
        assert_eq!(total, (0..len).sum::<u64>(), "len {len}");
        let v: Vec<u64> = (0..len).collect();
        let sum: u64 = v
            .par_iter()
            .map(|&x| {
                worker_of_item();
                x
            })
            .sum();
        assert_eq!(sum, (0..len).sum::<u64>(), "len {len}");
    }
}

#[test]
fn searches_and_collects_run_on_workers() {
    global_pool();
    let visited = AtomicUsize::new(0);
    let hit = (0..1_000_000u64).into_par_iter().position_first(|x| {
        worker_of_item();
        visited.fetch_add(1, Ordering::Relaxed);
        x == 1234
    });
    assert_eq!(hit, Some(1234));
    assert!(visited.load(Ordering::Relaxed) > 1234);
    let doubled: Vec<u64> = (0..5000u64)
        .into_par_iter()
        .map(|x| {
            worker_of_item();
            x * 2
        })
        .collect();
    assert_eq!(doubled, (0..5000u64).map(|x| x * 2).collect::<Vec<_>>());
}
