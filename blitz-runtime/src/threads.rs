//! Worker threads: starting a pool's workers, their main loop, the pool's handlers (panic,
//! start, exit), and stopping and joining the workers.

use std::any::Any;
use std::fmt;
use std::io;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::registry::{Registry, Worker};
use crate::thread_spawn::{ThreadSpawn, thread_builder};
use crate::unwind::{AbortOnUnwind, abort, drop_quietly};

/// Called with a panic payload that escaped a spawned task or a handler.
pub(crate) type PanicHandler = dyn Fn(Box<dyn Any + Send>) + Send + Sync;
/// Called with the worker's index on its thread, at start or exit.
pub(crate) type ThreadHandler = dyn Fn(usize) + Send + Sync;
/// Names worker `i`'s thread.
pub(crate) type ThreadNameFn = dyn FnMut(usize) -> String;

/// The per-pool callbacks taken from the builder.
#[derive(Default)]
pub(crate) struct Handlers {
    pub(crate) panic: Option<Box<PanicHandler>>,
    pub(crate) start: Option<Box<ThreadHandler>>,
    pub(crate) exit: Option<Box<ThreadHandler>>,
}

/// Holds every new worker before its start handler until the build has started them all, or
/// failed.
///
/// A start handler may wait for its peers (a `broadcast` runs one job on every worker). On a
/// build that fails half-way, the workers it started still run their start and exit handlers,
/// as rayon's do, but work that needs every worker is refused there
/// ([`Registry::accept_broadcast`]): the workers never started would keep it, and the build,
/// which joins the workers it started, waiting forever.
pub(crate) struct StartGate {
    /// Set once, when the build has started every worker (`true`) or failed (`false`).
    outcome: OnceLock<bool>,
}

impl StartGate {
    pub(crate) fn new() -> StartGate {
        StartGate {
            outcome: OnceLock::new(),
        }
    }

    /// Lets the workers through: `built` if every worker was started. A build opens the gate
    /// once, on its way out.
    fn open(&self, built: bool) {
        let opened = self.outcome.set(built);
        debug_assert!(opened.is_ok(), "blitz: a pool's start gate opened twice");
    }

    /// Waits for [`open`](Self::open); true if the build succeeded.
    fn wait(&self) -> bool {
        *self.outcome.wait()
    }

    /// True if the build failed (false while it is still starting workers).
    pub(crate) fn failed(&self) -> bool {
        self.outcome.get() == Some(&false)
    }
}

/// How long dropping a pool waits for its workers to finish (see [`release_workers`]).
#[cfg(not(miri))]
const EXIT_WAIT: Duration = Duration::from_secs(1);
/// Under Miri, which interprets a thousand times slower and reports threads still running when
/// the program ends: as good as no limit (no Miri test has a worker wait for the dropper).
#[cfg(miri)]
const EXIT_WAIT: Duration = Duration::from_secs(3600);

/// The number of a pool's workers that have finished (run their exit handler and left their
/// main loop), for a dropped pool to wait on with a time limit, which a thread's `join` does
/// not have.
pub(crate) struct ExitTally {
    finished: Mutex<usize>,
    changed: Condvar,
}

impl ExitTally {
    pub(crate) fn new() -> ExitTally {
        ExitTally {
            finished: Mutex::new(0),
            changed: Condvar::new(),
        }
    }

    /// Worker threads call this last, on their way out.
    fn worker_finished(&self) {
        *self.finished.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        self.changed.notify_all();
    }

    /// Waits until `workers` workers have finished, or `limit` has passed; true in the first
    /// case.
    fn wait_for(&self, workers: usize, limit: Duration) -> bool {
        let finished = self.finished.lock().unwrap_or_else(|p| p.into_inner());
        let (finished, _) = self
            .changed
            .wait_timeout_while(finished, limit, |finished| *finished < workers)
            .unwrap_or_else(|p| p.into_inner());
        *finished >= workers
    }
}

/// A readable message from a panic payload.
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> &str {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s
    } else {
        "non-string payload"
    }
}

/// Where a panic that nobody can catch came from: named in the abort message when the pool has
/// no panic handler.
#[derive(Clone, Copy, Debug)]
pub(crate) enum PanicSource {
    /// A `spawn`ed task.
    SpawnedTask,
    /// The start handler, on the worker of that index.
    StartHandler(usize),
    /// The exit handler, on the worker of that index.
    ExitHandler(usize),
}

impl fmt::Display for PanicSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PanicSource::SpawnedTask => write!(f, "a spawned task"),
            PanicSource::StartHandler(index) => write!(f, "worker {index}'s start handler"),
            PanicSource::ExitHandler(index) => write!(f, "worker {index}'s exit handler"),
        }
    }
}

impl Registry {
    /// Reports a panic that has nowhere else to go (a spawned task, a start/exit handler): the
    /// pool's panic handler, or abort if there is none.
    pub(crate) fn handle_panic(&self, payload: Box<dyn Any + Send>, source: PanicSource) {
        match &self.handlers().panic {
            Some(handler) => {
                // A panicking panic handler has nowhere left to report to.
                let abort = AbortOnUnwind::new("the pool's panic handler panicked");
                handler(payload);
                abort.disarm();
            }
            None => {
                let message = panic_message(&*payload);
                abort(&format!(
                    "{source} panicked ({message}) and the pool has no panic handler"
                ));
            }
        }
    }

    /// Runs a start/exit handler, routing its panic to `handle_panic`. On the workers of a
    /// failed build the panic is dropped instead (after the panic hook has reported it): the
    /// build returns its own error, and a refused broadcast (see [`StartGate`]) must not
    /// abort the process for want of a panic handler.
    fn run_thread_handler(
        &self,
        handler: &Option<Box<ThreadHandler>>,
        index: usize,
        source: PanicSource,
        built: bool,
    ) {
        if let Some(handler) = handler
            && let Err(payload) = panic::catch_unwind(AssertUnwindSafe(|| handler(index)))
        {
            if built {
                self.handle_panic(payload, source);
            } else {
                drop_quietly(payload);
            }
        }
    }
}

/// Starts one thread per worker of `registry` through `spawner`, each running [`main_loop`].
/// Returns the handles of the threads the pool must join (those it started itself).
///
/// A build that fails half-way leaves nothing running: if a thread cannot be started, or the
/// `thread_name` closure or a spawn handler panics, the pool is terminated, so the workers
/// already started run their start and exit handlers and exit (see [`StartGate`]); those the
/// pool started are joined, or left to a background thread after [`EXIT_WAIT`], before the
/// error is returned (or the panic resumed).
pub(crate) fn start_workers(
    registry: &Arc<Registry>,
    mut thread_name: Option<&mut ThreadNameFn>,
    stack_size: Option<usize>,
    spawner: &mut impl ThreadSpawn,
) -> Result<Vec<JoinHandle<()>>, io::Error> {
    let num_threads = registry.num_threads();
    let mut threads = Vec::with_capacity(num_threads);
    for index in 0..num_threads {
        // Each worker's start handler holds the pool open until it has run (see `main_loop`).
        let holds = holds_pool_until_started(registry);
        if holds {
            registry.increment_terminate_count();
        }
        let started = panic::catch_unwind(AssertUnwindSafe(|| {
            let name = thread_name.as_mut().map(|name| name(index));
            spawner.spawn(thread_builder(registry, index, name, stack_size))
        }));
        let failed = |threads| {
            if holds {
                // This worker never started: its hold goes with it.
                registry.terminate();
            }
            // Before the join: the started workers wait at the gate.
            registry.start_gate().open(false);
            stop_started_workers(registry, threads);
        };
        match started {
            Ok(Ok(handle)) => threads.extend(handle),
            Ok(Err(err)) => {
                failed(threads);
                return Err(err);
            }
            Err(payload) => {
                failed(threads);
                panic::resume_unwind(payload);
            }
        }
    }
    registry.start_gate().open(true);
    Ok(threads)
}

/// Whether each worker holds its pool open (a count of `terminate_count`) until its start
/// handler has run: a start handler may submit work to its own pool (`spawn`), which must
/// still be accepted when the pool's handle was dropped right after `build`.
fn holds_pool_until_started(registry: &Registry) -> bool {
    registry.handlers().start.is_some()
}

/// A build failed: terminates the pool (drops the count its handle would have held) and
/// disposes of the workers started so far as a dropped pool does (see [`release_workers`]).
/// They have run no job, but their start handlers may be waiting for the caller of `build`
/// (at a barrier it reaches after `build` returns): an unbounded join would wait forever.
#[cold]
fn stop_started_workers(registry: &Registry, threads: Vec<JoinHandle<()>>) {
    release_workers(registry, threads);
}

/// The body of every worker thread: run work until the pool terminates.
pub(crate) fn main_loop(registry: Arc<Registry>, index: usize) {
    // A worker that unwinds out of here is gone, and every scope, join or pool drop waiting
    // for work it holds waits forever: better a clear abort than a hang.
    let abort = AbortOnUnwind::new(
        "a panic escaped a worker's main loop (a bug in the runtime: jobs and handlers catch \
         their own panics)",
    );
    let built = registry.start_gate().wait();
    let worker = Worker::new(Arc::clone(&registry), index);
    Worker::enter_thread(&worker);
    registry.run_thread_handler(
        &registry.handlers().start,
        index,
        PanicSource::StartHandler(index),
        built,
    );
    if holds_pool_until_started(&registry) {
        // The count `start_workers` took for this worker's start handler.
        registry.terminate();
    }

    worker.wait_until(registry.terminate_latch(index));

    // Termination happens only when no job can still be pending (the terminate count), so our
    // deque is empty.
    debug_assert!(worker.take_local_job().is_none());
    registry.run_thread_handler(
        &registry.handlers().exit,
        index,
        PanicSource::ExitHandler(index),
        built,
    );
    Worker::leave_thread();
    registry.exit_tally().worker_finished();
    abort.disarm();
}

/// Releases the pool handle's hold on `registry` and disposes of its worker threads: joins
/// them once they have finished their pending work and exit handlers, if that takes less than
/// [`EXIT_WAIT`]; otherwise, or on a worker thread of any pool, has a background thread join
/// them.
///
/// The workers may be waiting, directly or not, for the very thread that drops the pool: a
/// start or exit handler that meets it at a barrier (as rayon's own tests of the handlers do),
/// a spawned task that waits for a message it sends after the drop, a pending job that needs a
/// broadcast on the dropping worker's pool. Joining them unconditionally would hang both sides.
/// Rayon never joins; here a drop still returns with every worker gone whenever they finish on
/// their own, so that exit handlers have run and spawned tasks are done when it returns.
pub(crate) fn release_workers(registry: &Registry, threads: Vec<JoinHandle<()>>) {
    registry.terminate();
    if threads.is_empty() {
        // A spawn handler started the workers: they are not ours to wait for.
        return;
    }
    if Worker::current().is_some() || !registry.exit_tally().wait_for(threads.len(), EXIT_WAIT) {
        join_in_background(threads);
        return;
    }
    for handle in threads {
        // A worker thread only ends by returning from its main loop (anything else aborts),
        // so there is no error to report.
        let _ = handle.join();
    }
}

/// Joins `threads` on a new thread.
fn join_in_background(threads: Vec<JoinHandle<()>>) {
    if threads.is_empty() {
        return;
    }
    let reaper = std::thread::Builder::new()
        .name("blitz-pool-reaper".into())
        .spawn(move || {
            for handle in threads {
                let _ = handle.join();
            }
        });
    if let Err(err) = reaper {
        // The handles were dropped with the closure: the workers are detached. They still
        // exit once the pool's pending work is done.
        eprintln!(
            "blitz: could not start a thread to join a dropped pool's workers ({err}); they \
             exit on their own once their pending work is done"
        );
    }
}
