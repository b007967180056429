//! Scoped tasks: [`scope`] and [`Scope::spawn`] (rayon-core semantics).
//!
//! A scope counts its pending tasks in a [`CountLatch`] that starts at one (the scope's own
//! body). Each `spawn` adds one before the task is queued, and each task drops one when it has
//! finished, so the count reaches zero exactly when the body and every task (including tasks
//! spawned by tasks) are done. The owner waits for that with the sleep protocol, running other
//! work (typically its own tasks) meanwhile.
//!
//! # Invariants
//!
//! * The [`Scope`] lives in the owner's stack frame, and the owner does not leave that frame
//!   before the count reached zero. A task therefore may dereference its pointer to the scope
//!   until its own decrement, which is its last access.
//! * Tasks may borrow anything that outlives `'scope`: the owner's wait outlives them all.
//!
//! # Panics
//!
//! A panicking task does not stop the others. The first panic (of a task, or of the scope's
//! body) is kept; once every task has finished, the scope re-throws it to its caller. Later
//! payloads are dropped where they lost, under [`drop_quietly`]: a payload whose `Drop` panics
//! cannot skip a task's decrement or the owner's wait.

use std::any::Any;
use std::marker::PhantomData;
use std::panic::{self, AssertUnwindSafe};
use std::ptr;
use std::sync::Arc;

use crate::broadcast::BroadcastContext;
use crate::job::HeapJob;
use crate::join::with_worker;
use crate::latch::{CountLatch, Latch};
use crate::pool::global_registry;
use crate::registry::{Registry, Worker};
use crate::sync::{AtomicPtr, Ordering};
use crate::unwind::drop_quietly;

/// A scope in which tasks borrowing from the enclosing stack frame can be spawned; see
/// [`scope`].
pub struct Scope<'scope> {
    /// One count for the body, one per task not yet finished.
    job_completed_latch: CountLatch,
    /// The first panic payload (a leaked `Box<Box<dyn Any + Send>>`), or null.
    panic: AtomicPtr<Box<dyn Any + Send>>,
    /// The pool the tasks run on.
    registry: Arc<Registry>,
    /// Makes `'scope` invariant, and the scope `Send + Sync` only if tasks may be.
    marker: TaskMarker<'scope>,
}

/// The type of a task of a `Scope<'scope>`, as a marker.
type TaskMarker<'scope> = PhantomData<Box<dyn FnOnce(&Scope<'scope>) + Send + Sync + 'scope>>;

impl std::fmt::Debug for Scope<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scope")
            .field("num_threads", &self.registry.num_threads())
            .finish_non_exhaustive()
    }
}

/// A pointer to a scope that a task carries to whichever worker runs it.
struct ScopePtr<'scope>(*const Scope<'scope>);

// SAFETY: `Scope` is `Sync` (all its shared state is atomic or immutable), so handing a pointer
// to it to another thread is sound; liveness is the scope's invariant (see the module docs).
unsafe impl Send for ScopePtr<'_> {}

impl<'scope> ScopePtr<'scope> {
    /// # Safety
    ///
    /// The scope must still be waiting for the caller's task (the task has not yet dropped its
    /// count), which keeps it alive.
    unsafe fn as_ref<'a>(&self) -> &'a Scope<'scope> {
        // SAFETY: alive per the caller's contract.
        unsafe { &*self.0 }
    }
}

/// Creates a scope, runs `op` in it and waits for every task spawned in it.
///
/// Tasks spawned with [`Scope::spawn`] may borrow local variables of the caller (anything that
/// outlives the scope), and may spawn more tasks. `scope` returns once `op` and all tasks have
/// finished. Called from outside a pool, it runs on the global pool and the calling thread
/// blocks.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
///
/// let words = ["a", "bb", "ccc"];
/// let total = AtomicUsize::new(0);
/// blitz::scope(|s| {
///     for w in &words {
///         let total = &total;
///         s.spawn(move |_| {
///             total.fetch_add(w.len(), Ordering::Relaxed);
///         });
///     }
/// });
/// assert_eq!(total.into_inner(), 6);
/// ```
///
/// # Panics
///
/// If `op` or any task panics, the other tasks still run to completion; then the first panic is
/// re-thrown here.
pub fn scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R + Send,
    R: Send,
{
    with_worker(|worker| scope_in_worker(worker, op))
}

/// Creates a scope like [`scope`], but runs `op` on the calling thread (rayon's
/// `in_place_scope`), so `op` need not be `Send`. Inside a pool this is [`scope`]; outside
/// one, the tasks run on the global pool while `op` runs here, and the calling thread then
/// blocks until they have finished.
///
/// ```
/// use std::rc::Rc;
///
/// let not_send = Rc::new(5); // `op` may use it: it never leaves this thread
/// let mut squares = [0u32; 4];
/// blitz::in_place_scope(|s| {
///     for (i, slot) in squares.iter_mut().enumerate() {
///         s.spawn(move |_| *slot = (i * i) as u32);
///     }
///     assert_eq!(*not_send, 5);
/// });
/// assert_eq!(squares, [0, 1, 4, 9]);
/// ```
///
/// # Panics
///
/// As [`scope`].
pub fn in_place_scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R,
{
    match Worker::current() {
        Some(worker) => scope_in_worker(worker, op),
        None => scope_on(None, global_registry(), op),
    }
}

/// [`scope`] with `owner` as the scope's owner (a worker of the pool the tasks run on).
pub(crate) fn scope_in_worker<'scope, OP, R>(owner: &Worker, op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R,
{
    scope_on(Some(owner), owner.registry(), op)
}

/// Runs `op` in a new scope whose tasks go to `registry`. `owner`, if any, is the calling
/// thread's worker, of that pool or of another one, which runs its own pool's jobs while it
/// waits for the tasks; without one the caller blocks.
pub(crate) fn scope_on<'scope, OP, R>(owner: Option<&Worker>, registry: &Arc<Registry>, op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R,
{
    let scope = Scope::new(owner, registry);
    let result = match panic::catch_unwind(AssertUnwindSafe(|| op(&scope))) {
        Ok(value) => Some(value),
        Err(payload) => {
            scope.job_panicked(payload);
            None
        }
    };
    // SAFETY: the body's own count; `scope` lives on in this frame until after the wait.
    unsafe { Latch::set(&scope.job_completed_latch) };
    scope.job_completed_latch.wait(owner);
    if let Some(payload) = scope.take_panic() {
        // The body's value is discarded here, not while the panic unwinds this frame (where
        // a panicking `Drop` would abort).
        drop_quietly(result);
        panic::resume_unwind(payload);
    }
    // No panic was stored, so `op` returned.
    result.expect("blitz: scope body panicked without a stored payload")
}

impl<'scope> Scope<'scope> {
    fn new(owner: Option<&Worker>, registry: &Arc<Registry>) -> Self {
        Scope {
            job_completed_latch: CountLatch::new(owner),
            panic: AtomicPtr::new(ptr::null_mut()),
            registry: Arc::clone(registry),
            marker: PhantomData,
        }
    }

    /// Spawns `body` as a task of this scope: it runs on some worker of the pool, possibly in
    /// parallel with the caller, and the scope waits for it before returning.
    ///
    /// `body` gets the scope, so it can spawn further tasks.
    ///
    /// ```
    /// let mut left = 0;
    /// let mut right = 0;
    /// blitz::scope(|s| {
    ///     s.spawn(|s| {
    ///         s.spawn(|_| right = 2);
    ///         left = 1;
    ///     });
    /// });
    /// assert_eq!((left, right), (1, 2));
    /// ```
    pub fn spawn<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        let scope_ptr = ScopePtr(self);
        // Before the task is queued: the count must not reach zero while it is pending.
        self.job_completed_latch.increment();
        let job = HeapJob::new(move |_: &Worker| {
            // SAFETY: our count is still held (dropped at the end of this closure), so the
            // scope is alive.
            let scope = unsafe { scope_ptr.as_ref() };
            if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(|| body(scope))) {
                scope.job_panicked(payload);
            }
            // SAFETY: the scope is alive until its count is observed at zero; this decrement is
            // our last access to it.
            unsafe { Latch::set(&scope.job_completed_latch) };
        });
        // Deques and the injector hand each job to one taker, and the scope waits for it.
        // SAFETY: so it runs exactly once, and all `body` borrows outlives that (`'scope`).
        let job_ref = unsafe { job.into_job_ref() };
        self.registry.inject_or_push(job_ref);
    }

    /// Spawns `body` once on every worker of the scope's pool, as a task of this scope (rayon's
    /// `Scope::spawn_broadcast`): each run gets the scope and a [`BroadcastContext`] saying
    /// which worker runs it. A panic in one run reaches the scope's caller, as a task's does,
    /// after every run finished.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    ///
    /// let pool = blitz::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    /// let seen = [const { AtomicUsize::new(0) }; 3];
    /// pool.scope(|s| {
    ///     s.spawn_broadcast(|_, ctx| {
    ///         seen[ctx.index()].fetch_add(1, Ordering::SeqCst);
    ///     });
    /// });
    /// assert!(seen.iter().all(|n| n.load(Ordering::SeqCst) == 1));
    /// ```
    ///
    /// # Panics
    ///
    /// In an exit handler of the scope's pool (see
    /// [`ThreadPoolBuilder::exit_handler`](crate::ThreadPoolBuilder::exit_handler)): the other
    /// workers have left, so the runs meant for them could never happen.
    pub fn spawn_broadcast<BODY>(&self, body: BODY)
    where
        BODY: Fn(&Scope<'scope>, BroadcastContext<'_>) + Send + Sync + 'scope,
    {
        // Before anything is counted or queued: from an exit handler the other workers are
        // gone, and a job queued for one of them would keep the scope waiting forever.
        self.registry.accept_broadcast("spawn_broadcast");
        let body = Arc::new(body);
        let jobs: Vec<_> = (0..self.registry.num_threads())
            .map(|_| {
                let scope_ptr = ScopePtr(self);
                let body = Arc::clone(&body);
                // Before the job is queued: the count must not reach zero while it is pending.
                self.job_completed_latch.increment();
                let job = HeapJob::new(move |worker: &Worker| {
                    // SAFETY: our count is still held (dropped at the end of this closure), so
                    // the scope is alive.
                    let scope = unsafe { scope_ptr.as_ref() };
                    let call = || body(scope, BroadcastContext::new(worker));
                    if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(call)) {
                        scope.job_panicked(payload);
                    }
                    // Before the count drops: the last reference drops `body`, which may
                    // borrow what the scope outlives.
                    drop(body);
                    // SAFETY: the scope is alive until its count is observed at zero; this
                    // decrement is our last access to it.
                    unsafe { Latch::set(&scope.job_completed_latch) };
                });
                // SAFETY: each job goes to one worker's broadcast queue and runs exactly once,
                // and the scope waits for it, so what `body` borrows outlives it (`'scope`).
                unsafe { job.into_job_ref() }
            })
            .collect();
        self.registry.inject_broadcast(jobs.into_iter());
    }

    /// Records `payload` if it is the first panic of this scope; drops it otherwise.
    ///
    /// Never unwinds, even if the losing payload's `Drop` panics: the caller still has to
    /// drop its count (a task) or wait for the tasks (the body), and an unwind here would
    /// skip that, leaving the scope waiting forever or returning while tasks still run.
    fn job_panicked(&self, payload: Box<dyn Any + Send>) {
        let boxed = Box::into_raw(Box::new(payload));
        // Release (success): publishes the payload box to the owner's acquire swap in
        // `maybe_propagate_panic`. Relaxed (failure): we only learn that another panic was
        // first, and touch nothing it wrote.
        if self
            .panic
            .compare_exchange(ptr::null_mut(), boxed, Ordering::Release, Ordering::Relaxed)
            .is_err()
        {
            // SAFETY: `boxed` came from `Box::into_raw` above and was never published.
            drop_quietly(unsafe { Box::from_raw(boxed) });
        }
    }

    /// After every task finished: takes the first panic, if any.
    fn take_panic(&self) -> Option<Box<dyn Any + Send>> {
        // Acquire: pairs with the release CAS in `job_panicked` so the payload is visible.
        let payload = self.panic.swap(ptr::null_mut(), Ordering::Acquire);
        if payload.is_null() {
            return None;
        }
        // SAFETY: a non-null pointer was published by `job_panicked` from `Box::into_raw`,
        // and the swap made us its only owner.
        Some(*unsafe { Box::from_raw(payload) })
    }
}

impl Drop for Scope<'_> {
    fn drop(&mut self) {
        // Only reachable if a payload was stored and not re-thrown (it always is re-thrown,
        // but freeing it here keeps the scope leak-free whatever happens).
        // Relaxed: `&mut self` means no other thread can access the slot any more.
        let payload = self.panic.swap(ptr::null_mut(), Ordering::Relaxed);
        if !payload.is_null() {
            // SAFETY: as in `take_panic`.
            drop_quietly(unsafe { Box::from_raw(payload) });
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::ThreadPoolBuilder;
    use std::sync::atomic::{AtomicU64, AtomicUsize};

    /// Fills `slots[i]` with `i * i` from tasks spawned by tasks; returns the body's thread.
    fn spawn_squares<'s>(s: &Scope<'s>, slots: &'s [AtomicU64]) -> std::thread::ThreadId {
        for (i, slot) in slots.iter().enumerate() {
            s.spawn(move |s| s.spawn(move |_| slot.store((i * i) as u64, Ordering::Relaxed)));
        }
        std::thread::current().id()
    }

    /// Runs `in_scope` with fresh slots and checks that every task ran before it returned.
    fn check_squares(
        in_scope: impl FnOnce(&[AtomicU64]) -> std::thread::ThreadId,
    ) -> std::thread::ThreadId {
        let slots: Vec<AtomicU64> = (0..64).map(|_| AtomicU64::new(0)).collect();
        let body_thread = in_scope(&slots);
        let squares = slots.iter().enumerate();
        assert!(
            squares
                .into_iter()
                .all(|(i, x)| x.load(Ordering::Relaxed) == (i * i) as u64)
        );
        body_thread
    }

    /// Each broadcast run writes into the caller's data through its borrowed body: under Miri,
    /// a run that outlived the scope, or a body dropped after the count, would be caught.
    #[test]
    fn spawn_broadcast_runs_borrow_until_the_scope_ends() {
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let slots: Vec<AtomicU64> = (0..2).map(|_| AtomicU64::new(0)).collect();
        let label = String::from("run");
        pool.scope(|s| {
            s.spawn_broadcast(|_, ctx| {
                slots[ctx.index()]
                    .store(label.len() as u64 + ctx.index() as u64, Ordering::Relaxed);
            });
        });
        let got: Vec<u64> = slots.iter().map(|x| x.load(Ordering::Relaxed)).collect();
        assert_eq!(got, [3, 4]);
    }

    #[test]
    fn in_place_scope_runs_the_body_here_and_waits_for_its_tasks() {
        let here = std::thread::current().id();
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        // From outside: the body runs here, the tasks on the pool.
        let body = check_squares(|slots| pool.in_place_scope(|s| spawn_squares(s, slots)));
        assert_eq!(body, here);
        if !cfg!(miri) {
            // The global pool's threads outlive the test, which Miri reports as a leak.
            let body = check_squares(|slots| in_place_scope(|s| spawn_squares(s, slots)));
            assert_eq!(body, here);
        }
        // From a worker: the body runs on that worker.
        pool.install(|| {
            let worker = std::thread::current().id();
            let body = check_squares(|slots| in_place_scope(|s| spawn_squares(s, slots)));
            assert_eq!(body, worker);
            let body = check_squares(|slots| pool.in_place_scope(|s| spawn_squares(s, slots)));
            assert_eq!(body, worker);
        });
    }

    #[test]
    fn in_place_scope_rethrows_a_panic_after_every_task_finished() {
        crate::test_panics::quiet_planted_panics();
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let ran = AtomicUsize::new(0);
        let err = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.in_place_scope(|s| {
                for _ in 0..8 {
                    s.spawn(|_| {
                        ran.fetch_add(1, Ordering::Relaxed);
                    });
                }
                panic!("planted body panic");
            })
        }))
        .unwrap_err();
        assert_eq!(err.downcast_ref::<&str>(), Some(&"planted body panic"));
        assert_eq!(ran.into_inner(), 8);
    }

    #[test]
    fn empty_scope_returns_the_body_value() {
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        assert_eq!(pool.install(|| scope(|_| 42)), 42);
    }

    #[test]
    fn second_panic_is_dropped_and_first_is_rethrown() {
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let ran = AtomicUsize::new(0);
        let err = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.install(|| {
                scope(|s| {
                    for _ in 0..10 {
                        s.spawn(|_| {
                            ran.fetch_add(1, Ordering::Relaxed);
                            panic!("task");
                        });
                    }
                })
            })
        }))
        .unwrap_err();
        assert_eq!(err.downcast_ref::<&str>(), Some(&"task"));
        assert_eq!(ran.into_inner(), 10);
    }

    /// A payload whose `Drop` panics (and records that it ran).
    struct DropBomb(&'static std::sync::atomic::AtomicBool);

    impl Drop for DropBomb {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Release);
            panic!("drop of the body's payload");
        }
    }

    /// The body panics after a task did, so its payload loses and is dropped, and that drop
    /// panics: the scope must still wait for its other task, and re-throw the task's panic.
    #[test]
    fn losing_body_payload_with_panicking_drop_does_not_end_the_scope_early() {
        use std::sync::atomic::AtomicBool;
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        static DROPPING: AtomicBool = AtomicBool::new(false);
        let dropping = &DROPPING;
        let slow_task_done = AtomicBool::new(false);
        let err = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.install(|| {
                scope(|s| {
                    s.spawn(|_| panic!("first"));
                    s.spawn(|_| {
                        // Still running while the body's payload is dropped: the scope must
                        // not return before this task finishes.
                        while !dropping.load(Ordering::Acquire) {
                            std::hint::spin_loop();
                        }
                        // Not an assertion on time: only makes a scope that returns early
                        // (the bug) observably early.
                        std::thread::sleep(std::time::Duration::from_millis(50));
                        slow_task_done.store(true, Ordering::Release);
                    });
                    // Wait until the first task's panic is recorded, so the body's loses.
                    while s.panic.load(Ordering::Acquire).is_null() {
                        std::hint::spin_loop();
                    }
                    panic::panic_any(DropBomb(dropping));
                })
            })
        }))
        .unwrap_err();
        let done = slow_task_done.load(Ordering::Acquire);
        let message = err.downcast_ref::<&str>().copied();
        assert!(done, "the scope returned while a task still ran");
        assert_eq!(message, Some("first"), "the first panic surfaces");
    }
}
