//! `par_bridge`: every item once, endless iterators stopped by searches, iteration that
//! overlaps the work, panics, and iterators whose `next` forks.

use std::sync::mpsc;
use std::time::Duration;

use super::*;

#[test]
#[cfg_attr(miri, ignore)] // No unsafe code of its own.
fn bridge_consumers_match_std() {
    let mut rng = Rng(0x0b71_d9e0_0b71_d9e0);
    let inputs: Vec<Vec<u64>> = lengths(&mut rng, 20_000)
        .into_iter()
        .map(|len| random_vec(&mut rng, len, 1000))
        .collect();
    on_pools(|| {
        for v in &inputs {
            let items = || v.iter().copied().par_bridge();
            assert_eq!(items().sum::<u64>(), v.iter().sum::<u64>());
            assert_eq!(items().count(), v.len());
            // Pieces of one item (a bridge counts far more items than it has: its pieces must
            // not be split once it has ended).
            assert_eq!(items().with_max_len(1).count(), v.len());
            assert_eq!(
                items().chain(v.par_iter().copied()).sum::<u64>(),
                2 * v.iter().sum::<u64>()
            );
            assert_eq!(items().min(), v.iter().copied().min());
            assert_eq!(items().max(), v.iter().copied().max());
            assert_eq!(
                items().filter(|x| x % 3 == 0).count(),
                v.iter().filter(|&&x| x % 3 == 0).count()
            );
            let mut collected: Vec<u64> = items().map(|x| x + 1).collect();
            collected.sort_unstable();
            let mut expected: Vec<u64> = v.iter().map(|x| x + 1).collect();
            expected.sort_unstable();
            assert_eq!(collected, expected);
            // Every item is taken exactly once.
            let seen: Vec<AtomicUsize> = v.iter().map(|_| AtomicUsize::new(0)).collect();
            (0..v.len()).par_bridge().for_each(|i| {
                seen[i].fetch_add(1, Ordering::Relaxed);
            });
            assert!(seen.iter().all(|n| n.load(Ordering::Relaxed) == 1));
            assert_eq!(items().any(|x| x == 999), v.contains(&999));
            assert_eq!(items().all(|x| x < 999), v.iter().all(|&x| x < 999));
            let hit = items().find_any(|x| x % 7 == 3);
            assert_eq!(hit.is_some(), v.iter().any(|x| x % 7 == 3));
            assert!(hit.is_none_or(|x| x % 7 == 3));
        }
    });
}

/// 1, 2, 3, ... without end.
fn naturals() -> impl Iterator<Item = u64> + Send {
    std::iter::successors(Some(1u64), |n| Some(n + 1))
}

#[test]
#[cfg_attr(miri, ignore)] // Thousands of items per search.
fn an_endless_iterator_ends_with_the_search() {
    on_pools(|| {
        let hit = naturals()
            .par_bridge()
            .find_any(|n| n % 1000 == 999)
            .unwrap();
        assert_eq!(hit % 1000, 999);
        assert!(naturals().par_bridge().any(|n| n > 5000));
        assert!(!naturals().par_bridge().all(|n| n < 5000));
        assert_eq!(naturals().par_bridge().take_any(300).count(), 300);
        let mut taken: Vec<u64> = naturals().par_bridge().take_any(50).collect();
        taken.sort_unstable();
        taken.dedup();
        assert_eq!(taken.len(), 50);
        let failed = naturals()
            .par_bridge()
            .try_for_each(|n| if n == 2000 { Err(n) } else { Ok(()) });
        assert_eq!(failed, Err(2000));
        let first_big = naturals()
            .par_bridge()
            .map(|n| n * n)
            .find_first(|&s| s > 10_000);
        assert!(first_big.is_some_and(|s| s > 10_000));
    });
}

/// The loop takes items while the iterator still makes them: a producer that sends its next
/// item only once the loop has finished the one before would wait forever on a bridge that
/// gathers the items first, or one that takes a second item before the first is done.
#[test]
#[cfg_attr(miri, ignore)] // Threads and channels with timeouts.
fn the_loop_takes_items_as_the_iterator_makes_them() {
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    const ITEMS: u32 = 20;
    let (item_tx, item_rx) = mpsc::channel::<u32>();
    let (done_tx, done_rx) = mpsc::channel::<u32>();
    let producer = std::thread::spawn(move || {
        for i in 0..ITEMS {
            item_tx.send(i).unwrap();
            // A guard against a hang, not a timing check: a loop that waits for the
            // channel to close before it starts would never answer.
            match done_rx.recv_timeout(Duration::from_secs(20)) {
                Ok(done) => assert_eq!(done, i),
                Err(_) => return i,
            }
        }
        ITEMS
    });
    let processed: u32 = pool.install(|| {
        item_rx
            .into_iter()
            .par_bridge()
            .map(|i| {
                done_tx.send(i).unwrap();
                1
            })
            .sum()
    });
    assert_eq!(
        producer.join().unwrap(),
        ITEMS,
        "the producer waited in vain"
    );
    assert_eq!(processed, ITEMS);
}

#[test]
#[cfg_attr(miri, ignore)] // Panics in many pieces.
fn a_panic_in_next_or_in_an_item_reaches_the_caller() {
    quiet_planted_panics();
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install(|| {
        let bad_next = naturals().inspect(|&n| {
            if n == 3000 {
                panic!("planted: next");
            }
        });
        let caught = panic::catch_unwind(AssertUnwindSafe(|| {
            bad_next.par_bridge().for_each(|_| {});
        }));
        let message = caught.unwrap_err();
        assert_eq!(message.downcast_ref::<&str>(), Some(&"planted: next"));
        let caught = panic::catch_unwind(AssertUnwindSafe(|| {
            (0..10_000u32).par_bridge().for_each(|i| {
                if i == 777 {
                    panic!("planted: item");
                }
            });
        }));
        let message = caught.unwrap_err();
        assert_eq!(message.downcast_ref::<&str>(), Some(&"planted: item"));
        // The pool still works.
        assert_eq!((0..1000u64).par_bridge().sum::<u64>(), 499_500);
    });
}

/// Items that fork: a worker that waits for a fork of its item may start another piece of the
/// same bridge meanwhile (see the module docs of `bridge`). Every item is still taken once.
#[test]
#[cfg_attr(miri, ignore)] // Thousands of nested loops.
fn items_that_fork_are_each_taken_once() {
    const ITEMS: usize = 2000;
    let weights: Vec<u64> = (0..256).collect();
    on_pools(|| {
        let seen: Vec<AtomicUsize> = (0..ITEMS).map(|_| AtomicUsize::new(0)).collect();
        let odd: usize = (0..ITEMS)
            .par_bridge()
            .map(|i| {
                seen[i].fetch_add(1, Ordering::Relaxed);
                weights.par_iter().filter(|&&w| w % 2 == 1).count()
            })
            .sum();
        assert_eq!(odd, ITEMS * 128);
        assert!(seen.iter().all(|n| n.load(Ordering::Relaxed) == 1));
    });
}
