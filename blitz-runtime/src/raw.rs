//! Raw building blocks of the code that writes a buffer from several workers at once: in-place
//! `collect`, `unzip`, and the sorts.

use std::mem;
use std::ptr;

/// A raw pointer that may cross to another worker. It stands for exclusive access to disjoint
/// parts of one buffer of `T: Send`, each part handed to one worker at a time (each use says
/// why its parts are disjoint).
pub(crate) struct SendPtr<T>(pub(crate) *mut T);

// Manual impls: a derive would require `T: Copy`.
impl<T> Clone for SendPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for SendPtr<T> {}

// SAFETY: the pointer gives exclusive access to elements of `T: Send`, like a `&mut [T]`, which
// is `Send` for `T: Send`.
unsafe impl<T: Send> Send for SendPtr<T> {}
// SAFETY: as above: a shared `SendPtr` gives no access a `&mut [T]` would not.
unsafe impl<T: Send> Sync for SendPtr<T> {}

impl<T> SendPtr<T> {
    /// The pointer. (A method, not a field access: a closure that calls it captures the whole
    /// `SendPtr`, which is `Send`, not the raw pointer inside, which is not.)
    #[inline(always)]
    pub(crate) fn get(self) -> *mut T {
        self.0
    }

    /// The pointer `count` elements further on.
    ///
    /// # Safety
    ///
    /// As for [`pointer::add`]: the result stays within (or one past) the same allocation.
    ///
    /// [`pointer::add`]: https://doc.rust-lang.org/std/primitive.pointer.html#method.add
    #[inline(always)]
    pub(crate) unsafe fn add(self, count: usize) -> Self {
        // SAFETY: the caller keeps the result in bounds.
        SendPtr(unsafe { self.0.add(count) })
    }
}

/// A run of `len` initialised items written from `start`, owned by this token: dropped with
/// it unless joined to the next run ([`append`](Self::append)) or handed over
/// ([`release`](Self::release)). So items written by a piece of a parallel run are dropped if
/// anything panics before the whole buffer is complete.
pub(crate) struct WrittenRun<T> {
    start: *mut T,
    len: usize,
}

// SAFETY: the token owns its items like a `Vec<T>` does, and only moves to the joining worker.
unsafe impl<T: Send> Send for WrittenRun<T> {}

impl<T> WrittenRun<T> {
    /// An empty run at `start`.
    pub(crate) fn new(start: *mut T) -> Self {
        WrittenRun { start, len: 0 }
    }

    /// How many items the run holds.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Writes `item` right after the run and counts it in.
    ///
    /// # Safety
    ///
    /// The slot after the run is inside the buffer, free, and written by nobody else.
    #[inline(always)]
    pub(crate) unsafe fn push(&mut self, item: T) {
        // SAFETY: the caller's promise.
        unsafe { self.start.add(self.len).write(item) };
        self.len += 1;
    }

    /// One run for the items of `self` and of `next`, if `next` starts where `self` ends.
    ///
    /// Otherwise `self`'s piece stopped short: a producer yielded fewer items than it
    /// promised, or a `panic_fuse` stopped the piece because another piece panicked. Then
    /// `next`'s items are dropped and `self` is the run: the caller, which compares the whole
    /// run with the length once every piece is back, reports the gap, unless the other
    /// piece's panic reaches it first (a panic here would have taken that panic's place).
    pub(crate) fn append(self, next: WrittenRun<T>) -> WrittenRun<T> {
        // `wrapping_add`: only compared, never dereferenced.
        if self.start.wrapping_add(self.len) != next.start {
            drop(next);
            return self;
        }
        let joined = WrittenRun {
            start: self.start,
            len: self.len + next.len,
        };
        mem::forget(self);
        mem::forget(next);
        joined
    }

    /// Gives up ownership of the items (the caller's buffer now owns them); returns how many.
    pub(crate) fn release(self) -> usize {
        let len = self.len;
        mem::forget(self);
        len
    }
}

impl<T> Drop for WrittenRun<T> {
    fn drop(&mut self) {
        // SAFETY: the token owns `len` initialised items at `start`, which nothing else drops.
        unsafe { ptr::drop_in_place(ptr::slice_from_raw_parts_mut(self.start, self.len)) };
    }
}
