//! The injector: how work from threads outside the pool gets in (ERRATA 3).
//!
//! A lock-free Treiber stack of boxed nodes with two operations: `push` (any thread) and
//! `take_all` (a worker takes every queued item at once, oldest first). The worker runs the
//! oldest item and pushes the rest onto its own deque, where its peers can steal them.
//!
//! # Why it is free of ABA
//!
//! The ABA hazard of a Treiber stack is in *pop*: a popper reads `head = A` and `A.next = B`,
//! is preempted while `A` is popped, freed and a new node reuses its address, then its
//! `CAS(head, A, B)` succeeds and installs a stale `B`. This stack has no single-item pop:
//! `take_all` is one `swap(head, null)`, which does not compare against a value read earlier,
//! so there is nothing to fool. `push` does compare, but it only links the new node to the head
//! it observed, and if the CAS succeeds that head *is* the current head (whatever happened to
//! its address in between), so the link is correct. Nodes are read only after `take_all` has
//! made them private to the taker.

use std::ptr;

use crate::sync::{AtomicPtr, Ordering};

struct Node<T> {
    item: T,
    /// The node pushed before this one. Written before the node is published, read only by
    /// the thread that took the whole list.
    next: *mut Node<T>,
}

/// A multi-producer stack drained whole by consumers.
pub(crate) struct Injector<T> {
    head: AtomicPtr<Node<T>>,
}

// SAFETY: items move between threads (so `T: Send`), and every shared access goes through the
// atomic head.
unsafe impl<T: Send> Send for Injector<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Injector<T> {}

impl<T> Injector<T> {
    pub(crate) fn new() -> Self {
        Injector {
            head: AtomicPtr::new(ptr::null_mut()),
        }
    }

    /// Adds an item.
    pub(crate) fn push(&self, item: T) {
        let node = Box::into_raw(Box::new(Node {
            item,
            next: ptr::null_mut(),
        }));
        // Relaxed: just a first guess at the head; the CAS validates it.
        let mut head = self.head.load(Ordering::Relaxed);
        loop {
            // SAFETY: `node` is ours until the CAS below publishes it.
            unsafe { (*node).next = head };
            // Release (success): publishes the node's contents (and the job behind the item) to
            // the acquire swap in `take_all`. Relaxed (failure): we only retry with the new head.
            match self
                .head
                .compare_exchange_weak(head, node, Ordering::Release, Ordering::Relaxed)
            {
                Ok(_) => return,
                Err(actual) => head = actual,
            }
        }
    }

    /// True if nothing is queued right now.
    ///
    /// Acquire is enough for callers that precede this with a SeqCst fence (the sleep
    /// protocol's double check); elsewhere the answer is only a hint.
    pub(crate) fn is_empty(&self) -> bool {
        self.head.load(Ordering::Acquire).is_null()
    }

    /// Takes every queued item, oldest first.
    pub(crate) fn take_all(&self) -> Vec<T> {
        if self.is_empty() {
            return Vec::new();
        }
        // Acquire: pairs with the release CAS of every push in the list (each push's CAS reads
        // the previous head, so they form one release sequence ending at our swap).
        let mut node = self.head.swap(ptr::null_mut(), Ordering::Acquire);
        let mut items = Vec::new();
        while !node.is_null() {
            // SAFETY: the swap made the whole list ours; each node came from `Box::into_raw`.
            let boxed = unsafe { Box::from_raw(node) };
            node = boxed.next;
            items.push(boxed.item);
        }
        // The stack is newest-first; hand out oldest-first.
        items.reverse();
        items
    }
}

impl<T> Drop for Injector<T> {
    fn drop(&mut self) {
        drop(self.take_all());
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn fifo_batches() {
        let injector = Injector::new();
        assert!(injector.is_empty());
        assert!(injector.take_all().is_empty());
        for i in 0..5 {
            injector.push(i);
        }
        assert!(!injector.is_empty());
        assert_eq!(injector.take_all(), vec![0, 1, 2, 3, 4]);
        assert!(injector.is_empty());
    }

    #[test]
    fn drop_frees_queued_items() {
        let item = Arc::new(());
        let injector = Injector::new();
        injector.push(Arc::clone(&item));
        injector.push(Arc::clone(&item));
        drop(injector);
        assert_eq!(Arc::strong_count(&item), 1);
    }

    #[test]
    fn many_producers_many_takers_lose_nothing() {
        let per_thread = if cfg!(miri) { 20 } else { 20_000 };
        let injector = Arc::new(Injector::new());
        let producers: Vec<_> = (0..4)
            .map(|t| {
                let injector = Arc::clone(&injector);
                std::thread::spawn(move || {
                    for i in 0..per_thread {
                        injector.push(t * per_thread + i);
                    }
                })
            })
            .collect();
        let takers: Vec<_> = (0..2)
            .map(|_| {
                let injector = Arc::clone(&injector);
                std::thread::spawn(move || {
                    let mut got = Vec::new();
                    for _ in 0..1000 {
                        got.extend(injector.take_all());
                        std::thread::yield_now();
                    }
                    got
                })
            })
            .collect();
        for p in producers {
            p.join().unwrap();
        }
        let mut all: Vec<usize> = takers.into_iter().flat_map(|t| t.join().unwrap()).collect();
        all.extend(injector.take_all());
        all.sort_unstable();
        assert_eq!(all, (0..4 * per_thread).collect::<Vec<_>>());
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::Arc;
    use loom::thread;

    /// Two producers and a concurrent taker: every item is taken exactly once, each producer's
    /// items in its push order.
    #[test]
    fn concurrent_push_and_take_all() {
        loom::model(|| {
            let injector = Arc::new(Injector::new());
            let producers: Vec<_> = [[1, 2], [3, 4]]
                .into_iter()
                .map(|items| {
                    let injector = Arc::clone(&injector);
                    thread::spawn(move || {
                        for item in items {
                            injector.push(item);
                        }
                    })
                })
                .collect();
            let first = injector.take_all();
            for p in producers {
                p.join().unwrap();
            }
            let mut all = first.clone();
            all.extend(injector.take_all());
            let pos = |x: i32| all.iter().position(|&y| y == x).unwrap();
            assert!(pos(1) < pos(2) && pos(3) < pos(4), "order broken: {all:?}");
            all.sort_unstable();
            assert_eq!(all, vec![1, 2, 3, 4]);
        });
    }
}
