//! Thread pools: [`ThreadPoolBuilder`], [`ThreadPool`], the global pool.

use std::any::Any;
use std::fmt;
use std::io;
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;

use crate::broadcast::{BroadcastContext, broadcast_in_worker};
use crate::registry::{Registry, Worker};
use crate::scope::{Scope, scope_in_worker, scope_on};
use crate::scope_fifo::{ScopeFifo, in_place_scope_fifo_on, spawn_fifo_in};
use crate::sleep::MAX_THREADS;
use crate::spawn::{spawn_broadcast_in, spawn_in};
use crate::thread_spawn::{CustomSpawn, DefaultSpawn, ThreadBuilder, ThreadSpawn};
use crate::threads::{Handlers, ThreadNameFn, release_workers, start_workers};
use crate::yielding::{Yield, yield_on};

/// The environment variable that sets the default number of threads.
///
/// Read when a pool is built without an explicit [`ThreadPoolBuilder::num_threads`]: a
/// positive integer is the thread count, `0` means one thread per logical CPU, anything else
/// makes the build fail with [`ThreadPoolBuildError::InvalidEnvVar`].
///
/// ```
/// assert_eq!(blitz::NUM_THREADS_ENV_VAR, "BLITZ_NUM_THREADS");
/// ```
pub const NUM_THREADS_ENV_VAR: &str = "BLITZ_NUM_THREADS";

/// Why a pool could not be built.
///
/// Its `Display` says what went wrong and what is allowed. The enum is `#[non_exhaustive]`,
/// so match it with a wildcard arm.
///
/// ```
/// use blitz::{ThreadPoolBuildError, ThreadPoolBuilder};
///
/// let err = ThreadPoolBuilder::new().num_threads(1 << 20).build().unwrap_err();
/// match &err {
///     ThreadPoolBuildError::TooManyThreads { requested, max } => {
///         assert_eq!((*requested, *max), (1 << 20, 65535));
///     }
///     other => panic!("unexpected error: {other}"),
/// }
/// assert!(err.to_string().contains("at most 65535"));
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum ThreadPoolBuildError {
    /// More threads were requested than the sleep counters can hold.
    TooManyThreads {
        /// The requested number of threads.
        requested: usize,
        /// The largest supported number.
        max: usize,
    },
    /// `BLITZ_NUM_THREADS` is set to something that is not a non-negative integer, or to one
    /// too large to be a number at all (see its `Display`, which tells the two apart).
    InvalidEnvVar {
        /// The variable's name.
        name: &'static str,
        /// Its value (lossily converted to UTF-8).
        value: String,
    },
    /// `build_global` was called after the global pool already existed (built by an earlier
    /// `build_global`, or created on first use).
    GlobalPoolAlreadyInitialized,
    /// The operating system refused to start a worker thread.
    ThreadSpawn(io::Error),
}

impl fmt::Display for ThreadPoolBuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ThreadPoolBuildError::TooManyThreads { requested, max } => write!(
                f,
                "cannot build a pool of {requested} threads: at most {max} are supported \
                 (the sleep counters are 16 bits wide)"
            ),
            ThreadPoolBuildError::InvalidEnvVar { name, value } if is_integer(value) => write!(
                f,
                "the environment variable {name} is set to {value:?}, which is too large: at \
                 most {MAX_THREADS} threads are supported (0 means one per CPU)"
            ),
            ThreadPoolBuildError::InvalidEnvVar { name, value } => write!(
                f,
                "invalid value {value:?} for the environment variable {name}: expected a \
                 number of threads (a non-negative integer; 0 means one per CPU)"
            ),
            ThreadPoolBuildError::GlobalPoolAlreadyInitialized => write!(
                f,
                "the global thread pool has already been initialized (build_global must be \
                 called once, before the global pool is first used)"
            ),
            ThreadPoolBuildError::ThreadSpawn(err) => {
                write!(f, "failed to spawn a worker thread: {err}")
            }
        }
    }
}

/// True if `value` is a non-negative integer in decimal (which `usize` may not hold).
fn is_integer(value: &str) -> bool {
    let digits = value.trim().strip_prefix('+').unwrap_or(value.trim());
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

impl std::error::Error for ThreadPoolBuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ThreadPoolBuildError::ThreadSpawn(err) => Some(err),
            _ => None,
        }
    }
}

/// Configures and builds a [`ThreadPool`] (or the global pool).
///
/// ```
/// use blitz::ThreadPoolBuilder;
///
/// let pool = ThreadPoolBuilder::new()
///     .num_threads(2)
///     .thread_name(|i| format!("compute-{i}"))
///     .build()
///     .expect("pool");
/// assert_eq!(pool.current_num_threads(), 2);
/// ```
///
/// `ThreadPoolBuilder::default()` is `ThreadPoolBuilder::new()`.
///
/// `S` is how the pool's threads are started: by the pool ([`DefaultSpawn`]), or by a handler
/// set with [`spawn_handler`](Self::spawn_handler).
#[must_use]
pub struct ThreadPoolBuilder<S = DefaultSpawn> {
    num_threads: Option<usize>,
    thread_name: Option<Box<ThreadNameFn>>,
    stack_size: Option<usize>,
    handlers: Handlers,
    spawner: S,
}

impl<S: fmt::Debug> fmt::Debug for ThreadPoolBuilder<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadPoolBuilder")
            .field("num_threads", &self.num_threads)
            .field("thread_name", &self.thread_name.is_some())
            .field("stack_size", &self.stack_size)
            .field("panic_handler", &self.handlers.panic.is_some())
            .field("start_handler", &self.handlers.start.is_some())
            .field("exit_handler", &self.handlers.exit.is_some())
            .field("spawner", &self.spawner)
            .finish()
    }
}

/// Not derived: a derive would be generic over the spawner, and `ThreadPoolBuilder::default()`
/// could not infer it.
impl Default for ThreadPoolBuilder {
    fn default() -> Self {
        ThreadPoolBuilder {
            num_threads: None,
            thread_name: None,
            stack_size: None,
            handlers: Handlers::default(),
            spawner: DefaultSpawn,
        }
    }
}

impl ThreadPoolBuilder {
    /// A builder with every setting at its default.
    pub fn new() -> Self {
        Self::default()
    }

    /// Builds a pool whose threads are scoped threads of the caller, started by `wrapper`, and
    /// calls `with_pool` with it (rayon's `build_scoped`).
    ///
    /// `wrapper` receives each worker's [`ThreadBuilder`] on its own thread and must call
    /// [`run`](ThreadBuilder::run) (it may set the thread up first, and clean up after `run`
    /// returns). Because the threads are scoped, the pool's work may borrow from the caller's
    /// stack through `wrapper`, and every thread has ended when `build_scoped` returns: the
    /// pool is dropped when `with_pool` returns (or panics), and the threads are then joined.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    ///
    /// let started = AtomicUsize::new(0); // on the caller's stack, borrowed by the workers
    /// let total = blitz::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .build_scoped(
    ///         |thread| {
    ///             started.fetch_add(1, Ordering::Relaxed);
    ///             thread.run()
    ///         },
    ///         |pool| pool.install(|| blitz::join(|| 1 + 2, || 3 + 4)),
    ///     )
    ///     .unwrap();
    /// assert_eq!(total, (3, 7));
    /// assert_eq!(started.load(Ordering::Relaxed), 2);
    /// ```
    ///
    /// # Errors
    ///
    /// Those of [`build`](Self::build); `with_pool` is not called then.
    pub fn build_scoped<W, F, R>(self, wrapper: W, with_pool: F) -> Result<R, ThreadPoolBuildError>
    where
        W: Fn(ThreadBuilder) + Sync,
        F: FnOnce(&ThreadPool) -> R,
    {
        std::thread::scope(|scope| {
            let pool = self
                .spawn_handler(|thread| {
                    let mut builder = std::thread::Builder::new();
                    if let Some(name) = thread.name() {
                        builder = builder.name(name.to_owned());
                    }
                    if let Some(size) = thread.stack_size() {
                        builder = builder.stack_size(size);
                    }
                    let wrapper = &wrapper;
                    builder.spawn_scoped(scope, move || wrapper(thread))?;
                    Ok(())
                })
                .build()?;
            Ok(with_pool(&pool))
        })
    }
}

impl<S> ThreadPoolBuilder<S> {
    /// Starts the pool's threads with `spawn` instead of `std::thread::spawn` (rayon's
    /// `spawn_handler`): `build` calls it once per worker, in index order, with that worker's
    /// [`ThreadBuilder`], and the handler must get [`ThreadBuilder::run`] called on a thread of
    /// its own. An `Err` makes `build` fail with [`ThreadPoolBuildError::ThreadSpawn`].
    ///
    /// The pool does not join these threads when it is dropped: whoever started them does (a
    /// scope, say). The handler need not be `'static`, so it may start scoped threads; see
    /// also [`build_scoped`](ThreadPoolBuilder::build_scoped).
    ///
    /// ```
    /// let mut handles = Vec::new();
    /// let pool = blitz::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .thread_name(|i| format!("custom-{i}"))
    ///     .spawn_handler(|thread| {
    ///         let name = thread.name().unwrap().to_owned();
    ///         handles.push(std::thread::Builder::new().name(name).spawn(|| thread.run())?);
    ///         Ok(())
    ///     })
    ///     .build()
    ///     .unwrap();
    /// let name = pool.install(|| std::thread::current().name().map(str::to_owned));
    /// assert!(name.unwrap().starts_with("custom-"));
    /// drop(pool); // the workers exit ...
    /// for handle in handles {
    ///     handle.join().unwrap(); // ... and are joined here
    /// }
    /// ```
    pub fn spawn_handler<F>(self, spawn: F) -> ThreadPoolBuilder<CustomSpawn<F>>
    where
        F: FnMut(ThreadBuilder) -> io::Result<()>,
    {
        ThreadPoolBuilder {
            num_threads: self.num_threads,
            thread_name: self.thread_name,
            stack_size: self.stack_size,
            handlers: self.handlers,
            spawner: CustomSpawn::new(spawn),
        }
    }

    /// The number of worker threads. `0` (the default) means: the value of
    /// `BLITZ_NUM_THREADS` if it is set to a positive integer, else one per logical CPU.
    pub fn num_threads(mut self, num_threads: usize) -> Self {
        self.num_threads = Some(num_threads);
        self
    }

    /// Names worker `i`'s thread `thread_name(i)`.
    ///
    /// If the closure panics, `build` stops and joins the workers it already started, then
    /// resumes the panic.
    pub fn thread_name(mut self, thread_name: impl FnMut(usize) -> String + 'static) -> Self {
        self.thread_name = Some(Box::new(thread_name));
        self
    }

    /// The stack size of each worker thread, in bytes (deep recursion may need more than the
    /// platform default). `0` (the default) means the platform default, as `0` threads means
    /// the default count in [`num_threads`](Self::num_threads).
    ///
    /// ```
    /// let pool = blitz::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .stack_size(16 << 20)
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(pool.current_num_threads(), 2);
    /// ```
    pub fn stack_size(mut self, stack_size: usize) -> Self {
        // Not `Some(0)`: the thread builder would round 0 up to the smallest stack it can make.
        self.stack_size = (stack_size > 0).then_some(stack_size);
        self
    }

    /// Called on each worker thread, with its index, before it runs any job.
    pub fn start_handler(mut self, handler: impl Fn(usize) + Send + Sync + 'static) -> Self {
        self.handlers.start = Some(Box::new(handler));
        self
    }

    /// Called on each worker thread, with its index, when the pool shuts down.
    ///
    /// The handler may still fork with `join` and `scope` (their work runs on the calling
    /// worker), but `spawn` and `broadcast` on the exiting pool panic: its workers are exiting,
    /// so that work would never run.
    pub fn exit_handler(mut self, handler: impl Fn(usize) + Send + Sync + 'static) -> Self {
        self.handlers.exit = Some(Box::new(handler));
        self
    }

    /// Receives panics that have no caller to propagate to (a `spawn`ed task, a start or exit
    /// handler). Without one, such a panic aborts the process.
    ///
    /// ```
    /// use std::sync::mpsc;
    ///
    /// let (tx, rx) = mpsc::channel::<String>();
    /// let tx = std::sync::Mutex::new(tx);
    /// let pool = blitz::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .panic_handler(move |payload| {
    ///         let message = payload.downcast_ref::<&str>().copied().unwrap_or("?");
    ///         tx.lock().unwrap().send(message.to_string()).unwrap();
    ///     })
    ///     .build()
    ///     .unwrap();
    /// pool.spawn(|| panic!("lost task"));
    /// assert_eq!(rx.recv().unwrap(), "lost task");
    /// ```
    pub fn panic_handler(
        mut self,
        handler: impl Fn(Box<dyn Any + Send>) + Send + Sync + 'static,
    ) -> Self {
        self.handlers.panic = Some(Box::new(handler));
        self
    }
}

impl<S: ThreadSpawn> ThreadPoolBuilder<S> {
    /// Builds the pool and starts its threads.
    ///
    /// # Errors
    ///
    /// [`ThreadPoolBuildError::TooManyThreads`] if more threads are requested than the pool
    /// supports, [`ThreadPoolBuildError::InvalidEnvVar`] if no count was set and
    /// `BLITZ_NUM_THREADS` is not a number, [`ThreadPoolBuildError::ThreadSpawn`] if the
    /// operating system refuses a thread (the threads already started are stopped first).
    pub fn build(self) -> Result<ThreadPool, ThreadPoolBuildError> {
        let (registry, threads) = self.build_registry()?;
        Ok(ThreadPool { registry, threads })
    }

    /// Builds the global pool, used by [`join`](crate::join) and friends outside any pool.
    ///
    /// ```
    /// // First thing in `main`, before any parallel call creates the global pool.
    /// blitz::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .build_global()
    ///     .expect("the global pool is configured once");
    /// assert_eq!(blitz::current_num_threads(), 2);
    /// assert!(blitz::ThreadPoolBuilder::new().build_global().is_err());
    /// ```
    ///
    /// # Errors
    ///
    /// [`ThreadPoolBuildError::GlobalPoolAlreadyInitialized`] if the global pool already
    /// exists: `build_global` succeeds at most once per process, and only before the global
    /// pool's first use. Otherwise the errors of [`build`](Self::build).
    pub fn build_global(self) -> Result<(), ThreadPoolBuildError> {
        let _init = GLOBAL_INIT.lock().unwrap_or_else(|p| p.into_inner());
        if GLOBAL_REGISTRY.get().is_some() {
            return Err(ThreadPoolBuildError::GlobalPoolAlreadyInitialized);
        }
        // The global pool lives for the whole process: its threads are detached.
        let (registry, _threads) = self.build_registry()?;
        GLOBAL_REGISTRY
            .set(registry)
            .unwrap_or_else(|_| unreachable!("guarded by GLOBAL_INIT"));
        Ok(())
    }

    /// The number of threads this builder would start.
    fn resolve_num_threads(&self) -> Result<usize, ThreadPoolBuildError> {
        let env = std::env::var_os(NUM_THREADS_ENV_VAR);
        resolve_num_threads(
            self.num_threads,
            env.as_deref().map(|v| v.to_string_lossy()).as_deref(),
            num_cpus::get(),
        )
    }

    fn build_registry(
        mut self,
    ) -> Result<(Arc<Registry>, Vec<JoinHandle<()>>), ThreadPoolBuildError> {
        let num_threads = self.resolve_num_threads()?;
        let registry = Registry::new(num_threads, std::mem::take(&mut self.handlers));
        let threads = start_workers(
            &registry,
            self.thread_name.as_deref_mut(),
            self.stack_size,
            &mut self.spawner,
        )
        .map_err(ThreadPoolBuildError::ThreadSpawn)?;
        Ok((registry, threads))
    }
}

/// Resolves the thread count from the explicit setting, the environment variable's value and
/// the CPU count. Separate from the builder so it can be tested without touching the process
/// environment.
fn resolve_num_threads(
    explicit: Option<usize>,
    env_value: Option<&str>,
    num_cpus: usize,
) -> Result<usize, ThreadPoolBuildError> {
    let requested = match explicit {
        Some(n) if n > 0 => n,
        _ => match env_value {
            Some(value) => match value.trim().parse::<usize>() {
                Ok(0) => num_cpus,
                Ok(n) => n,
                Err(_) => {
                    return Err(ThreadPoolBuildError::InvalidEnvVar {
                        name: NUM_THREADS_ENV_VAR,
                        value: value.to_owned(),
                    });
                }
            },
            None => num_cpus,
        },
    };
    if requested > MAX_THREADS {
        return Err(ThreadPoolBuildError::TooManyThreads {
            requested,
            max: MAX_THREADS,
        });
    }
    Ok(requested.max(1))
}

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
/// and joins its thread. Dropped on a worker thread (of this pool or any other), it returns at
/// once instead: the pending work may need that very thread (a job that broadcasts on the
/// dropping worker's pool, say), so waiting could hang. The workers then finish the pending
/// work and exit, and a background thread joins them.
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

    /// [`join`](crate::join) on this pool.
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

    /// [`scope`](crate::scope) on this pool: creates a scope whose tasks run on this pool and
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

    /// [`scope_fifo`](crate::scope_fifo) on this pool: a scope whose tasks start in the order
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

    /// [`spawn`](crate::spawn) on this pool: runs `func` on one of its workers without waiting.
    /// Dropping the pool waits for every spawned task.
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

    /// [`broadcast`](crate::broadcast) on this pool: runs `op` once on each of its workers and
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

impl Drop for ThreadPool {
    fn drop(&mut self) {
        release_workers(&self.registry, std::mem::take(&mut self.threads));
    }
}

static GLOBAL_REGISTRY: OnceLock<Arc<Registry>> = OnceLock::new();
/// Serialises the global pool's creation between `build_global` and first use.
static GLOBAL_INIT: Mutex<()> = Mutex::new(());

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

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn explicit_count_wins_over_env() {
        assert_eq!(resolve_num_threads(Some(3), Some("7"), 2).unwrap(), 3);
    }

    #[test]
    fn env_then_cpus() {
        assert_eq!(resolve_num_threads(None, Some(" 5 "), 2).unwrap(), 5);
        assert_eq!(resolve_num_threads(Some(0), Some("0"), 4).unwrap(), 4);
        assert_eq!(resolve_num_threads(None, None, 6).unwrap(), 6);
    }

    #[test]
    fn invalid_env_value_names_variable_and_value() {
        let err = resolve_num_threads(None, Some("lots"), 2).unwrap_err();
        assert!(matches!(
            &err,
            ThreadPoolBuildError::InvalidEnvVar { name: "BLITZ_NUM_THREADS", value } if value == "lots"
        ));
        let message = err.to_string();
        assert!(message.contains("BLITZ_NUM_THREADS"), "{message}");
        assert!(message.contains("\"lots\""), "{message}");
        assert!(resolve_num_threads(None, Some("-1"), 2).is_err());
    }

    #[test]
    fn env_value_too_large_for_an_integer_says_too_large() {
        let err = resolve_num_threads(None, Some("99999999999999999999"), 2).unwrap_err();
        let message = err.to_string();
        assert!(message.contains("too large"), "{message}");
        assert!(message.contains("BLITZ_NUM_THREADS"), "{message}");
        assert!(message.contains("65535"), "{message}");
    }

    #[test]
    fn too_many_threads() {
        assert_eq!(
            resolve_num_threads(Some(MAX_THREADS), None, 2).unwrap(),
            65535
        );
        let err = resolve_num_threads(Some(MAX_THREADS + 1), None, 2).unwrap_err();
        assert!(matches!(
            err,
            ThreadPoolBuildError::TooManyThreads {
                requested: 65536,
                max: 65535
            }
        ));
        assert!(err.to_string().contains("65536"));
        let err = resolve_num_threads(None, Some("100000"), 2).unwrap_err();
        assert!(matches!(err, ThreadPoolBuildError::TooManyThreads { .. }));
    }
}
