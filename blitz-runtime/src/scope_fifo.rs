//! FIFO-ordered tasks: [`scope_fifo`], [`ScopeFifo::spawn_fifo`] and [`spawn_fifo`]
//! (rayon-core's names).
//!
//! A worker pops its own deque newest first, so tasks spawned with [`Scope::spawn`] that the
//! spawning worker runs itself start in reverse order. The FIFO forms keep the spawn order:
//! each spawn appends its body to a queue and spawns an ordinary task that runs the *oldest*
//! body in that queue. Which task runs first does not matter, as every task takes the front
//! body, so bodies start in the order they were spawned, whichever workers run them. This is a
//! stronger order than rayon's, which is FIFO per spawning thread.
//!
//! The queue of a scope lives in the frame of [`scope_fifo`], which encloses the scope's wait
//! for its tasks; the queue of [`spawn_fifo`] lives in the pool's registry, which every
//! pending spawned task keeps alive.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use crate::broadcast::BroadcastContext;
use crate::registry::{Registry, Worker};
use crate::scope::{Scope, in_place_scope, scope};
use crate::spawn::spawn_in;

/// Bodies waiting for a task to run them, oldest first. One task is spawned per body pushed,
/// and each task pops exactly one, so the queue is empty once its tasks have run.
pub(crate) struct FifoQueue<B> {
    bodies: Mutex<VecDeque<B>>,
}

impl<B> FifoQueue<B> {
    pub(crate) fn new() -> Self {
        FifoQueue {
            bodies: Mutex::new(VecDeque::new()),
        }
    }

    pub(crate) fn push(&self, body: B) {
        // The lock is never held while user code runs, so a poisoned lock holds an intact
        // queue: go on with it.
        let mut bodies = self.bodies.lock().unwrap_or_else(PoisonError::into_inner);
        bodies.push_back(body);
    }

    /// The oldest body. Called once per body pushed, after its push (the task is spawned
    /// after the push), so the queue is never empty here.
    pub(crate) fn pop(&self) -> B {
        let mut bodies = self.bodies.lock().unwrap_or_else(PoisonError::into_inner);
        bodies
            .pop_front()
            .expect("blitz: a FIFO task found no body (one is pushed before each task)")
    }
}

/// A body of a [`ScopeFifo`] task.
type FifoBody<'scope> = Box<dyn FnOnce(&ScopeFifo<'scope>) + Send + 'scope>;

/// A scope whose tasks start in the order they were spawned; see [`scope_fifo`].
pub struct ScopeFifo<'scope> {
    /// The scope the tasks belong to (it counts them and keeps their first panic).
    scope: *const Scope<'scope>,
    /// Where the bodies wait for their tasks.
    queue: *const FifoQueue<FifoBody<'scope>>,
}

// A `ScopeFifo` is two pointers to `Sync` data (the scope, and a queue behind a mutex whose
// bodies are `Send`), valid wherever a `&ScopeFifo` can be held (see `ScopeFifo::new`).
// SAFETY: so sending it is as sound as sharing the scope itself.
unsafe impl<'scope> Send for ScopeFifo<'scope> where Scope<'scope>: Sync {}
// SAFETY: as for `Send`.
unsafe impl<'scope> Sync for ScopeFifo<'scope> where Scope<'scope>: Sync {}

impl std::fmt::Debug for ScopeFifo<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScopeFifo")
            .field("scope", self.scope())
            .finish_non_exhaustive()
    }
}

/// Creates a scope like [`scope`](fn@crate::scope), whose tasks, spawned with
/// [`ScopeFifo::spawn_fifo`], start in the order they were spawned.
///
/// ```
/// use std::sync::Mutex;
///
/// let pool = blitz::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// let order = Mutex::new(Vec::new());
/// pool.install(|| {
///     blitz::scope_fifo(|s| {
///         for i in 0..4 {
///             let order = &order;
///             s.spawn_fifo(move |_| order.lock().unwrap().push(i));
///         }
///     })
/// });
/// assert_eq!(order.into_inner().unwrap(), [0, 1, 2, 3]);
/// ```
///
/// # Panics
///
/// As [`scope`](fn@crate::scope): the first panic of the body or a task is re-thrown once every
/// task has finished.
pub fn scope_fifo<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R + Send,
    R: Send,
{
    let queue = FifoQueue::new();
    // The queue outlives `scope`'s wait for the tasks, and so every task.
    scope(|s| op(&ScopeFifo::new(s, &queue)))
}

/// [`scope_fifo`] with the body on the calling thread, as [`in_place_scope`]:
/// `op` need not be `Send`.
///
/// ```
/// use std::rc::Rc;
/// use std::sync::Mutex;
///
/// let here = Rc::new("not Send");
/// let seen = Mutex::new(Vec::new());
/// blitz::in_place_scope_fifo(|s| {
///     s.spawn_fifo(|_| seen.lock().unwrap().push(1));
///     assert_eq!(*here, "not Send");
/// });
/// assert_eq!(seen.into_inner().unwrap(), [1]);
/// ```
pub fn in_place_scope_fifo<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R,
{
    let queue = FifoQueue::new();
    in_place_scope(|s| op(&ScopeFifo::new(s, &queue)))
}

/// [`in_place_scope_fifo`] on `pool`: `ThreadPool::in_place_scope_fifo`.
pub(crate) fn in_place_scope_fifo_on<'scope, OP, R>(pool: &crate::ThreadPool, op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R,
{
    let queue = FifoQueue::new();
    pool.in_place_scope(|s| op(&ScopeFifo::new(s, &queue)))
}

impl<'scope> ScopeFifo<'scope> {
    /// The FIFO view of `scope`, with its bodies in `queue`. The caller keeps `queue` alive
    /// until `scope` has finished waiting for its tasks; the `ScopeFifo` itself is only lent
    /// out (`&ScopeFifo`) for the duration of a body, while `scope` is alive.
    fn new(scope: &Scope<'scope>, queue: &FifoQueue<FifoBody<'scope>>) -> Self {
        ScopeFifo { scope, queue }
    }

    fn scope(&self) -> &Scope<'scope> {
        // SAFETY: a `ScopeFifo` is only reachable through a borrow that ends before its
        // scope finishes waiting (see `new`), and the scope lives until then.
        unsafe { &*self.scope }
    }

    /// Spawns `body` as a task of this scope, to start after every task this scope spawned
    /// before it has started. It runs on some worker of the pool, possibly in parallel with the
    /// caller, and the scope waits for it before returning. `body` gets the scope, so it can
    /// spawn further tasks.
    ///
    /// ```
    /// use std::sync::Mutex;
    ///
    /// let pool = blitz::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    /// let log = Mutex::new(String::new());
    /// pool.scope_fifo(|s| {
    ///     s.spawn_fifo(|s| {
    ///         log.lock().unwrap().push('a');
    ///         s.spawn_fifo(|_| log.lock().unwrap().push('c'));
    ///     });
    ///     s.spawn_fifo(|_| log.lock().unwrap().push('b'));
    /// });
    /// assert_eq!(log.into_inner().unwrap(), "abc");
    /// ```
    pub fn spawn_fifo<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&ScopeFifo<'scope>) + Send + 'scope,
    {
        self.queue().push(Box::new(body));
        let queue = QueuePtr(self.queue);
        self.scope().spawn(move |scope| {
            // Bind the whole wrapper, so the closure captures it (it is `Send`), not its
            // pointer field.
            let queue = queue;
            // SAFETY: the queue outlives the scope's wait, and this task is part of it.
            let queue = unsafe { &*queue.0 };
            let body = queue.pop();
            body(&ScopeFifo::new(scope, queue));
        });
    }

    /// [`Scope::spawn_broadcast`] in this scope: `body` runs once on every worker of the
    /// pool, as a task of the scope, with the FIFO scope to spawn into. The runs are not
    /// ordered among the scope's FIFO tasks (each worker starts its run when it comes to it).
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    ///
    /// let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let runs = AtomicUsize::new(0);
    /// pool.scope_fifo(|s| {
    ///     s.spawn_broadcast(|s, _| {
    ///         runs.fetch_add(1, Ordering::SeqCst);
    ///         s.spawn_fifo(|_| {
    ///             runs.fetch_add(10, Ordering::SeqCst);
    ///         });
    ///     });
    /// });
    /// assert_eq!(runs.into_inner(), 22);
    /// ```
    pub fn spawn_broadcast<BODY>(&self, body: BODY)
    where
        BODY: Fn(&ScopeFifo<'scope>, BroadcastContext<'_>) + Send + Sync + 'scope,
    {
        let queue = QueuePtr(self.queue);
        self.scope().spawn_broadcast(move |scope, ctx| {
            // Name the whole wrapper, so the closure captures it (it is `Send` and `Sync`),
            // not its pointer field.
            let queue = &queue;
            // SAFETY: the queue outlives the scope's wait, and this run is part of it.
            let queue = unsafe { &*queue.0 };
            body(&ScopeFifo::new(scope, queue), ctx);
        });
    }

    fn queue(&self) -> &FifoQueue<FifoBody<'scope>> {
        // SAFETY: the queue outlives the scope's wait (see `new`), and so this borrow.
        unsafe { &*self.queue }
    }
}

/// A scope's queue, sent to the tasks that pop it.
struct QueuePtr<'scope>(*const FifoQueue<FifoBody<'scope>>);

// SAFETY: the queue is a mutex around `Send` bodies, so it is `Sync`, and a pointer to it may go
// to another thread; its liveness is the scope's wait (see `ScopeFifo::new`).
unsafe impl Send for QueuePtr<'_> {}

// SAFETY: as for `Send`: shared between the runs of one `spawn_broadcast`, which only lock the
// queue through it.
unsafe impl Sync for QueuePtr<'_> {}

/// The queue of a pool's [`spawn_fifo`] tasks.
pub(crate) type SpawnFifoQueue = FifoQueue<Box<dyn FnOnce() + Send>>;

/// Runs `func` on a worker of the current pool (the global pool from outside every pool)
/// without waiting, after every task spawned before it with `spawn_fifo` on that pool has
/// started: [`spawn`](fn@crate::spawn) in FIFO order.
///
/// ```
/// use std::sync::mpsc;
///
/// let pool = blitz::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// let (tx, rx) = mpsc::channel();
/// for i in 0..3 {
///     let tx = tx.clone();
///     pool.spawn_fifo(move || tx.send(i).unwrap());
/// }
/// drop(tx);
/// assert_eq!(rx.iter().collect::<Vec<_>>(), [0, 1, 2]);
/// ```
///
/// # Panics
///
/// As [`spawn`](fn@crate::spawn): a panic in `func` goes to the pool's panic handler, and without
/// one the process aborts.
pub fn spawn_fifo<F>(func: F)
where
    F: FnOnce() + Send + 'static,
{
    let registry = match Worker::current() {
        Some(worker) => worker.registry(),
        None => crate::pool::global_registry(),
    };
    spawn_fifo_in(registry, func);
}

/// [`spawn_fifo`] on the pool of `registry`.
pub(crate) fn spawn_fifo_in<F>(registry: &Arc<Registry>, func: F)
where
    F: FnOnce() + Send + 'static,
{
    registry.fifo_spawns().push(Box::new(func));
    let task_registry = Arc::clone(registry);
    spawn_in(registry, move || (task_registry.fifo_spawns().pop())());
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::ThreadPoolBuilder;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// On one worker, every task runs on the owner, which pops its deque newest first: only
    /// the FIFO queue can make the bodies start in spawn order. (Planted check: with
    /// `pop_back` in `FifoQueue::pop`, the order comes out reversed.)
    #[test]
    fn one_worker_runs_fifo_tasks_in_spawn_order() {
        let pool = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let order = Mutex::new(Vec::new());
        pool.scope_fifo(|s| {
            for i in 0..50 {
                let order = &order;
                s.spawn_fifo(move |_| order.lock().unwrap().push(i));
            }
        });
        assert_eq!(order.into_inner().unwrap(), (0..50).collect::<Vec<_>>());
    }

    /// On several workers (some bodies spawning more), every body runs exactly once.
    #[test]
    fn every_body_runs_once_on_several_workers() {
        let pool = ThreadPoolBuilder::new().num_threads(4).build().unwrap();
        let runs: Vec<AtomicUsize> = (0..200).map(|_| AtomicUsize::new(0)).collect();
        let nested = AtomicUsize::new(0);
        pool.install(|| {
            crate::scope_fifo(|s| {
                for (i, runs) in runs.iter().enumerate() {
                    let nested = &nested;
                    s.spawn_fifo(move |s| {
                        runs.fetch_add(1, Ordering::Relaxed);
                        if i % 50 == 0 {
                            s.spawn_fifo(move |_| {
                                nested.fetch_add(1, Ordering::Relaxed);
                            });
                        }
                    });
                }
            })
        });
        assert!(runs.iter().all(|r| r.load(Ordering::Relaxed) == 1));
        assert_eq!(nested.into_inner(), 4);
    }

    /// Every worker runs the broadcast once, and the FIFO tasks its runs spawn (which borrow
    /// the caller's counters) all finish before the scope returns.
    #[test]
    fn spawn_broadcast_in_a_fifo_scope() {
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let runs: Vec<AtomicUsize> = (0..2).map(|_| AtomicUsize::new(0)).collect();
        let spawned = AtomicUsize::new(0);
        pool.scope_fifo(|s| {
            s.spawn_broadcast(|s, ctx| {
                runs[ctx.index()].fetch_add(1, Ordering::Relaxed);
                s.spawn_fifo(|_| {
                    spawned.fetch_add(1, Ordering::Relaxed);
                });
            });
        });
        assert!(runs.iter().all(|r| r.load(Ordering::Relaxed) == 1));
        assert_eq!(spawned.into_inner(), 2);
    }

    #[test]
    fn in_place_scope_fifo_runs_the_body_here() {
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let here = std::thread::current().id();
        let count = AtomicUsize::new(0);
        let body_thread = pool.in_place_scope_fifo(|s| {
            for _ in 0..10 {
                s.spawn_fifo(|_| {
                    count.fetch_add(1, Ordering::Relaxed);
                });
            }
            std::thread::current().id()
        });
        assert_eq!(body_thread, here);
        assert_eq!(count.into_inner(), 10);
    }

    #[test]
    fn a_panicking_fifo_task_reaches_the_caller_after_the_others() {
        crate::test_panics::quiet_planted_panics();
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let ran = AtomicUsize::new(0);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.scope_fifo(|s| {
                for i in 0..20 {
                    let ran = &ran;
                    s.spawn_fifo(move |_| {
                        assert!(i != 7, "planted panic in task {i}");
                        ran.fetch_add(1, Ordering::SeqCst);
                    });
                }
            })
        }));
        let payload = caught.expect_err("the task's panic reaches the caller");
        let message = payload
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default();
        assert!(message.contains("planted panic in task 7"), "{message}");
        assert_eq!(ran.load(Ordering::SeqCst), 19);
        // The pool still works.
        assert_eq!(pool.install(|| 1 + 1), 2);
    }

    #[test]
    fn spawn_fifo_runs_in_spawn_order_on_one_worker() {
        let pool = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        // From inside the pool, so the tasks go to the worker's own deque (newest first).
        pool.install(|| {
            for i in 0..30 {
                let tx = tx.clone();
                crate::spawn_fifo(move || tx.send(i).unwrap());
            }
        });
        drop(tx);
        assert_eq!(rx.iter().collect::<Vec<_>>(), (0..30).collect::<Vec<_>>());
    }
}
