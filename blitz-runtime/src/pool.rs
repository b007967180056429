//! Thread pools: [`ThreadPool`] and its entry points, the global pool, and the free functions
//! that describe the current one. Building them is `builder`'s.

use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;

use crate::broadcast::{BroadcastContext, broadcast_in_worker};
use crate::builder::{ThreadPoolBuildError, ThreadPoolBuilder};
use crate::registry::{Registry, Worker};
use crate::scope::{Scope, scope_in_worker, scope_on};
use crate::scope_fifo::{ScopeFifo, in_place_scope_fifo_on, spawn_fifo_in};
use crate::sleep::MAX_THREADS;
use crate::spawn::{spawn_broadcast_in, spawn_in};
use crate::threads::release_workers;
use crate::yielding::{Yield, yield_on};

/// A pool of worker threads.
///
/// Built with [`ThreadPoolBuilder`]. Work enters it through [`install`](Self::install) (or the
/// pool's own [`join`](Self::join), [`scope`](Self::scope), [`spawn`](Self::spawn) and
/// [`broadcast`](Self::broadcast)); inside, the free functions and the macros use this pool.
///
/// ```
/// let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let sum: u64 = pool.install(|| {
///     let (a, b) = blitz::join(
///         || (0..500u64).sum::<u64>(),
///         || (500..1000u64).sum::<u64>(),
///     );
///     a + b
/// });
/// assert_eq!(sum, 499_500);
/// ```
///
/// Dropping the pool waits for its pending work (including `spawn`ed jobs), wakes every worker
/// and joins its thread, once the workers have finished on their own. Workers may be waiting
/// for the very thread that drops the pool (an exit handler that meets it at a barrier, a
/// spawned job that waits for a message sent after the drop), so the wait is bounded: if the
/// workers have not all finished within a second, the drop returns, and they finish the
/// pending work and exit later, joined by a background thread. Dropped on a worker thread (of
/// this pool or any other), it returns at once, for the same reason (a pending job that
/// broadcasts on the dropping worker's pool, say).
pub struct ThreadPool {
    registry: Arc<Registry>,
    threads: Vec<JoinHandle<()>>,
}

impl fmt::Debug for ThreadPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadPool")
            .field("num_threads", &self.registry.num_threads())
            .finish()
    }
}

impl ThreadPool {
    /// Runs `op` on a worker of this pool and returns its result. Inside `op`, `join` and the
    /// other entry points use this pool. The calling thread blocks until `op` returns (a worker
    /// of another pool keeps running that pool's jobs meanwhile).
    ///
    /// A panic in `op` propagates to the caller; the pool stays usable.
    ///
    /// ```
    /// let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let index = pool.install(|| blitz::current_thread_index());
    /// assert!(index.unwrap() < 2);
    /// assert_eq!(pool.install(blitz::current_num_threads), 2);
    /// ```
    pub fn install<OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce() -> R + Send,
        R: Send,
    {
        self.registry.in_worker(|_| op())
    }

    /// Runs `op` on a worker of this pool with that worker's context (see [`Worker::join`]).
    ///
    /// ```
    /// let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let (a, b) = pool.install_with_worker(|w| w.join(|_| 1, |_| 2));
    /// assert_eq!(a + b, 3);
    /// ```
    pub fn install_with_worker<OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Worker) -> R + Send,
        R: Send,
    {
        self.registry.in_worker(op)
    }

    /// [`join`](fn@crate::join) on this pool.
    ///
    /// ```
    /// let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// assert_eq!(pool.join(|| "a", || "b"), ("a", "b"));
    /// ```
    pub fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        self.registry
            .in_worker(|worker| worker.join(|_| a(), |_| b()))
    }

    /// [`scope`](fn@crate::scope) on this pool: creates a scope whose tasks run on this pool and
    /// waits for all of them.
    ///
    /// ```
    /// let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let mut halves = [0u64; 2];
    /// let (lo, hi) = halves.split_at_mut(1);
    /// pool.scope(|s| {
    ///     s.spawn(|_| lo[0] = (0..500).sum());
    ///     s.spawn(|_| hi[0] = (500..1000).sum());
    /// });
    /// assert_eq!(halves[0] + halves[1], 499_500);
    /// ```
    pub fn scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R + Send,
        R: Send,
    {
        self.registry
            .in_worker(|worker| scope_in_worker(worker, op))
    }

    /// [`in_place_scope`](crate::in_place_scope) on this pool: runs `op` on the calling thread
    /// in a scope whose tasks run on this pool, then waits for them. A caller outside every
    /// pool blocks; a worker (of this pool or another) runs its own pool's jobs while it
    /// waits, so a task that needs the caller's pool (`a.install(..)` from a task of
    /// `b.in_place_scope` called on `a`) can run.
    ///
    /// ```
    /// let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let mut parts = [0u64; 2];
    /// let (lo, hi) = parts.split_at_mut(1);
    /// pool.in_place_scope(|s| {
    ///     s.spawn(|_| lo[0] = (0..500).sum());
    ///     hi[0] = (500..1000).sum();
    /// });
    /// assert_eq!(parts[0] + parts[1], 499_500);
    /// ```
    pub fn in_place_scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R,
    {
        // A worker of another pool owns the scope's latch all the same: it waits with its own
        // pool's sleep protocol, and the tasks go to this pool's injector.
        scope_on(Worker::current(), &self.registry, op)
    }

    /// [`scope_fifo`](fn@crate::scope_fifo) on this pool: a scope whose tasks start in the order
    /// they were spawned.
    ///
    /// ```
    /// use std::sync::Mutex;
    ///
    /// let pool = blitz::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    /// let order = Mutex::new(Vec::new());
    /// pool.scope_fifo(|s| {
    ///     for i in 0..3 {
    ///         let order = &order;
    ///         s.spawn_fifo(move |_| order.lock().unwrap().push(i));
    ///     }
    /// });
    /// assert_eq!(order.into_inner().unwrap(), [0, 1, 2]);
    /// ```
    pub fn scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&ScopeFifo<'scope>) -> R + Send,
        R: Send,
    {
        self.install(|| crate::scope_fifo(op))
    }

    /// [`in_place_scope_fifo`](crate::in_place_scope_fifo) on this pool: the body runs on the
    /// calling thread, its FIFO tasks on this pool.
    ///
    /// ```
    /// let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let mut parts = [0u64; 2];
    /// let (lo, hi) = parts.split_at_mut(1);
    /// pool.in_place_scope_fifo(|s| {
    ///     s.spawn_fifo(|_| lo[0] = (0..500).sum());
    ///     hi[0] = (500..1000).sum();
    /// });
    /// assert_eq!(parts[0] + parts[1], 499_500);
    /// ```
    pub fn in_place_scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&ScopeFifo<'scope>) -> R,
    {
        in_place_scope_fifo_on(self, op)
    }

    /// [`spawn_fifo`](crate::spawn_fifo) on this pool: [`spawn`](Self::spawn), started after
    /// every task spawned before it with `spawn_fifo` on this pool.
    ///
    /// ```
    /// let pool = blitz::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// for word in ["first", "second"] {
    ///     let tx = tx.clone();
    ///     pool.spawn_fifo(move || tx.send(word).unwrap());
    /// }
    /// assert_eq!([rx.recv().unwrap(), rx.recv().unwrap()], ["first", "second"]);
    /// ```
    pub fn spawn_fifo<F>(&self, func: F)
    where
        F: FnOnce() + Send + 'static,
    {
        spawn_fifo_in(&self.registry, func);
    }

    /// [`spawn`](fn@crate::spawn) on this pool: runs `func` on one of its workers without waiting.
    /// Dropping the pool waits for every spawned task (for a second at most, see
    /// [`ThreadPool`]).
    ///
    /// A panic in `func` goes to the pool's [panic
    /// handler](ThreadPoolBuilder::panic_handler); without one, the process aborts.
    ///
    /// ```
    /// let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// pool.spawn(move || tx.send(blitz::current_thread_index()).unwrap());
    /// assert!(rx.recv().unwrap().unwrap() < 2);
    /// ```
    pub fn spawn<F>(&self, func: F)
    where
        F: FnOnce() + Send + 'static,
    {
        spawn_in(&self.registry, func);
    }

    /// [`broadcast`](fn@crate::broadcast) on this pool: runs `op` once on each of its workers and
    /// returns the results in worker-index order.
    ///
    /// ```
    /// let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// assert_eq!(pool.broadcast(|ctx| ctx.index()), vec![0, 1]);
    /// ```
    pub fn broadcast<OP, R>(&self, op: OP) -> Vec<R>
    where
        OP: Fn(BroadcastContext<'_>) -> R + Sync,
        R: Send,
    {
        self.registry
            .in_worker(|worker| broadcast_in_worker(worker, &op))
    }

    /// [`spawn_broadcast`](crate::spawn_broadcast) on this pool.
    pub fn spawn_broadcast<OP>(&self, op: OP)
    where
        OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
    {
        spawn_broadcast_in(&self.registry, op);
    }

    /// The number of worker threads in this pool.
    pub fn current_num_threads(&self) -> usize {
        self.registry.num_threads()
    }

    /// The index of the current thread in this pool, or `None` if it is not one of this
    /// pool's workers.
    pub fn current_thread_index(&self) -> Option<usize> {
        self.current_worker().map(Worker::index)
    }

    /// [`yield_now`](crate::yield_now) if the current thread is a worker of this pool, else
    /// `None`.
    pub fn yield_now(&self) -> Option<Yield> {
        self.current_worker().map(|worker| yield_on(worker, false))
    }

    /// [`yield_local`](crate::yield_local) if the current thread is a worker of this pool,
    /// else `None`.
    pub fn yield_local(&self) -> Option<Yield> {
        self.current_worker().map(|worker| yield_on(worker, true))
    }

    /// [`current_thread_has_pending_tasks`](crate::current_thread_has_pending_tasks) if the
    /// current thread is a worker of this pool, else `None`.
    ///
    /// ```
    /// let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// assert_eq!(pool.current_thread_has_pending_tasks(), None);
    /// assert_eq!(pool.install(|| pool.current_thread_has_pending_tasks()), Some(false));
    /// ```
    pub fn current_thread_has_pending_tasks(&self) -> Option<bool> {
        self.current_worker().map(Worker::has_pending_tasks)
    }

    /// The current thread's worker, if it is one of this pool's.
    fn current_worker(&self) -> Option<&'static Worker> {
        Worker::current().filter(|w| Arc::ptr_eq(w.registry(), &self.registry))
    }

    /// How many workers are asleep right now (blocked in the sleep protocol). A snapshot, for
    /// diagnostics and tests.
    pub fn sleeping_threads(&self) -> usize {
        self.registry.sleeping_threads()
    }
}

impl ThreadPool {
    /// The pool of a registry whose workers are started, `threads` the handles to join.
    pub(crate) fn from_parts(registry: Arc<Registry>, threads: Vec<JoinHandle<()>>) -> ThreadPool {
        ThreadPool { registry, threads }
    }
}

impl Drop for ThreadPool {
    fn drop(&mut self) {
        release_workers(&self.registry, std::mem::take(&mut self.threads));
    }
}

static GLOBAL_REGISTRY: OnceLock<Arc<Registry>> = OnceLock::new();
/// Serialises the global pool's creation between `build_global` and first use.
static GLOBAL_INIT: Mutex<()> = Mutex::new(());

/// Makes the registry `build` returns the global pool's (`build_global`).
///
/// # Errors
///
/// [`ThreadPoolBuildError::GlobalPoolAlreadyInitialized`] if the global pool exists already
/// (`build` is not called then), or `build`'s error.
pub(crate) fn set_global_registry(
    build: impl FnOnce() -> Result<Arc<Registry>, ThreadPoolBuildError>,
) -> Result<(), ThreadPoolBuildError> {
    let _init = GLOBAL_INIT.lock().unwrap_or_else(|p| p.into_inner());
    if GLOBAL_REGISTRY.get().is_some() {
        return Err(ThreadPoolBuildError::GlobalPoolAlreadyInitialized);
    }
    GLOBAL_REGISTRY
        .set(build()?)
        .unwrap_or_else(|_| unreachable!("guarded by GLOBAL_INIT"));
    Ok(())
}

/// The global pool's registry, created with default settings on first use.
pub(crate) fn global_registry() -> &'static Arc<Registry> {
    if let Some(registry) = GLOBAL_REGISTRY.get() {
        return registry;
    }
    let _init = GLOBAL_INIT.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(registry) = GLOBAL_REGISTRY.get() {
        return registry;
    }
    let (registry, _threads) = ThreadPoolBuilder::new()
        .build_registry()
        .unwrap_or_else(|err| panic!("blitz: failed to create the global thread pool: {err}"));
    GLOBAL_REGISTRY
        .set(registry)
        .unwrap_or_else(|_| unreachable!("guarded by GLOBAL_INIT"));
    GLOBAL_REGISTRY.get().expect("just set")
}

/// The number of threads in the current pool: the pool of the current worker thread, or the
/// global pool when called from outside every pool (creating it if needed).
pub fn current_num_threads() -> usize {
    match Worker::current() {
        Some(worker) => worker.num_threads(),
        None => global_registry().num_threads(),
    }
}

/// The most worker threads one pool can have (rayon's `max_num_threads`): a larger
/// [`ThreadPoolBuilder::num_threads`] makes `build` fail.
///
/// ```
/// assert!(blitz::max_num_threads() >= 1024);
/// let too_many = blitz::ThreadPoolBuilder::new().num_threads(blitz::max_num_threads() + 1);
/// assert!(too_many.build().is_err());
/// ```
pub fn max_num_threads() -> usize {
    MAX_THREADS
}

/// The index of the current thread in its pool, or `None` outside every pool.
///
/// ```
/// assert_eq!(blitz::current_thread_index(), None);
/// let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// assert!(pool.install(blitz::current_thread_index).is_some());
/// ```
pub fn current_thread_index() -> Option<usize> {
    Worker::current().map(Worker::index)
}
