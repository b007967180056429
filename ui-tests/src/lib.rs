//! Compile-fail (`tests/ui`) and compile-and-run (`tests/pass`) tests of the Blitz macros,
//! driven by trybuild from `tests/ui.rs`, plus behavioural tests on a started pool.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A one-worker and a two-worker pool: the tests that compare with the sequential fn run on
/// both (one worker runs everything serially, two fork).
pub fn pools() -> [blitz::ThreadPool; 2] {
    [1, 2].map(|n| {
        blitz::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    })
}

/// Shows that recursive calls really fork: every worker of a pool must reach a leaf while the
/// others wait in theirs, which only happens when the calls run side by side.
pub struct Rendezvous {
    seen: Vec<AtomicBool>,
    arrived: AtomicUsize,
    /// When every leaf stops waiting.
    deadline: Instant,
}

impl Rendezvous {
    /// A rendezvous of `workers` workers, which gives up 20 s after it is made.
    pub fn new(workers: usize) -> Self {
        Rendezvous {
            seen: (0..workers).map(|_| AtomicBool::new(false)).collect(),
            arrived: AtomicUsize::new(0),
            deadline: Instant::now() + Duration::from_secs(20),
        }
    }

    /// Registers this worker, then waits until every worker has arrived or the rendezvous
    /// gives up. It waits forking, so that this worker keeps answering its peers' requests,
    /// as a long leaf would.
    ///
    /// # Panics
    ///
    /// Outside a worker of a pool.
    pub fn leaf(&self) {
        let index = blitz::current_thread_index().expect("a leaf runs on a worker");
        if !self.seen[index].swap(true, Ordering::AcqRel) {
            self.arrived.fetch_add(1, Ordering::AcqRel);
        }
        while self.arrived.load(Ordering::Acquire) < self.seen.len()
            && Instant::now() < self.deadline
        {
            blitz::join(|| (), || ());
            std::thread::yield_now();
        }
    }

    /// How many workers have reached a leaf.
    pub fn arrived(&self) -> usize {
        self.arrived.load(Ordering::Acquire)
    }

    /// Whether every worker reached a leaf.
    pub fn all_arrived(&self) -> bool {
        self.arrived() == self.seen.len()
    }
}
