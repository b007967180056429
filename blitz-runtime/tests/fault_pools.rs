//! Fault paths of pools used in unusual orders: dropped on a worker of another pool, given
//! work from an exit handler, failing half-way through their build. Nothing may hang, lose
//! work silently or leak a thread. See `common` for the harness.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};

use blitz_runtime::ThreadPoolBuilder;

use common::{Watchdog, pool};

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
