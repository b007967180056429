//! How a pool's worker threads are started: by the pool itself ([`DefaultSpawn`]), or by a
//! handler of the user's ([`ThreadPoolBuilder::spawn_handler`], rayon's name), which receives
//! one [`ThreadBuilder`] per worker and runs it on a thread of its choosing.
//!
//! [`ThreadPoolBuilder::spawn_handler`]: crate::ThreadPoolBuilder::spawn_handler

use std::fmt;
use std::io;
use std::sync::Arc;
use std::thread::JoinHandle;

use crate::registry::{Registry, Worker};
use crate::threads::main_loop;

/// One worker thread of a pool being built, handed to a
/// [`spawn_handler`](crate::ThreadPoolBuilder::spawn_handler): the handler starts a thread
/// (or picks one) and calls [`run`](Self::run) on it.
///
/// The builder's [`thread_name`](crate::ThreadPoolBuilder::thread_name) and
/// [`stack_size`](crate::ThreadPoolBuilder::stack_size) are only passed on, as
/// [`name`](Self::name) and [`stack_size`](Self::stack_size): applying them is up to the
/// handler.
pub struct ThreadBuilder {
    registry: Arc<Registry>,
    index: usize,
    name: Option<String>,
    stack_size: Option<usize>,
}

impl ThreadBuilder {
    /// The worker's index in its pool, what [`current_thread_index`](crate::current_thread_index)
    /// returns on it.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The name the builder's `thread_name` gave this worker, if it has one.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The stack size set on the builder, if any.
    pub fn stack_size(&self) -> Option<usize> {
        self.stack_size
    }

    /// Runs the worker on the current thread until its pool shuts down: the start handler,
    /// the work-stealing loop, the exit handler.
    ///
    /// The pool counts on every worker running: a pool whose `ThreadBuilder` is dropped
    /// instead, or run late, keeps the work that lands on that worker (a `broadcast`, say)
    /// waiting until it runs.
    ///
    /// # Panics
    ///
    /// If the current thread is already a worker of a pool (this one or another): a thread
    /// runs one worker at a time.
    pub fn run(self) {
        if let Some(worker) = Worker::current() {
            panic!(
                "blitz: ThreadBuilder::run was called on a thread that is already a pool's \
                 worker (worker {} of its pool); a spawn handler must run each worker on a \
                 thread of its own",
                worker.index()
            );
        }
        main_loop(self.registry, self.index);
    }
}

impl fmt::Debug for ThreadBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadBuilder")
            .field("index", &self.index)
            .field("name", &self.name)
            .field("stack_size", &self.stack_size)
            .finish_non_exhaustive()
    }
}

/// How a builder starts its pool's threads. Sealed: [`DefaultSpawn`] or [`CustomSpawn`],
/// chosen through the builder.
pub trait ThreadSpawn: sealed::Sealed {
    /// Starts a thread that runs `thread`. Returns its handle if the pool should join it when
    /// it is dropped (only threads the pool started itself).
    #[doc(hidden)]
    fn spawn(&mut self, thread: ThreadBuilder) -> io::Result<Option<JoinHandle<()>>>;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::DefaultSpawn {}
    impl<F> Sealed for super::CustomSpawn<F> {}
}

/// The default: the pool starts each worker on a `std::thread` of its own, named and sized as
/// the builder says, and joins it when the pool is dropped.
#[derive(Debug, Default)]
pub struct DefaultSpawn;

impl ThreadSpawn for DefaultSpawn {
    fn spawn(&mut self, thread: ThreadBuilder) -> io::Result<Option<JoinHandle<()>>> {
        let mut builder = std::thread::Builder::new();
        if let Some(name) = &thread.name {
            builder = builder.name(name.clone());
        }
        if let Some(size) = thread.stack_size.or_else(default_stack_size) {
            builder = builder.stack_size(size);
        }
        builder.spawn(move || thread.run()).map(Some)
    }
}

/// The stack of a worker the pool starts itself, when the builder names no size: 8 MiB, the
/// usual size of a program's main thread, not the 2 MiB of a spawned thread, for recursion
/// that `#[parallel]` or `join` moves from the main thread onto the workers. Each level of it
/// carries a fork's frames on top of the fn's own (a chain of `join`s some 40,000 deep fills
/// 8 MiB), so a recursion that is deep *and* forks at every level may still need more (see
/// the book's performance chapter). The memory is reserved, not used, until the recursion
/// reaches it. `None` (the
/// platform's default) when `RUST_MIN_STACK` is set: that is the user's choice for every
/// spawned thread.
pub(crate) fn default_stack_size() -> Option<usize> {
    const MAIN_THREAD_STACK: usize = 8 << 20;
    std::env::var_os("RUST_MIN_STACK")
        .is_none()
        .then_some(MAIN_THREAD_STACK)
}

/// A [`spawn_handler`](crate::ThreadPoolBuilder::spawn_handler) of the user's: the pool hands
/// it each worker and does not join the threads (whoever started them does).
pub struct CustomSpawn<F>(F);

impl<F> CustomSpawn<F> {
    pub(crate) fn new(handler: F) -> Self {
        CustomSpawn(handler)
    }
}

impl<F> fmt::Debug for CustomSpawn<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CustomSpawn")
    }
}

impl<F> ThreadSpawn for CustomSpawn<F>
where
    F: FnMut(ThreadBuilder) -> io::Result<()>,
{
    fn spawn(&mut self, thread: ThreadBuilder) -> io::Result<Option<JoinHandle<()>>> {
        (self.0)(thread).map(|()| None)
    }
}

/// The [`ThreadBuilder`] for worker `index` of `registry`.
pub(crate) fn thread_builder(
    registry: &Arc<Registry>,
    index: usize,
    name: Option<String>,
    stack_size: Option<usize>,
) -> ThreadBuilder {
    ThreadBuilder {
        registry: Arc::clone(registry),
        index,
        name,
        stack_size,
    }
}
