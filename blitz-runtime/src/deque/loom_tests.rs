//! Loom models of the deque: the last item, growth and shrinking under a thief, two thieves.

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

/// The owner grows the buffer, then empties the deque (which shrinks it), while a thief
/// steals: every item is taken exactly once, and no buffer is freed while the thief may
/// read it (`Buffer::alive` turns such a free into a causality violation). Planting
/// either bug the protocol guards against makes this model fail: the thief announcing
/// itself after it loaded the buffer, or the owner freeing without checking `stealers`.
#[test]
fn grow_and_shrink_free_no_buffer_under_a_thief() {
    loom::model(|| {
        let deque = Arc::new(Deque::with_capacity(2));
        // SAFETY: owner thread (the model's main thread).
        unsafe {
            deque.push(leak(1));
            deque.push(leak(2));
        }
        let thief = {
            let deque = Arc::clone(&deque);
            thread::spawn(move || match deque.steal() {
                Steal::Success(p) => vec![value(p)],
                _ => vec![],
            })
        };
        let mut got = Vec::new();
        // SAFETY: owner thread.
        unsafe {
            // Grows from 2 to 4 slots (unless the thief already took one).
            deque.push(leak(3));
            // Empties the deque: the last pop finds it empty and shrinks it back to 2.
            while let Some(p) = deque.pop() {
                got.push(value(p));
            }
            deque.push(leak(4));
        }
        got.extend(thief.join().unwrap());
        // SAFETY: owner thread.
        while let Some(p) = unsafe { deque.pop() } {
            got.push(value(p));
        }
        got.sort_unstable();
        assert_eq!(got, vec![1, 2, 3, 4]);
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
