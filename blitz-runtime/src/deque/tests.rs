//! Tests of the deque: owner and thief order, growth, wrap-around, shrinking, retired buffers, and a concurrent stress run.

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

/// A burst grows the buffer far past `SHRINK_ABOVE`; once the owner finds the deque empty,
/// the buffer is back to its initial size and every replaced buffer is freed (no thief is
/// running, so nothing holds one).
#[test]
fn buffer_shrinks_once_a_burst_is_over() {
    let n = 4 * SHRINK_ABOVE.max(16);
    let values = items(n);
    let deque = if cfg!(miri) {
        Deque::with_capacity(2)
    } else {
        Deque::new()
    };
    let initial = deque.capacity();
    for round in 0..3 {
        for v in &values {
            // SAFETY: owner thread.
            unsafe { deque.push(ptr(v)) };
        }
        assert!(deque.capacity() >= n, "round {round}");
        assert_eq!(deque.retired_buffers(), 0, "freed at growth: no thief");
        // Some stolen, the rest popped, then one pop that finds it empty.
        for v in values.iter().take(n / 4) {
            assert_eq!(deque.steal(), Steal::Success(ptr(v)));
        }
        for v in values.iter().skip(n / 4).rev() {
            // SAFETY: owner thread.
            assert_eq!(unsafe { deque.pop() }, Some(ptr(v)));
        }
        // SAFETY: owner thread.
        assert_eq!(unsafe { deque.pop() }, None);
        assert_eq!(deque.capacity(), initial, "round {round}: shrunk");
        assert_eq!(deque.retired_buffers(), 0, "round {round}: freed");
        // Still a working deque.
        // SAFETY: owner thread.
        unsafe { deque.push(ptr(&values[0])) };
        assert_eq!(deque.steal(), Steal::Success(ptr(&values[0])));
    }
}

/// A thief that is announced (between its load of the buffer and its last read of it)
/// keeps the owner from freeing retired buffers; the next empty pop after it withdrew frees
/// them.
#[test]
fn an_announced_thief_keeps_retired_buffers_alive() {
    // Enough to grow past `SHRINK_ABOVE` from 2 slots (several times, so that buffers
    // are retired), also with the small `SHRINK_ABOVE` of Miri.
    let values = items(4 * SHRINK_ABOVE + 1);
    let deque = Deque::with_capacity(2);
    // Stand in for a thief stopped between its announcement and its withdrawal.
    deque.stealers.fetch_add(1, Ordering::Relaxed);
    for v in &values {
        // SAFETY: owner thread.
        unsafe { deque.push(ptr(v)) };
    }
    // SAFETY: owner thread.
    while unsafe { deque.pop() }.is_some() {}
    assert_eq!(deque.capacity(), 2, "shrunk all the same");
    assert!(deque.retired_buffers() > 0, "nothing freed under a thief");
    deque.stealers.fetch_sub(1, Ordering::Relaxed);
    // SAFETY: owner thread.
    assert_eq!(unsafe { deque.pop() }, None);
    assert_eq!(deque.retired_buffers(), 0, "freed once the thief withdrew");
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
