//! Work spreads over wide pools: for each shape, every worker of an 8-worker pool must be running
//! one of the shape's leaves at the same moment. Each leaf waits at a rendezvous until all
//! workers have arrived, so the test passes only if the scheduler hands leaves to every worker
//! while the first ones are still running (a scheduler that offers one frame at a time keeps
//! most workers idle, and the rendezvous then gives up after a bounded wait and the assertion
//! fails instead of hanging).
//!
//! While it waits, a leaf forks (`Worker::join` of two empty closures): a fork is where a busy
//! worker answers its idle peers' requests, so a leaf that sits on the only pending records
//! keeps offering them.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use blitz_runtime::{ThreadPool, ThreadPoolBuilder, Worker};

const WORKERS: usize = 8;
/// How long a leaf waits for the others before giving up. Far longer than spreading takes (well
/// under a millisecond per worker even on two oversubscribed cores); only a scheduler that
/// cannot spread the shape reaches it.
const GIVE_UP_AFTER: Duration = Duration::from_secs(20);

fn pool() -> ThreadPool {
    ThreadPoolBuilder::new()
        .num_threads(WORKERS)
        .stack_size(16 << 20)
        .build()
        .unwrap()
}

/// Which workers have entered a leaf.
struct Rendezvous {
    seen: [AtomicBool; WORKERS],
    arrived: AtomicUsize,
    /// When the leaves stop waiting (all of them: a failing run takes this long, not this long
    /// per leaf).
    deadline: Instant,
}

impl Rendezvous {
    fn new() -> Self {
        Rendezvous {
            seen: std::array::from_fn(|_| AtomicBool::new(false)),
            arrived: AtomicUsize::new(0),
            deadline: Instant::now() + GIVE_UP_AFTER,
        }
    }

    /// A leaf: registers its worker, then waits (forking) until every worker has arrived.
    fn leaf(&self, w: &Worker) -> u64 {
        if !self.seen[w.index()].swap(true, Ordering::AcqRel) {
            self.arrived.fetch_add(1, Ordering::AcqRel);
        }
        while self.arrived.load(Ordering::Acquire) < WORKERS && Instant::now() < self.deadline {
            w.join(|_| (), |_| ());
            std::thread::yield_now();
        }
        1
    }

    fn assert_all_arrived(&self, shape: &str) {
        assert_eq!(
            self.arrived.load(Ordering::Acquire),
            WORKERS,
            "{shape}: not every worker got a leaf while the others ran theirs"
        );
    }
}

/// `join(rest of the chain, leaf)`, `n` levels: every level is entered once, in one burst.
fn chain(w: &Worker, n: u64, r: &Rendezvous) -> u64 {
    if n == 0 {
        return 0;
    }
    let (rest, leaf) = w.join(|w| chain(w, n - 1, r), |w| r.leaf(w));
    rest + leaf
}

/// A binary tree over `lo..hi`, split at `num / den` of the range.
fn tree(w: &Worker, lo: u64, hi: u64, num: u64, den: u64, r: &Rendezvous) -> u64 {
    if hi - lo == 1 {
        return r.leaf(w);
    }
    let mid = (lo + (hi - lo) * num / den).clamp(lo + 1, hi - 1);
    let (a, b) = w.join(
        |w| tree(w, lo, mid, num, den, r),
        |w| tree(w, mid, hi, num, den, r),
    );
    a + b
}

#[test]
fn a_chain_of_joins_spreads_to_every_worker() {
    let pool = pool();
    for _ in 0..3 {
        let r = Rendezvous::new();
        assert_eq!(pool.install_with_worker(|w| chain(w, 300, &r)), 300);
        r.assert_all_arrived("chain of 300 joins");
    }
}

#[test]
fn a_balanced_tree_spreads_to_every_worker() {
    let pool = pool();
    for _ in 0..3 {
        let r = Rendezvous::new();
        assert_eq!(pool.install_with_worker(|w| tree(w, 0, 64, 1, 2, &r)), 64);
        r.assert_all_arrived("balanced tree of 64 leaves");
    }
}

#[test]
fn an_unbalanced_tree_spreads_to_every_worker() {
    let pool = pool();
    for (num, den) in [(1, 4), (3, 4), (1, 10)] {
        let r = Rendezvous::new();
        assert_eq!(
            pool.install_with_worker(|w| tree(w, 0, 200, num, den, &r)),
            200
        );
        r.assert_all_arrived(&format!("tree of 200 leaves split at {num}/{den}"));
    }
}

/// Work a stolen job forks is as splittable as the root's: the root's first fork hands one
/// worker a job that holds every leaf.
#[test]
fn a_stolen_subtree_spreads_to_every_worker() {
    let pool = pool();
    for _ in 0..3 {
        let r = Rendezvous::new();
        let (nothing, leaves) = pool.install_with_worker(|w| {
            w.join(
                |_| 0,
                |w| {
                    // Whoever runs this (maybe a thief) spreads it further.
                    tree(w, 0, 64, 1, 2, &r)
                },
            )
        });
        assert_eq!((nothing, leaves), (0, 64));
        r.assert_all_arrived("subtree of 64 leaves behind one fork");
    }
}
