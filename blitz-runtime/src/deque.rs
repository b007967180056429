//! A growable Chase-Lev work-stealing deque.
//!
//! The owning worker pushes and pops at the *bottom* (LIFO, so it keeps working on the freshest,
//! cache-warm job); thieves steal from the *top* (FIFO, so they take the oldest and usually
//! largest piece of work). The algorithm and its C11 orderings follow Lê, Pop, Cohen and Zappa
//! Nardelli, "Correct and Efficient Work-Stealing for Weak Memory Models" (PPoPP 2013).
//!
//! Two departures from the reference design (see `ERRATA.md`):
//!
//! * **Atomic slots.** Every slot is an `AtomicPtr`. A thief reads its slot *before* it knows it
//!   has won the race for it; with a plain slot that speculative read would be a data race (UB,
//!   and a Miri/TSan report). A relaxed atomic load costs the same as a plain load on every
//!   platform we target.
//! * **No use-after-free on growth** (ERRATA 2). When the owner replaces the buffer, the old
//!   one is *retired*, not freed: a thief that loaded the old buffer pointer can always finish
//!   its read; if it read a stale slot its CAS on `top` fails.
//! * **Shrinking after a burst.** A buffer grown past [`SHRINK_ABOVE`] slots is swapped for a
//!   new small one the next time the owner finds its deque empty, so a burst (a million
//!   `spawn`s from one worker) does not pin its memory for the rest of the pool's life.
//!   Retired buffers are freed as soon as no thief can be reading one: a thief *announces*
//!   itself in `stealers` before it loads the buffer pointer and withdraws after its last read
//!   of a slot, and the owner frees its retired buffers only after it stored the new pointer
//!   and then saw no announcement (see [`Deque::reclaim_retired`]). Empty steals (idle scans)
//!   do not announce. Push and pop are unchanged, except that a pop that finds the deque empty
//!   checks, off its path, for something to shrink or free.
//!
//! # Invariants
//!
//! * `top <= bottom + 1` at all times, and `top <= bottom` whenever no `pop` is in progress; the
//!   items are the slots `top .. bottom` (indices taken modulo the capacity).
//! * Only the owner writes `bottom` and `buffer`; `top` only ever increases, by CAS.
//! * A slot at index `i` is written only by `push` while `i >= bottom`, i.e. while no thief can
//!   claim it.
//! * A thief reads a buffer only between its announcement and its withdrawal (`stealers`); a
//!   retired buffer is freed only by the owner, after it stored the live buffer's pointer and
//!   then read `stealers` as zero (or in `drop`).

use std::cell::UnsafeCell;
use std::ptr::{self, NonNull};

use crossbeam_utils::CachePadded;

use crate::sync::{AtomicIsize, AtomicPtr, AtomicUsize, Ordering, fence};

/// Capacity of a new deque's buffer. Recursive fork/join keeps the deque about as deep as the
/// recursion, so this rarely grows.
const INITIAL_CAPACITY: usize = 64;

/// A buffer with more slots than this (32 KiB of pointers) is shrunk back to the initial
/// capacity once the deque is empty. Recursion keeps deques far shallower; only bursts (many
/// `spawn`s or promotions in a row) get there, and for those one allocation and one free per
/// burst is noise.
#[cfg(not(any(miri, loom)))]
pub(crate) const SHRINK_ABOVE: usize = 4096;
/// Small under Miri and loom, so that their small tests and models shrink too.
#[cfg(any(miri, loom))]
pub(crate) const SHRINK_ABOVE: usize = 2;

/// One ring buffer. Capacity is a power of two so `index & mask` wraps.
struct Buffer<T> {
    slots: Box<[AtomicPtr<T>]>,
    mask: usize,
    /// Under loom, a stand-in for the buffer's memory: the owner writes it where it would free
    /// the buffer and thieves read it where they read a slot, so a free that is not ordered
    /// after every thief's read is a causality violation loom reports. (The buffer itself is
    /// then leaked, not freed: the model must not crash on the bug it is looking for.)
    #[cfg(loom)]
    alive: loom::cell::UnsafeCell<bool>,
}

impl<T> Buffer<T> {
    fn new(capacity: usize) -> Box<Self> {
        debug_assert!(capacity.is_power_of_two());
        let slots = (0..capacity)
            .map(|_| AtomicPtr::new(ptr::null_mut()))
            .collect();
        Box::new(Buffer {
            slots,
            mask: capacity - 1,
            #[cfg(loom)]
            alive: loom::cell::UnsafeCell::new(true),
        })
    }

    /// Frees a buffer that no thread can reach any more.
    ///
    /// # Safety
    ///
    /// `buffer` came from `Box::into_raw`, is freed only once, and no thread reads it during or
    /// after this call (the caller's ordering argument).
    unsafe fn free(buffer: *mut Buffer<T>) {
        #[cfg(not(loom))]
        // SAFETY: the caller's contract.
        drop(unsafe { Box::from_raw(buffer) });
        #[cfg(loom)]
        // SAFETY: the buffer is leaked, so the memory stays valid; the write is the model's
        // record of the free.
        unsafe {
            (*buffer).alive.with_mut(|alive| *alive = false)
        };
    }

    fn capacity(&self) -> usize {
        self.mask + 1
    }

    fn slot(&self, index: isize) -> &AtomicPtr<T> {
        // Indices are never negative (they start at 0 and only grow, except for the transient
        // `bottom - 1` of a pop on an empty deque, which is never used to index).
        &self.slots[index as usize & self.mask]
    }
}

/// The outcome of one steal attempt.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Steal<T> {
    /// The deque was empty.
    Empty,
    /// We took this item.
    Success(T),
    /// Another thread (the owner or a thief) won the race for the top item; try again.
    Retry,
}

/// A Chase-Lev deque of non-null pointers to `T`.
///
/// The deque never dereferences the pointers; it only moves them between threads. `push` and
/// `pop` may only be called by the deque's single owner thread, which is why they are `unsafe`;
/// `steal` may be called by any thread.
pub(crate) struct Deque<T> {
    /// The thieves' end. Kept on its own cache line: thieves hammer it with CASes.
    top: CachePadded<AtomicIsize>,
    /// The owner's end. On its own line so the owner's pushes don't invalidate `top`.
    bottom: CachePadded<AtomicIsize>,
    /// The live buffer (owned).
    buffer: AtomicPtr<Buffer<T>>,
    /// How many thieves may be reading a buffer right now: incremented before a thief loads
    /// `buffer`, decremented after its last read of a slot. On its own line: only thieves write
    /// it, and only on steals that found an item.
    stealers: CachePadded<AtomicUsize>,
    /// Buffers the owner replaced that a thief may still be reading; freed by
    /// `reclaim_retired`. Owner only.
    retired: UnsafeCell<Vec<*mut Buffer<T>>>,
    /// The capacity a shrink goes back to.
    initial_capacity: usize,
    /// A buffer larger than this is shrunk once the deque is empty: `SHRINK_ABOVE`, or the
    /// initial capacity if that is larger.
    shrink_above: usize,
}

// SAFETY: the deque only stores pointers and hands each one to exactly one thread; the pointee's
// thread-safety is the caller's business (jobs are `Send` by construction). The retired list
// holds buffers the deque owns.
unsafe impl<T> Send for Deque<T> {}
// SAFETY: all shared state is atomic and the protocol below makes concurrent `steal`s (and one
// owner) safe; `retired` is touched only by the owner (from the `unsafe` owner-only methods).
unsafe impl<T> Sync for Deque<T> {}

impl<T> Deque<T> {
    pub(crate) fn new() -> Self {
        Self::with_capacity(INITIAL_CAPACITY)
    }

    pub(crate) fn with_capacity(capacity: usize) -> Self {
        let capacity = capacity.max(2).next_power_of_two();
        Deque {
            top: CachePadded::new(AtomicIsize::new(0)),
            bottom: CachePadded::new(AtomicIsize::new(0)),
            buffer: AtomicPtr::new(Box::into_raw(Buffer::new(capacity))),
            stealers: CachePadded::new(AtomicUsize::new(0)),
            retired: UnsafeCell::new(Vec::new()),
            initial_capacity: capacity,
            shrink_above: capacity.max(SHRINK_ABOVE),
        }
    }

    /// The live buffer's capacity. Owner only (or tests with no thief running).
    #[cfg(all(test, not(loom)))]
    pub(crate) fn capacity(&self) -> usize {
        // SAFETY: the live buffer is freed only by its owner, after replacing it.
        unsafe { (*self.buffer.load(Ordering::Relaxed)).capacity() }
    }

    /// How many replaced buffers are not yet freed. Owner only.
    #[cfg(all(test, not(loom)))]
    fn retired_buffers(&self) -> usize {
        // SAFETY: owner only (see `retired`).
        unsafe { (*self.retired.get()).len() }
    }

    /// A snapshot: true if the deque held no item at some moment during the call.
    pub(crate) fn is_empty(&self) -> bool {
        // Relaxed is enough for a heuristic (it only decides how many sleepers to wake).
        let bottom = self.bottom.load(Ordering::Relaxed);
        let top = self.top.load(Ordering::Relaxed);
        bottom <= top
    }

    /// A snapshot of the number of items (exact only while nobody else touches the deque).
    pub(crate) fn len(&self) -> usize {
        // Relaxed: a heuristic (how many jobs the owner offers idle peers), like `is_empty`.
        let bottom = self.bottom.load(Ordering::Relaxed);
        let top = self.top.load(Ordering::Relaxed);
        bottom.saturating_sub(top).max(0) as usize
    }

    /// Pushes `item` at the bottom.
    ///
    /// # Safety
    ///
    /// Only the deque's owner thread may call `push` and `pop`, and never concurrently.
    pub(crate) unsafe fn push(&self, item: NonNull<T>) {
        // Relaxed: only the owner writes `bottom`, so it reads its own latest value.
        let bottom = self.bottom.load(Ordering::Relaxed);
        // Acquire: pairs with the thieves' CAS on `top` so that once we see a slot as free
        // (claimed by a thief) the thief's read of that slot happened before we overwrite it.
        let top = self.top.load(Ordering::Acquire);
        // Relaxed: only the owner writes `buffer`.
        let mut buffer = self.buffer.load(Ordering::Relaxed);
        // SAFETY: `buffer` is the live buffer, owned by the deque and freed only in `drop`.
        if bottom - top >= unsafe { (*buffer).capacity() } as isize {
            // SAFETY: we are the owner (caller's contract).
            buffer = unsafe { self.grow(bottom, top, buffer) };
        }
        // SAFETY: as above. Relaxed: the release fence below publishes the slot.
        unsafe { (*buffer).slot(bottom) }.store(item.as_ptr(), Ordering::Relaxed);
        // Release: a thief that reads the new `bottom` (with acquire) must also see the slot and
        // everything the owner wrote to the job before pushing it.
        #[cfg(not(blitz_tsan))]
        {
            fence(Ordering::Release);
            self.bottom.store(bottom + 1, Ordering::Relaxed);
        }
        // The same edge, in the form ThreadSanitizer understands (see build.rs).
        #[cfg(blitz_tsan)]
        self.bottom.store(bottom + 1, Ordering::Release);
    }

    /// Replaces the full buffer with one of twice the size and returns it.
    ///
    /// # Safety
    ///
    /// Owner only; `old` is the live buffer and `top..bottom` its items.
    #[cold]
    unsafe fn grow(&self, bottom: isize, top: isize, old: *mut Buffer<T>) -> *mut Buffer<T> {
        // SAFETY: `old` is the live buffer; thieves may be reading it concurrently, so we only
        // take shared access (no `Box`, which would claim uniqueness).
        let old_ref = unsafe { &*old };
        let new = Buffer::new(old_ref.capacity() * 2);
        for index in top..bottom {
            // Relaxed: these slots were written by this thread.
            let item = old_ref.slot(index).load(Ordering::Relaxed);
            new.slot(index).store(item, Ordering::Relaxed);
        }
        let new = Box::into_raw(new);
        // SAFETY: owner; `old` was the live buffer until the store below.
        unsafe { self.replace_buffer(old, new) };
        new
    }

    /// Makes `new` the live buffer and retires `old` (ERRATA 2: thieves may still hold it),
    /// then frees the retired buffers if no thief can be reading one.
    ///
    /// # Safety
    ///
    /// Owner only; `old` is the live buffer, `new` a fresh one holding its items.
    unsafe fn replace_buffer(&self, old: *mut Buffer<T>, new: *mut Buffer<T>) {
        // Release: a thief that loads the new buffer (acquire) sees its slots.
        self.buffer.store(new, Ordering::Release);
        // SAFETY: owner only.
        unsafe { (*self.retired.get()).push(old) };
        // SAFETY: owner; the store above precedes it.
        unsafe { self.reclaim_retired() };
    }

    /// Frees the retired buffers if no thief can be reading one; otherwise leaves them for a
    /// later call (the next growth, or the next pop that finds the deque empty).
    ///
    /// Why a zero count is enough: this fence and the one a thief runs between its
    /// announcement and its load of `buffer` are both in the single total order of SeqCst
    /// fences. If ours comes first, the thief's load comes after our store of the live buffer
    /// (sequenced before our fence), so it cannot return a retired one. If the thief's comes
    /// first, our load below sees its announcement or a later value; a zero is then written by
    /// a withdrawal, whose release (heading a release sequence of read-modify-writes) our
    /// acquire synchronises with, so every read the thief made happens before the free.
    ///
    /// # Safety
    ///
    /// Owner only, after the store of the current live buffer.
    #[cold]
    unsafe fn reclaim_retired(&self) {
        // SAFETY: owner only.
        let retired = unsafe { &mut *self.retired.get() };
        if retired.is_empty() {
            return;
        }
        // SeqCst: pairs with the thieves' fence in `steal` (see above).
        fence(Ordering::SeqCst);
        // Acquire: see above; a non-zero count means a thief may be reading any of them.
        if self.stealers.load(Ordering::Acquire) != 0 {
            return;
        }
        for buffer in retired.drain(..) {
            // SAFETY: retired buffers came from `Box::into_raw`, are no longer the live
            // buffer, are freed once (drained), and no thief reads them (see above).
            unsafe { Buffer::free(buffer) };
        }
    }

    /// The owner found the deque empty: swaps an oversized buffer for a small one (there is
    /// nothing to copy) and frees what retired buffers it can.
    ///
    /// Safe against a thief that saw the deque non-empty before it emptied: the item it read
    /// the index of was taken, so `top` has moved past that index and the thief's CAS fails,
    /// whichever buffer it read the slot from.
    ///
    /// # Safety
    ///
    /// Owner only, with the deque empty; `buffer` is the live buffer.
    #[cold]
    #[inline(never)]
    unsafe fn shrink_when_empty(&self, buffer: *mut Buffer<T>) {
        // SAFETY: the live buffer.
        if unsafe { (*buffer).capacity() } > self.shrink_above {
            let new = Box::into_raw(Buffer::new(self.initial_capacity));
            // SAFETY: owner; the deque is empty, so the new buffer holds all (no) items.
            unsafe { self.replace_buffer(buffer, new) };
        } else {
            // SAFETY: owner, after the store of the live buffer.
            unsafe { self.reclaim_retired() };
        }
    }

    /// True if the owner has something to shrink or free (checked by a pop on an empty deque).
    ///
    /// # Safety
    ///
    /// Owner only; `buffer` is the live buffer.
    #[inline]
    unsafe fn has_memory_to_release(&self, buffer: *mut Buffer<T>) -> bool {
        // SAFETY: the live buffer; `retired` is owner-only.
        unsafe { (*buffer).capacity() > self.shrink_above || !(*self.retired.get()).is_empty() }
    }

    /// Pops the most recently pushed item, if any.
    ///
    /// # Safety
    ///
    /// Only the deque's owner thread may call `push` and `pop`, and never concurrently.
    pub(crate) unsafe fn pop(&self) -> Option<NonNull<T>> {
        // Relaxed: owner-only fields.
        let bottom = self.bottom.load(Ordering::Relaxed) - 1;
        let buffer = self.buffer.load(Ordering::Relaxed);
        self.bottom.store(bottom, Ordering::Relaxed);
        // SeqCst: the store to `bottom` must be globally ordered before our load of `top`, and a
        // thief's load of `top` before its load of `bottom` (it has the matching fence). Without
        // this store->load barrier both sides could miss each other and take the same item.
        fence(Ordering::SeqCst);
        let top = self.top.load(Ordering::Relaxed);
        if top > bottom {
            // Empty: restore `bottom`.
            self.bottom.store(bottom + 1, Ordering::Relaxed);
            // SAFETY: owner; `buffer` is live and the deque empty.
            if unsafe { self.has_memory_to_release(buffer) } {
                // SAFETY: as above.
                unsafe { self.shrink_when_empty(buffer) };
            }
            return None;
        }
        // SAFETY: `buffer` is live. Relaxed: we wrote this slot ourselves.
        let item = unsafe { (*buffer).slot(bottom) }.load(Ordering::Relaxed);
        if top == bottom {
            // The last item: race the thieves for it with the same CAS they use.
            // SeqCst (success): totally ordered with the thieves' CASes on `top`.
            // Relaxed (failure): we learn nothing we need from the winner.
            let won = self
                .top
                .compare_exchange(top, top + 1, Ordering::SeqCst, Ordering::Relaxed)
                .is_ok();
            self.bottom.store(bottom + 1, Ordering::Relaxed);
            return if won { NonNull::new(item) } else { None };
        }
        NonNull::new(item)
    }

    /// Tries to take the oldest item.
    pub(crate) fn steal(&self) -> Steal<NonNull<T>> {
        // Acquire: see the buffer contents of any owner push that a previous thief's CAS on
        // `top` depended on.
        let top = self.top.load(Ordering::Acquire);
        // SeqCst: pairs with the fence in `pop` (see there).
        fence(Ordering::SeqCst);
        // Acquire: pairs with the release fence in `push`, making the slot and the job behind
        // it visible.
        let bottom = self.bottom.load(Ordering::Acquire);
        if top >= bottom {
            return Steal::Empty;
        }
        // Announce: from here until the withdrawal below we may read a buffer, so the owner
        // must not free a retired one (see `reclaim_retired`). Relaxed: the fence orders it.
        self.stealers.fetch_add(1, Ordering::Relaxed);
        // SeqCst: pairs with the owner's fence in `reclaim_retired`: either the owner sees our
        // announcement, or our load below sees its latest buffer.
        fence(Ordering::SeqCst);
        // Acquire: pairs with the release store in `replace_buffer`, so a new buffer's copied
        // slots are visible. An older buffer is still valid memory (retired, not freed: we
        // announced ourselves before loading it).
        let buffer = self.buffer.load(Ordering::Acquire);
        // SAFETY: `buffer` is the live buffer or a retired one not freed while we are
        // announced. Relaxed: the slot's write happened-before the `bottom` we acquired. If the
        // owner has since reused the slot (or replaced the buffer), `top` has moved and the
        // CAS below fails.
        let item = unsafe { (*buffer).slot(top) }.load(Ordering::Relaxed);
        #[cfg(loom)]
        // SAFETY: the model's record of reading the buffer (see `Buffer::alive`).
        unsafe {
            (*buffer).alive.with(|alive| assert!(*alive))
        };
        // Withdraw: our last read of the buffer is done. Release: orders that read before the
        // owner's acquire load of a zero count, and so before its free.
        self.stealers.fetch_sub(1, Ordering::Release);
        // SeqCst (success): totally ordered with the owner's last-item CAS and other thieves.
        // Relaxed (failure): we retry from scratch.
        if self
            .top
            .compare_exchange(top, top + 1, Ordering::SeqCst, Ordering::Relaxed)
            .is_err()
        {
            return Steal::Retry;
        }
        match NonNull::new(item) {
            Some(item) => Steal::Success(item),
            // Unreachable by the invariants (a claimed slot always holds a pushed item); stay
            // total rather than hand out a null job.
            None => Steal::Retry,
        }
    }
}

impl<T> Drop for Deque<T> {
    fn drop(&mut self) {
        // `&mut self`: no thief or owner is active. Items are borrowed pointers, not owned, so
        // only the buffers (the live one and the retired ones) are freed.
        let live = self.buffer.load(Ordering::Relaxed);
        for buffer in self.retired.get_mut().drain(..).chain([live]) {
            // SAFETY: every buffer came from `Box::into_raw`, is live or retired (never both),
            // and is freed only here, once; no thread can read it any more.
            drop(unsafe { Box::from_raw(buffer) });
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests;

#[cfg(all(test, loom))]
mod loom_tests;
