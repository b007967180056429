//! Configuring and building pools: [`ThreadPoolBuilder`], [`ThreadPoolBuildError`], the
//! thread count's sources (the builder, `BLITZ_NUM_THREADS`, the CPU count).

use std::any::Any;
use std::fmt;
use std::io;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;
use std::thread::JoinHandle;

use crate::pool::{ThreadPool, set_global_registry};
use crate::registry::Registry;
use crate::sleep::MAX_THREADS;
use crate::thread_spawn::{CustomSpawn, DefaultSpawn, ThreadBuilder, ThreadSpawn};
use crate::threads::{Handlers, ThreadNameFn, start_workers};

/// The environment variable that sets the default number of threads.
///
/// Read when a pool is built without an explicit [`ThreadPoolBuilder::num_threads`]: a
/// positive integer is the thread count, `0` means one thread per logical CPU, an empty value
/// is taken as unset, anything else makes the build fail with
/// [`ThreadPoolBuildError::InvalidEnvVar`].
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
    /// More threads were requested (with `num_threads`) than the sleep counters can hold.
    TooManyThreads {
        /// The requested number of threads.
        requested: usize,
        /// The largest supported number.
        max: usize,
    },
    /// `BLITZ_NUM_THREADS` is set to something that is not a non-negative integer, or to a
    /// number of threads larger than a pool supports (see its `Display`, which tells the two
    /// apart).
    InvalidEnvVar {
        /// The variable's name.
        name: &'static str,
        /// Its value (lossily converted to UTF-8).
        value: String,
    },
    /// `build_global` was called after the global pool already existed (built by an earlier
    /// `build_global`, or created on first use): it must be called once, before the global
    /// pool is first used.
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
            // rayon's text, word for word: code ported from rayon may compare it.
            ThreadPoolBuildError::GlobalPoolAlreadyInitialized => {
                write!(f, "The global thread pool has already been initialized.")
            }
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
    /// A panic of `with_pool` propagates; otherwise a panic of `wrapper` (in its clean-up
    /// after `run`) is resumed, with its own payload. A wrapper that panics *before* it calls
    /// `run` leaves its worker unstarted, and work that needs every worker (a `broadcast`)
    /// waits for it, as for any [`ThreadBuilder`] that is never run.
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
        // A wrapper's panic, kept to be resumed with its own payload: a scope that saw a
        // thread panic resumes only "a scoped thread panicked".
        let wrapper_panic = std::sync::Mutex::new(None);
        let result = std::thread::scope(|scope| {
            let pool = self
                .spawn_handler(|thread| {
                    let mut builder = std::thread::Builder::new();
                    if let Some(name) = thread.name() {
                        builder = builder.name(name.to_owned());
                    }
                    let size = thread
                        .stack_size()
                        .or_else(crate::thread_spawn::default_stack_size);
                    if let Some(size) = size {
                        builder = builder.stack_size(size);
                    }
                    let (wrapper, wrapper_panic) = (&wrapper, &wrapper_panic);
                    builder.spawn_scoped(scope, move || {
                        let ran = panic::catch_unwind(AssertUnwindSafe(|| wrapper(thread)));
                        if let Err(payload) = ran {
                            let mut first = wrapper_panic.lock().unwrap_or_else(|p| p.into_inner());
                            first.get_or_insert(payload);
                        }
                    })?;
                    Ok(())
                })
                .build()?;
            Ok(with_pool(&pool))
        });
        if let Some(payload) = wrapper_panic
            .into_inner()
            .unwrap_or_else(|p| p.into_inner())
        {
            panic::resume_unwind(payload);
        }
        result
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
    /// `BLITZ_NUM_THREADS` if it is set (`0` there means one per logical CPU too), else one
    /// per logical CPU. A value of the variable that is not a number makes `build` return
    /// [`ThreadPoolBuildError::InvalidEnvVar`] (rayon ignores it).
    pub fn num_threads(mut self, num_threads: usize) -> Self {
        self.num_threads = Some(num_threads);
        self
    }

    /// Names worker `i`'s thread `thread_name(i)`.
    ///
    /// If the closure panics, `build` stops: the workers it already started run their start and
    /// exit handlers and exit, as after any failed build (see
    /// [`start_handler`](Self::start_handler)), and `build` resumes the panic.
    pub fn thread_name(mut self, thread_name: impl FnMut(usize) -> String + 'static) -> Self {
        self.thread_name = Some(Box::new(thread_name));
        self
    }

    /// The stack size of each worker thread, in bytes (deep recursion may need more). `0`
    /// (the default) means the default size, as `0` threads means the default count in
    /// [`num_threads`](Self::num_threads): 8 MiB, the usual size of a main thread, for
    /// recursion moved from there onto the workers; or the platform's default for spawned
    /// threads when `RUST_MIN_STACK` is set. A
    /// [`spawn_handler`](Self::spawn_handler) receives the size given here, or `None`.
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

    /// Called on each worker thread, with its index, before it runs any job, once `build` has
    /// started every worker (so the handler may wait for its peers, with a `broadcast` for
    /// instance). If the build fails half-way, the workers it started still run their start
    /// and exit handlers, as in rayon, but a `broadcast` or `spawn_broadcast` there panics
    /// (the missing workers could never run their part), and a handler's panic is dropped:
    /// the build reports its own error. The handler may submit work to its own
    /// pool (`blitz::spawn`): each worker holds the pool open until its start handler has
    /// returned, so that work runs even if the pool's handle is dropped right after `build`.
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
    /// handler). Without one, such a panic aborts the process; so does a panic in the handler
    /// itself, which has nowhere left to go.
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
        Ok(ThreadPool::from_parts(registry, threads))
    }

    /// Builds the global pool, used by [`join`](fn@crate::join) and friends outside any pool.
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
        set_global_registry(|| {
            // The global pool lives for the whole process: its threads are detached.
            let (registry, _threads) = self.build_registry()?;
            Ok(registry)
        })
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

    /// The registry of a new pool, its threads started; the handles of those the pool must
    /// join.
    pub(crate) fn build_registry(
        mut self,
    ) -> Result<(Arc<Registry>, Vec<JoinHandle<()>>), ThreadPoolBuildError> {
        let num_threads = self.resolve_num_threads()?;
        let registry = Registry::new(num_threads, std::mem::take(&mut self.handlers));
        let stack_size = self.stack_size;
        let threads = start_workers(
            &registry,
            self.thread_name.as_deref_mut(),
            stack_size,
            &mut self.spawner,
        )
        .map_err(|err| match stack_size {
            // The likeliest culprit when one is set (an invalid or unmappable size), which
            // the operating system's error does not name.
            Some(size) => ThreadPoolBuildError::ThreadSpawn(io::Error::new(
                err.kind(),
                format!("{err} (with a stack size of {size} bytes)"),
            )),
            None => ThreadPoolBuildError::ThreadSpawn(err),
        })?;
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
        // An empty value is taken as unset (`BLITZ_NUM_THREADS= cargo run`), as shells and
        // most tools take it.
        _ => match env_value.filter(|value| !value.trim().is_empty()) {
            Some(value) => match value.trim().parse::<usize>() {
                Ok(0) => num_cpus,
                Ok(n) if n <= MAX_THREADS => n,
                // Too large (or not a number): the error names the variable, whose value the
                // program did not write.
                _ => {
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
        assert_eq!(resolve_num_threads(None, Some(""), 3).unwrap(), 3);
        assert_eq!(resolve_num_threads(None, Some("  "), 3).unwrap(), 3);
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
    fn env_value_too_large_says_too_large() {
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
        // From the environment, the error names the variable.
        let err = resolve_num_threads(None, Some("65536"), 2).unwrap_err();
        assert!(matches!(err, ThreadPoolBuildError::InvalidEnvVar { .. }));
        let message = err.to_string();
        assert!(message.contains("BLITZ_NUM_THREADS"), "{message}");
        assert!(
            message.contains("\"65536\", which is too large"),
            "{message}"
        );
    }

    /// A recursion 5 MiB deep, more than a spawned thread's 2 MiB: it runs on the workers of
    /// a default pool, as it would on a main thread. (Too small a stack aborts the process:
    /// the test run fails.)
    #[test]
    // Miri's stack frames are not the native ones, and AddressSanitizer may put the local
    // whose address this measures on a fake stack of its own.
    #[cfg_attr(any(miri, blitz_sanitizer), ignore)]
    fn workers_get_a_main_thread_sized_stack() {
        /// Recurses until the stack below `top` holds `bytes`; returns the depth reached.
        fn deep(top: usize, bytes: usize) -> u32 {
            let frame = std::hint::black_box([0u8; 512]);
            let here = frame.as_ptr() as usize;
            if top.abs_diff(here) >= bytes {
                return 0;
            }
            1 + deep(top, bytes) + u32::from(std::hint::black_box(frame)[0])
        }
        fn deep_from_here(bytes: usize) -> u32 {
            let top = std::hint::black_box(0u8);
            deep(&top as *const u8 as usize, bytes)
        }
        if std::env::var_os("RUST_MIN_STACK").is_some() {
            return;
        }
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let bytes = 5 << 20;
        assert!(pool.install(|| deep_from_here(bytes)) > 0);
        let (a, b) = pool.join(|| deep_from_here(bytes), || deep_from_here(bytes));
        assert!(a > 0 && b > 0);
    }
}
