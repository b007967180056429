//! Jobs: type-erased units of work that can sit in a deque or the injector.
//!
//! A [`JobRef`] is one pointer to a [`JobHeader`], which holds the function that knows the
//! job's concrete type. The header is the first field of every job struct (`#[repr(C)]`), so the
//! header pointer is also the job pointer. One word fits in an atomic deque slot.
//!
//! [`StackJob`] is the stack-allocated future of fork/join: it lives in the forking function's
//! frame and holds the closure, the result slot (value or panic payload) and a latch. Forking
//! therefore allocates nothing. [`HeapJob`] is the boxed variant for work that outlives its
//! creator's frame (spawn).

use std::any::Any;
use std::cell::UnsafeCell;
use std::mem::ManuallyDrop;
use std::panic::{self, AssertUnwindSafe};
use std::ptr::NonNull;

use crate::latch::Latch;
use crate::registry::Worker;
use crate::unwind::{AbortOnUnwind, drop_quietly};

/// The common prefix of every job: how to run it.
pub(crate) struct JobHeader {
    /// Runs the job whose header is at the pointer, on the given worker.
    execute_fn: unsafe fn(NonNull<JobHeader>, &Worker),
}

/// A type-erased pointer to a job.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct JobRef {
    header: NonNull<JobHeader>,
}

// SAFETY: a `JobRef` is only created for jobs whose closures and results are `Send`, and each
// one is executed exactly once, by one thread.
unsafe impl Send for JobRef {}

impl JobRef {
    /// # Safety
    ///
    /// `header` must point to a live job (the header of a `StackJob` or `HeapJob`) that stays
    /// alive and in place until it has been executed, and that is executed at most once.
    pub(crate) unsafe fn new(header: NonNull<JobHeader>) -> JobRef {
        JobRef { header }
    }

    pub(crate) fn as_ptr(self) -> NonNull<JobHeader> {
        self.header
    }

    /// Runs the job on `worker`.
    ///
    /// # Safety
    ///
    /// The job must not have been executed before (see [`JobRef::new`]).
    pub(crate) unsafe fn execute(self, worker: &Worker) {
        // SAFETY: the header is alive (contract of `new`), and `execute_fn` matches the job type
        // it was created for.
        unsafe { (self.header.as_ref().execute_fn)(self.header, worker) }
    }
}

/// What a job produced.
pub(crate) enum JobResult<T> {
    /// Not run yet.
    None,
    /// Ran and returned.
    Ok(T),
    /// Ran and panicked; the payload is re-thrown to whoever joins the job.
    Panic(Box<dyn Any + Send>),
}

impl<T> JobResult<T> {
    /// Runs `func`, catching a panic as a `Panic` result.
    fn call(func: impl FnOnce() -> T) -> Self {
        match panic::catch_unwind(AssertUnwindSafe(func)) {
            Ok(value) => JobResult::Ok(value),
            Err(payload) => JobResult::Panic(payload),
        }
    }

    /// Throws away the value or payload without letting its `Drop` unwind (see
    /// [`drop_quietly`]).
    pub(crate) fn discard(self) {
        match self {
            JobResult::Ok(value) => drop_quietly(value),
            JobResult::Panic(payload) => drop_quietly(payload),
            JobResult::None => {}
        }
    }

    /// The value, or re-throws the panic.
    pub(crate) fn into_return_value(self) -> T {
        match self {
            JobResult::Ok(value) => value,
            JobResult::Panic(payload) => panic::resume_unwind(payload),
            JobResult::None => unreachable!("blitz: job result taken before the job ran"),
        }
    }
}

/// A job that lives in its creator's stack frame.
///
/// The creator must not leave the frame before the job has either been executed (its latch is
/// set) or taken back and run inline: that is the contract of [`StackJob::as_job_ref`].
#[repr(C)]
pub(crate) struct StackJob<L, F, R> {
    /// Must stay the first field: `JobRef` points here.
    header: JobHeader,
    pub(crate) latch: L,
    func: UnsafeCell<Option<F>>,
    result: UnsafeCell<JobResult<R>>,
}

impl<L, F, R> StackJob<L, F, R>
where
    L: Latch,
    F: FnOnce(&Worker) -> R + Send,
    R: Send,
{
    pub(crate) fn new(func: F, latch: L) -> Self {
        StackJob {
            header: JobHeader {
                execute_fn: Self::execute,
            },
            latch,
            func: UnsafeCell::new(Some(func)),
            result: UnsafeCell::new(JobResult::None),
        }
    }

    /// A reference to this job for a deque or the injector.
    ///
    /// # Safety
    ///
    /// The caller must keep `self` alive and in place until the job's latch is set or until it
    /// takes the job back (a successful pop) and calls [`StackJob::run_inline`].
    pub(crate) unsafe fn as_job_ref(&self) -> JobRef {
        // Derived from the whole job, not `&self.header`: `execute` casts back to the whole
        // `StackJob`, and the pointer's provenance must cover it.
        let job = NonNull::from(self).cast::<JobHeader>();
        // SAFETY: the header is the first field of a `#[repr(C)]` struct, so the job pointer
        // is also a header pointer; liveness is the caller's contract.
        unsafe { JobRef::new(job) }
    }

    /// Runs the closure on this thread, for a job that was taken back before anyone ran it.
    ///
    /// # Safety
    ///
    /// The job must not have been executed, and no other thread may hold a `JobRef` to it.
    pub(crate) unsafe fn run_inline(&self, worker: &Worker) -> R {
        // SAFETY: no other thread can reach the job (caller's contract), so the cell is ours.
        let func = unsafe { (*self.func.get()).take() }.expect("blitz: stack job ran twice");
        func(worker)
    }

    /// Takes the job's result after its latch was set: the value, or the re-thrown panic.
    ///
    /// Takes `&self`, not `self`: a job that was reachable by other threads must never be
    /// moved, and its frame may still be referenced by a deque slot that a thief read.
    ///
    /// # Safety
    ///
    /// The latch must have been observed set (which orders the executor's write of the result
    /// before this read), and the result not taken before.
    pub(crate) unsafe fn take_result(&self) -> R {
        // SAFETY: the caller's contract is ours.
        unsafe { self.take_job_result() }.into_return_value()
    }

    /// Takes the job's result after its latch was set, as a [`JobResult`]: for callers that
    /// must choose between it and another panic.
    ///
    /// # Safety
    ///
    /// As for [`take_result`](Self::take_result).
    pub(crate) unsafe fn take_job_result(&self) -> JobResult<R> {
        // SAFETY: the executor finished writing before setting the latch; nobody else touches
        // the cell afterwards.
        unsafe { std::mem::replace(&mut *self.result.get(), JobResult::None) }
    }

    /// # Safety
    ///
    /// `this` points to a live `StackJob<L, F, R>` that has not been executed.
    unsafe fn execute(this: NonNull<JobHeader>, worker: &Worker) {
        // SAFETY: `this` is the header, the first field of the job (repr(C)).
        let this = unsafe { this.cast::<Self>().as_ref() };
        // Unwinding out of here would leave the creator waiting forever on a latch nobody sets.
        let abort = AbortOnUnwind::new("a stack job unwound between running and setting its latch");
        // SAFETY: the job runs exactly once and the creator does not touch `func` or `result`
        // until the latch is set, so we have exclusive access to both cells.
        let func = unsafe { (*this.func.get()).take() }.expect("blitz: stack job ran twice");
        let result = JobResult::call(|| func(worker));
        // SAFETY: as above.
        unsafe { *this.result.get() = result };
        // SAFETY: `this` stays alive until the latch is set; `set` is the last use of it.
        unsafe { Latch::set(&this.latch) };
        abort.disarm();
    }
}

/// A boxed job for work that outlives the frame that created it (`spawn`).
#[repr(C)]
pub(crate) struct HeapJob<F> {
    header: JobHeader,
    func: ManuallyDrop<F>,
}

impl<F> HeapJob<F>
where
    F: FnOnce(&Worker) + Send,
{
    pub(crate) fn new(func: F) -> Box<Self> {
        Box::new(HeapJob {
            header: JobHeader {
                execute_fn: Self::execute,
            },
            func: ManuallyDrop::new(func),
        })
    }

    /// Leaks the box into a `JobRef`; executing the job frees it.
    ///
    /// # Safety
    ///
    /// The returned `JobRef` must be executed exactly once (or the job leaks); everything `F`
    /// borrows must outlive that execution.
    pub(crate) unsafe fn into_job_ref(self: Box<Self>) -> JobRef {
        let raw = NonNull::from(Box::leak(self));
        // SAFETY: a leaked box lives until `execute` frees it; header is the first field.
        unsafe { JobRef::new(raw.cast()) }
    }

    /// # Safety
    ///
    /// `this` came from `into_job_ref` and has not been executed.
    unsafe fn execute(this: NonNull<JobHeader>, worker: &Worker) {
        // SAFETY: `this` is a leaked `Box<Self>` (see `into_job_ref`), reclaimed exactly once.
        let mut this = unsafe { Box::from_raw(this.cast::<Self>().as_ptr()) };
        // SAFETY: `func` is taken exactly once, here, and the box is then freed without
        // dropping it again (ManuallyDrop).
        let func = unsafe { ManuallyDrop::take(&mut this.func) };
        drop(this);
        func(worker);
    }
}
