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
//! * **No use-after-free on growth** (ERRATA 2). When the owner grows the buffer, the old buffer
//!   is not freed: the new buffer keeps it alive through `Buffer::previous`, and the whole chain
//!   is freed when the deque is dropped. A thief that loaded the old buffer pointer can therefore
//!   always finish its read; if it read a stale slot its CAS on `top` fails. Growth doubles the
//!   capacity, so the retired buffers together are smaller than the live one.
//!
//! # Invariants
//!
//! * `top <= bottom + 1` at all times, and `top <= bottom` whenever no `pop` is in progress; the
//!   items are the slots `top .. bottom` (indices taken modulo the capacity).
//! * Only the owner writes `bottom` and `buffer`; `top` only ever increases, by CAS.
//! * A slot at index `i` is written only by `push` while `i >= bottom`, i.e. while no thief can
//!   claim it.

use std::ptr::{self, NonNull};

use crossbeam_utils::CachePadded;

use crate::sync::{AtomicIsize, AtomicPtr, Ordering, fence};

/// Capacity of a new deque's buffer. Recursive fork/join keeps the deque about as deep as the
/// recursion, so this rarely grows.
const INITIAL_CAPACITY: usize = 64;

/// One ring buffer. Capacity is a power of two so `index & mask` wraps.
struct Buffer<T> {
    slots: Box<[AtomicPtr<T>]>,
    mask: usize,
    /// The buffer this one replaced, kept alive for thieves that may still be reading it.
    /// A raw pointer, not a `Box`: turning it back into a `Box` would assert unique access
    /// while thieves may still be reading it. Freed (with the whole chain) in `Deque::drop`.
    previous: *mut Buffer<T>,
}

impl<T> Buffer<T> {
    fn new(capacity: usize, previous: *mut Buffer<T>) -> Box<Self> {
        debug_assert!(capacity.is_power_of_two());
        let slots = (0..capacity)
            .map(|_| AtomicPtr::new(ptr::null_mut()))
            .collect();
        Box::new(Buffer {
            slots,
            mask: capacity - 1,
            previous,
        })
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
    /// The live buffer (owned; retired buffers hang off its `previous` chain).
    buffer: AtomicPtr<Buffer<T>>,
}

// SAFETY: the deque only stores pointers and hands each one to exactly one thread; the pointee's
// thread-safety is the caller's business (jobs are `Send` by construction).
unsafe impl<T> Send for Deque<T> {}
// SAFETY: all shared state is atomic and the protocol below makes concurrent `steal`s (and one
// owner) safe.
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
            buffer: AtomicPtr::new(Box::into_raw(Buffer::new(capacity, ptr::null_mut()))),
        }
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
        // Retire, don't free: thieves may still hold `old` (ERRATA 2).
        let new = Buffer::new(old_ref.capacity() * 2, old);
        for index in top..bottom {
            // Relaxed: these slots were written by this thread.
            let item = old_ref.slot(index).load(Ordering::Relaxed);
            new.slot(index).store(item, Ordering::Relaxed);
        }
        let new = Box::into_raw(new);
        // Release: a thief that loads the new buffer (acquire) sees its copied slots.
        self.buffer.store(new, Ordering::Release);
        new
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
        // Acquire: pairs with the release store in `grow`, so a new buffer's copied slots are
        // visible. An old buffer is still valid memory (retired, not freed).
        let buffer = self.buffer.load(Ordering::Acquire);
        // SAFETY: `buffer` is the live buffer or a retired one; both live until `drop`.
        // Relaxed: the slot's write happened-before the `bottom` we acquired. If the owner has
        // since reused the slot, `top` has moved and the CAS below fails.
        let item = unsafe { (*buffer).slot(top) }.load(Ordering::Relaxed);
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
        // only the buffers (the live one and the retired chain behind it) are freed.
        let mut buffer = self.buffer.load(Ordering::Relaxed);
        while !buffer.is_null() {
            // SAFETY: every buffer in the chain came from `Box::into_raw` and is freed only
            // here, once.
            let boxed = unsafe { Box::from_raw(buffer) };
            buffer = boxed.previous;
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    // Boxed on purpose: each item needs its own stable address to push as a pointer.
    #[allow(clippy::vec_box)]
    fn items(n: usize) -> Vec<Box<usize>> {
        (0..n).map(Box::new).collect()
    }

    fn ptr(item: &usize) -> NonNull<usize> {
        NonNull::from(item)
    }

    #[test]
    fn owner_is_lifo_thief_is_fifo() {
        let values = items(3);
        let deque = Deque::new();
        for v in &values {
            // SAFETY: this thread is the only owner.
            unsafe { deque.push(ptr(v)) };
        }
        assert_eq!(deque.steal(), Steal::Success(ptr(&values[0])));
        // SAFETY: owner thread.
        assert_eq!(unsafe { deque.pop() }, Some(ptr(&values[2])));
        // SAFETY: owner thread.
        assert_eq!(unsafe { deque.pop() }, Some(ptr(&values[1])));
        // SAFETY: owner thread.
        assert_eq!(unsafe { deque.pop() }, None);
        assert_eq!(deque.steal(), Steal::Empty);
        assert!(deque.is_empty());
    }

    #[test]
    fn grows_and_keeps_order() {
        let n = if cfg!(miri) { 40 } else { 1000 };
        let values = items(n);
        let deque = Deque::with_capacity(2);
        for v in &values {
            // SAFETY: owner thread.
            unsafe { deque.push(ptr(v)) };
        }
        for v in values.iter().take(n / 2) {
            assert_eq!(deque.steal(), Steal::Success(ptr(v)));
        }
        for v in values.iter().skip(n / 2).rev() {
            // SAFETY: owner thread.
            assert_eq!(unsafe { deque.pop() }, Some(ptr(v)));
        }
        // SAFETY: owner thread.
        assert_eq!(unsafe { deque.pop() }, None);
    }

    #[test]
    fn wraps_around_without_growing() {
        let values = items(3);
        let deque = Deque::with_capacity(4);
        for round in 0..10 {
            for v in &values {
                // SAFETY: owner thread.
                unsafe { deque.push(ptr(v)) };
            }
            assert_eq!(
                deque.steal(),
                Steal::Success(ptr(&values[0])),
                "round {round}"
            );
            // SAFETY: owner thread.
            assert_eq!(unsafe { deque.pop() }, Some(ptr(&values[2])));
            assert_eq!(deque.steal(), Steal::Success(ptr(&values[1])));
        }
        // SAFETY: the buffer never had to grow: 3 items fit in 4 slots.
        assert_eq!(
            unsafe { (*deque.buffer.load(Ordering::Relaxed)).capacity() },
            4
        );
    }

    /// The owner pushes and pops while thieves steal; every item is taken exactly once, including
    /// across growth (capacity 2 forces many) and last-item races.
    #[test]
    fn concurrent_owner_and_thieves_take_each_item_once() {
        let n: usize = if cfg!(miri) { 60 } else { 100_000 };
        let values: Arc<Vec<Box<usize>>> = Arc::new(items(n));
        let deque = Arc::new(Deque::with_capacity(2));
        let done = Arc::new(AtomicBool::new(false));
        let thieves: Vec<_> = (0..3)
            .map(|_| {
                let deque = Arc::clone(&deque);
                let done = Arc::clone(&done);
                std::thread::spawn(move || {
                    let mut taken = Vec::new();
                    loop {
                        match deque.steal() {
                            // SAFETY: pointers into `values`, alive for the whole test.
                            Steal::Success(p) => taken.push(unsafe { *p.as_ref() }),
                            Steal::Retry => {}
                            Steal::Empty if done.load(std::sync::atomic::Ordering::Acquire) => {
                                break;
                            }
                            Steal::Empty => std::thread::yield_now(),
                        }
                    }
                    taken
                })
            })
            .collect();
        let mut owner_taken = Vec::new();
        for (i, v) in values.iter().enumerate() {
            // SAFETY: this thread is the only owner.
            unsafe { deque.push(ptr(v)) };
            if i % 3 == 0 {
                // SAFETY: owner thread; pointee alive (see above).
                if let Some(p) = unsafe { deque.pop() } {
                    owner_taken.push(unsafe { *p.as_ref() });
                }
            }
        }
        // SAFETY: owner thread; pointees alive.
        while let Some(p) = unsafe { deque.pop() } {
            owner_taken.push(unsafe { *p.as_ref() });
        }
        done.store(true, std::sync::atomic::Ordering::Release);
        let mut seen = HashSet::new();
        for value in owner_taken
            .into_iter()
            .chain(thieves.into_iter().flat_map(|t| t.join().unwrap()))
        {
            assert!(seen.insert(value), "item {value} taken twice");
        }
        assert_eq!(seen.len(), n, "items lost");
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::Arc;
    use loom::thread;

    fn leak(value: usize) -> NonNull<usize> {
        NonNull::from(Box::leak(Box::new(value)))
    }

    fn value(p: NonNull<usize>) -> usize {
        // SAFETY: the pointers are leaked boxes, alive for the whole model run.
        unsafe { *p.as_ref() }
    }

    /// One item, the owner pops while a thief steals: exactly one of them gets it.
    #[test]
    fn last_item_goes_to_exactly_one() {
        loom::model(|| {
            let deque = Arc::new(Deque::with_capacity(2));
            // SAFETY: the model's main thread is the owner.
            unsafe { deque.push(leak(7)) };
            let thief = {
                let deque = Arc::clone(&deque);
                thread::spawn(move || match deque.steal() {
                    Steal::Success(p) => Some(value(p)),
                    _ => None,
                })
            };
            // SAFETY: owner thread.
            let popped = unsafe { deque.pop() }.map(value);
            let stolen = thief.join().unwrap();
            assert!(
                popped.is_some() ^ stolen.is_some(),
                "popped {popped:?}, stolen {stolen:?}"
            );
        });
    }

    /// Push two items into a capacity-2 buffer and a third to force growth while a thief steals
    /// (possibly from the retired buffer); then drain. Every item is taken exactly once.
    #[test]
    fn push_grow_pop_steal() {
        loom::model(|| {
            let deque = Arc::new(Deque::with_capacity(2));
            // SAFETY: owner thread (the model's main thread).
            unsafe {
                deque.push(leak(1));
                deque.push(leak(2));
            }
            let thief = {
                let deque = Arc::clone(&deque);
                thread::spawn(move || {
                    let mut got = Vec::new();
                    for _ in 0..2 {
                        if let Steal::Success(p) = deque.steal() {
                            got.push(value(p));
                        }
                    }
                    got
                })
            };
            let mut got = Vec::new();
            // SAFETY: owner thread.
            unsafe {
                deque.push(leak(3));
                while let Some(p) = deque.pop() {
                    got.push(value(p));
                }
            }
            got.extend(thief.join().unwrap());
            got.sort_unstable();
            assert_eq!(got, vec![1, 2, 3]);
        });
    }

    /// Two thieves and the owner race over two items.
    #[test]
    fn two_thieves_and_owner() {
        loom::model(|| {
            let deque = Arc::new(Deque::with_capacity(4));
            // SAFETY: owner thread.
            unsafe {
                deque.push(leak(1));
                deque.push(leak(2));
            }
            let thieves: Vec<_> = (0..2)
                .map(|_| {
                    let deque = Arc::clone(&deque);
                    thread::spawn(move || match deque.steal() {
                        Steal::Success(p) => vec![value(p)],
                        _ => vec![],
                    })
                })
                .collect();
            // SAFETY: owner thread.
            let mut got: Vec<usize> = unsafe { deque.pop() }.map(value).into_iter().collect();
            for t in thieves {
                got.extend(t.join().unwrap());
            }
            // SAFETY: owner thread.
            while let Some(p) = unsafe { deque.pop() } {
                got.push(value(p));
            }
            got.sort_unstable();
            assert_eq!(got, vec![1, 2]);
        });
    }
}
