//! Every consumer and adaptor against `std`'s sequential iterators, on random inputs of random
//! lengths (0 and 1 included), outside a pool and on pools of 1, 2 and 4 workers, with the
//! engine made to share even small inputs (`ALWAYS_SHARE`), so the parallel paths run.

use std::num::Wrapping;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::Either;
use super::prelude::*;
use crate::ThreadPoolBuilder;
use crate::loops::engine::ALWAYS_SHARE;
use crate::test_panics::quiet_planted_panics;
use crate::test_rng::Rng;

mod adaptors;
mod bridge;
mod rayon_paths;
mod sources;

/// Random lengths: the edge cases, then random ones up to `max`.
fn lengths(rng: &mut Rng, max: usize) -> Vec<usize> {
    if cfg!(miri) {
        // Miri interprets every item: a few lengths, each still split by `ALWAYS_SHARE`.
        return vec![0, 1, 3, 17];
    }
    // The sanitizer steps of `scripts/verify.sh` cap the random lengths: what they check (races,
    // out-of-bounds writes) shows on short inputs as well, and the long ones cost them minutes.
    let max = std::env::var("BLITZ_TEST_MAX_LEN")
        .ok()
        .and_then(|cap| cap.parse::<usize>().ok())
        .map_or(max, |cap| max.min(cap.max(1)));
    let mut lengths = vec![0, 1, 2, 3, 7, 64, 1000];
    lengths.extend((0..12).map(|_| rng.below(max)));
    lengths
}

/// Runs `check` outside any pool (on the global pool) and inside pools of 1, 2 and 4 workers.
/// Under Miri only on a pool of 2: the global pool's threads outlive the test, which Miri
/// reports as a leak.
fn on_pools(check: impl Fn() + Sync) {
    ALWAYS_SHARE.store(true, Ordering::Relaxed);
    if !cfg!(miri) {
        check();
    }
    let pools: &[usize] = if cfg!(miri) { &[2] } else { &[1, 2, 4] };
    for &threads in pools {
        let pool = ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(&check);
    }
}

fn random_vec(rng: &mut Rng, len: usize, range: usize) -> Vec<u64> {
    (0..len).map(|_| rng.below(range) as u64).collect()
}

#[test]
fn folds_match_std() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let inputs: Vec<Vec<u64>> = lengths(&mut rng, 50_000)
        .into_iter()
        .map(|len| random_vec(&mut rng, len, 1000))
        .collect();
    on_pools(|| {
        for v in &inputs {
            let s = v.iter();
            assert_eq!(v.par_iter().sum::<u64>(), s.clone().sum::<u64>());
            let factor = |&x: &u64| Wrapping(x % 3 + 1);
            assert_eq!(
                v.par_iter().map(factor).product::<Wrapping<u64>>(),
                s.clone().map(factor).product::<Wrapping<u64>>()
            );
            assert_eq!(v.par_iter().count(), v.len());
            assert_eq!(
                v.par_iter().filter(|&&x| x % 3 == 0).count(),
                s.clone().filter(|&&x| x % 3 == 0).count()
            );
            assert_eq!(v.par_iter().min(), s.clone().min());
            assert_eq!(v.par_iter().max(), s.clone().max());
            // Ties: std's `min_by_key` keeps the first, `max_by_key` the last; compare the
            // addresses to check which of equal items came back.
            let key = |x: &&u64| **x / 10;
            assert_eq!(
                v.par_iter().min_by_key(key).map(|r| r as *const u64),
                s.clone().min_by_key(key).map(|r| r as *const u64)
            );
            assert_eq!(
                v.par_iter().max_by_key(key).map(|r| r as *const u64),
                s.clone().max_by_key(key).map(|r| r as *const u64)
            );
            let by = |a: &&u64, b: &&u64| (**a / 7).cmp(&(**b / 7));
            assert_eq!(
                v.par_iter().min_by(by).map(|r| r as *const u64),
                s.clone().min_by(by).map(|r| r as *const u64)
            );
            assert_eq!(
                v.par_iter().max_by(by).map(|r| r as *const u64),
                s.clone().max_by(by).map(|r| r as *const u64)
            );
            // A non-commutative reduction: order is kept.
            let concat = |a: String, b: String| a + &b;
            let text = v
                .par_iter()
                .map(|x| (b'a' + (x % 26) as u8) as char)
                .map(String::from)
                .reduce(String::new, concat);
            let expected: String = s.clone().map(|x| (b'a' + (x % 26) as u8) as char).collect();
            assert_eq!(text, expected);
            assert_eq!(
                v.par_iter().copied().reduce_with(|a, b| a.max(b)),
                s.clone().copied().max()
            );
            let folded: u64 = v.par_iter().fold(|| 0u64, |acc, &x| acc + x).sum();
            assert_eq!(folded, s.clone().sum::<u64>());
            let folded_with: usize = v
                .par_iter()
                .fold_with(0usize, |acc, _| acc + 1)
                .reduce(|| 0, |a, b| a + b);
            assert_eq!(folded_with, v.len());
            // A seed that is `Send` but not `Sync` (as rayon allows): each piece folds into
            // its own clone.
            let seed = std::cell::Cell::new(0u64);
            let sums: Vec<u64> = v
                .par_iter()
                .fold_with(seed.clone(), |acc, &x| {
                    acc.set(acc.get() + x);
                    acc
                })
                .map(std::cell::Cell::into_inner)
                .collect();
            assert_eq!(sums.iter().sum::<u64>(), s.clone().sum::<u64>());
            let tried: Result<u64, ()> = v
                .par_iter()
                .try_fold_with(seed.clone(), |acc, &x| {
                    acc.set(acc.get() + x);
                    Ok(acc)
                })
                .map(|acc| acc.map(std::cell::Cell::into_inner))
                .try_reduce(|| 0, |a, b| Ok(a + b));
            assert_eq!(tried, Ok(s.clone().sum::<u64>()));
            let chunk_sums: Vec<u64> = v
                .par_iter()
                .fold_chunks_with(7, seed.clone(), |acc, &x| {
                    acc.set(acc.get() + x);
                    acc
                })
                .map(std::cell::Cell::into_inner)
                .collect();
            let expected: Vec<u64> = v.chunks(7).map(|c| c.iter().sum()).collect();
            assert_eq!(chunk_sums, expected);
        }
    });
}

#[test]
fn searches_match_std() {
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    let inputs: Vec<Vec<u64>> = lengths(&mut rng, 50_000)
        .into_iter()
        .map(|len| random_vec(&mut rng, len, 5000))
        .collect();
    on_pools(|| {
        for v in &inputs {
            for target in [0u64, 17, 4999, 6000] {
                let hit = |x: &u64| *x == target;
                let s = v.iter();
                assert_eq!(v.par_iter().any(hit), s.clone().any(hit));
                assert_eq!(v.par_iter().all(|x| !hit(x)), s.clone().all(|x| !hit(x)));
                assert_eq!(v.par_iter().position_first(hit), s.clone().position(hit));
                assert_eq!(v.par_iter().position_last(hit), s.clone().rposition(hit));
                assert_eq!(
                    v.par_iter().by_exponential_blocks().position_first(hit),
                    s.clone().position(hit)
                );
                assert_eq!(
                    v.par_iter().by_uniform_blocks(100).find_last(|x| hit(x)),
                    s.clone().rev().find(|x| hit(x))
                );
                match v.par_iter().position_any(hit) {
                    Some(i) => assert!(hit(&v[i])),
                    None => assert!(!s.clone().any(hit)),
                }
                // find_first/last below a filter: the order of pieces is by source index.
                let odd = |x: &&u64| **x % 2 == 1;
                let near = |x: &&u64| x.abs_diff(target) < 50;
                assert_eq!(
                    v.par_iter()
                        .filter(odd)
                        .find_first(near)
                        .map(|r| r as *const u64),
                    s.clone().filter(odd).find(near).map(|r| r as *const u64)
                );
                assert_eq!(
                    v.par_iter()
                        .filter(odd)
                        .find_last(near)
                        .map(|r| r as *const u64),
                    s.clone().filter(odd).rfind(near).map(|r| r as *const u64)
                );
                match v.par_iter().find_any(near) {
                    Some(x) => assert!(near(&x)),
                    None => assert!(!s.clone().any(|x| near(&x))),
                }
                // rayon's deprecated names, for ported code: the `_any` searches.
                #[allow(deprecated)]
                let (found, at) = (v.par_iter().find(near), v.par_iter().position(hit));
                assert_eq!(found.is_some(), s.clone().any(|x| near(&x)));
                assert!(found.is_none_or(|x| near(&x)));
                assert_eq!(at.is_some(), s.clone().any(hit));
                assert!(at.is_none_or(|i| hit(&v[i])));
            }
        }
    });
}

#[test]
fn zip_eq_panics_on_different_lengths() {
    let result = panic::catch_unwind(|| [1, 2].par_iter().zip_eq(&[1]).count());
    let message = panic_message(result.unwrap_err());
    assert!(message.contains("zip_eq"), "{message}");
}

#[test]
fn fallible_consumers_stop_at_the_first_failure() {
    on_pools(|| {
        let n = if cfg!(miri) { 200u32 } else { 100_000 };
        let seen = AtomicUsize::new(0);
        let result = (0..n).into_par_iter().try_for_each(|x| {
            seen.fetch_add(1, Ordering::Relaxed);
            if x == 10 { Err(x) } else { Ok(()) }
        });
        assert_eq!(result, Err(10));
        assert!((0..n).into_par_iter().try_for_each(|_| Some(())).is_some());
        let sum = (1..=n)
            .into_par_iter()
            .map(|x| Ok::<u64, ()>(u64::from(x)))
            .try_reduce(|| 0, |a, b| Ok(a + b));
        assert_eq!(sum, Ok(u64::from(n) * u64::from(n + 1) / 2));
        let overflow = (0..n)
            .into_par_iter()
            .map(|x| Some(x as u8))
            .try_reduce(|| 0u8, |a, b| a.checked_add(b));
        assert_eq!(overflow, None);
        let collected: Result<Vec<u32>, u32> = (0..n)
            .into_par_iter()
            .map(|x| if x % 97 == 96 { Err(x) } else { Ok(x) })
            .collect();
        assert!(matches!(collected, Err(x) if x % 97 == 96));
        let all: Option<Vec<u32>> = (0..n).into_par_iter().map(Some).collect();
        assert_eq!(all.map(|v| v.len()), Some(n as usize));
    });
}

#[test]
fn fallible_folds_and_per_piece_values_match_std() {
    let mut rng = Rng(0xf01d_ab1e_0dd5_eed5);
    let inputs: Vec<Vec<u64>> = lengths(&mut rng, 20_000)
        .into_iter()
        .map(|len| random_vec(&mut rng, len, 100))
        .collect();
    on_pools(|| {
        for v in &inputs {
            let total: u64 = v.iter().sum();
            // A step that fails past `limit`: any partial sum over it fails, so the whole
            // fails exactly when the total is over it.
            for limit in [0, total / 2, total] {
                let step = |acc: u64, x: &u64| (acc + x <= limit).then_some(acc + x);
                let sum = v
                    .par_iter()
                    .try_fold(|| 0, step)
                    .try_reduce(|| 0, |a, b| step(a, &b));
                assert_eq!(sum, (total <= limit).then_some(total), "limit {limit}");
                let sum_with = v
                    .par_iter()
                    .map(|&x| (x <= limit).then_some(x))
                    .try_reduce_with(|a, b| (a + b <= limit).then_some(a + b));
                let expected = (!v.is_empty()).then(|| (total <= limit).then_some(total));
                assert_eq!(sum_with, expected, "limit {limit}");
                let with: Result<u64, u64> = v
                    .par_iter()
                    .try_fold_with(0, |acc, &x| {
                        if acc + x <= limit {
                            Ok(acc + x)
                        } else {
                            Err(x)
                        }
                    })
                    .try_reduce(|| 0, |a, b| if a + b <= limit { Ok(a + b) } else { Err(0) });
                assert_eq!(with.is_ok(), total <= limit);
            }
            let inits = AtomicUsize::new(0);
            let seen = AtomicUsize::new(0);
            v.par_iter().for_each_init(
                || inits.fetch_add(1, Ordering::Relaxed),
                |_, _| {
                    seen.fetch_add(1, Ordering::Relaxed);
                },
            );
            assert_eq!(seen.into_inner(), v.len());
            assert!(inits.into_inner() <= v.len().max(1));
            let first_big = v.iter().position(|&x| x >= 90);
            let checked = v.par_iter().enumerate().try_for_each_init(
                || 90u64,
                |limit, (i, &x)| if x >= *limit { Err(i) } else { Ok(()) },
            );
            assert_eq!(checked.is_err(), first_big.is_some());
            if let Err(i) = checked {
                assert!(v[i] >= 90);
            }
            let with = v
                .par_iter()
                .try_for_each_with(90u64, |limit, &x| (x < *limit).then_some(()));
            assert_eq!(with.is_some(), first_big.is_none());
            // par_drain: the range comes out in order, the rest stays.
            let (lo, hi) = (v.len() / 3, v.len() * 2 / 3);
            let mut kept = v.clone();
            let drained: Vec<u64> = kept.par_drain(lo..hi).collect();
            assert_eq!(drained, v[lo..hi]);
            assert_eq!(kept, [&v[..lo], &v[hi..]].concat());
            // par_drain(): the whole collection comes out, the collection is left empty.
            let mut map: std::collections::HashMap<usize, u64> =
                v.iter().copied().enumerate().collect();
            let mut pairs: Vec<(usize, u64)> = map.par_drain().collect();
            pairs.sort_unstable();
            assert_eq!(pairs, v.iter().copied().enumerate().collect::<Vec<_>>());
            assert!(map.is_empty());
            let mut heap: std::collections::BinaryHeap<u64> = v.iter().copied().collect();
            assert_eq!(heap.par_drain().sum::<u64>(), v.iter().sum::<u64>());
            assert!(heap.is_empty());
            let mut set: std::collections::HashSet<u64> = v.iter().copied().collect();
            let distinct = set.len();
            assert_eq!(set.par_drain().count(), distinct);
            assert!(set.is_empty());
            let mut text: String = v
                .iter()
                .map(|x| char::from_u32(0x61 + (*x % 1000) as u32).unwrap())
                .collect();
            let (a, b) = (
                text.char_indices().nth(lo).map_or(text.len(), |p| p.0),
                text.len(),
            );
            let expected: String = text[a..b].to_string();
            let drained: String = text.par_drain(a..b).collect();
            assert_eq!(drained, expected);
            assert_eq!(text.len(), a);
        }
    });
}

/// Counts live values: every construction is matched by exactly one drop.
struct Counted<'a>(&'a AtomicUsize, u32);

impl<'a> Counted<'a> {
    fn new(live: &'a AtomicUsize, value: u32) -> Self {
        live.fetch_add(1, Ordering::Relaxed);
        Counted(live, value)
    }
}

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

#[test]
fn owned_items_are_dropped_once_even_on_early_exit_and_panic() {
    quiet_planted_panics();
    on_pools(|| {
        let live = AtomicUsize::new(0);
        let n = if cfg!(miri) { 60 } else { 20_000 };
        let make = || (0..n).map(|i| Counted::new(&live, i)).collect::<Vec<_>>();
        // Early exit: the items after the hit are dropped by the producer.
        let found = make().into_par_iter().find_first(|c| c.1 == 5).map(|c| c.1);
        assert_eq!(found, Some(5));
        assert_eq!(live.load(Ordering::Relaxed), 0);
        // rev, step_by and chain over owned items, stopping early: the rest is dropped too.
        let found = make()
            .into_par_iter()
            .rev()
            .find_first(|c| c.1 % 1000 == 7)
            .map(|c| c.1);
        assert_eq!(found, Some((n - 1) / 1000 * 1000 + 7).filter(|&x| x < n));
        let found = make()
            .into_par_iter()
            .step_by(3)
            .chain(make())
            .find_any(|c| c.1 == 4)
            .map(|c| c.1);
        assert_eq!(found, Some(4));
        assert_eq!(live.load(Ordering::Relaxed), 0);
        // Zip with a shorter side: the longer side's excess is dropped.
        let pairs: Vec<(Counted<'_>, u32)> = make().into_par_iter().zip(0..n / 2).collect();
        assert_eq!(pairs.len(), n as usize / 2);
        drop(pairs);
        assert_eq!(live.load(Ordering::Relaxed), 0);
        // A panic in the middle of an in-place collect: written items and unread ones are
        // dropped; the panic reaches the caller.
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            make()
                .into_par_iter()
                .map(|c| {
                    assert!(c.1 != n / 3, "planted");
                    c
                })
                .collect::<Vec<_>>()
        }));
        assert!(result.is_err());
        assert_eq!(live.load(Ordering::Relaxed), 0);
        // In a partition_map: both sides' pieces are dropped.
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            make()
                .into_par_iter()
                .partition_map::<Vec<_>, Vec<_>, _, _, _>(|c| {
                    assert!(c.1 != n / 2, "planted");
                    if c.1 % 2 == 0 {
                        Either::Left(c)
                    } else {
                        Either::Right(c)
                    }
                })
        }));
        assert!(result.is_err());
        assert_eq!(live.load(Ordering::Relaxed), 0);
        let (even, odd): (Vec<_>, Vec<_>) = make().into_par_iter().partition(|c| c.1 % 2 == 0);
        assert_eq!(
            (even.len(), odd.len()),
            ((n as usize).div_ceil(2), n as usize / 2)
        );
        drop((even, odd));
        assert_eq!(live.load(Ordering::Relaxed), 0);
        // And in a collect of unknown length.
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            make()
                .into_par_iter()
                .filter(|c| {
                    assert!(c.1 != n / 2, "planted");
                    c.1 % 2 == 0
                })
                .collect::<Vec<_>>()
        }));
        assert!(result.is_err());
        assert_eq!(live.load(Ordering::Relaxed), 0);
    });
}

#[test]
fn a_panic_propagates_and_the_pool_survives() {
    quiet_planted_panics();
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    ALWAYS_SHARE.store(true, Ordering::Relaxed);
    let n = if cfg!(miri) { 100u64 } else { 100_000 };
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.install(|| {
            (0..n)
                .into_par_iter()
                .map(|x| if x == n / 2 { panic!("planted {x}") } else { x })
                .sum::<u64>()
        })
    }));
    let payload = result.unwrap_err();
    let message = payload.downcast_ref::<String>().unwrap();
    assert_eq!(message, &format!("planted {}", n / 2));
    assert_eq!(
        pool.install(|| (0..n).into_par_iter().sum::<u64>()),
        n * (n - 1) / 2
    );
}

/// A fused iterator collected in place: the pieces that stop early leave gaps, and the panic
/// that reaches the caller is still the item's, not a complaint about the gaps.
#[test]
fn panic_fuse_into_collect_surfaces_the_items_panic() {
    quiet_planted_panics();
    // Some work per item, so that pieces are still running when the panic raises the fuse.
    fn spin(x: u64) -> u64 {
        (0..50).fold(x, |h, _| std::hint::black_box(h.rotate_left(5) ^ 0x9e37))
    }
    let n = if cfg!(miri) { 64u64 } else { 20_000 };
    on_pools(|| {
        for at in [0, 1, n / 3, n / 2, n - 1] {
            let result = panic::catch_unwind(AssertUnwindSafe(|| {
                (0..n)
                    .into_par_iter()
                    .panic_fuse()
                    .map(|x| {
                        if x == at {
                            panic!("planted {x}")
                        } else {
                            spin(x)
                        }
                    })
                    .collect::<Vec<u64>>()
            }));
            let payload = result.unwrap_err();
            let message = payload.downcast_ref::<String>().map(String::as_str);
            assert_eq!(message, Some(format!("planted {at}").as_str()));
            let result = panic::catch_unwind(AssertUnwindSafe(|| {
                (0..n)
                    .into_par_iter()
                    .map(|x| {
                        if x == at {
                            panic!("planted {x}")
                        } else {
                            (x, spin(x))
                        }
                    })
                    .panic_fuse()
                    .unzip::<u64, u64, Vec<u64>, Vec<u64>>()
            }));
            let payload = result.unwrap_err();
            let message = payload.downcast_ref::<String>().map(String::as_str);
            assert_eq!(message, Some(format!("planted {at}").as_str()));
        }
    });
}

/// `panic_fuse`: once an item has panicked, the pieces still running stop at their next item
/// (and those not started yield nothing). Without the fuse, a piece beside the panicking one
/// runs to its end before the panic goes on.
#[test]
#[cfg_attr(miri, ignore)] // Counts items over a long run; no unsafe code of its own.
fn panic_fuse_stops_the_other_pieces() {
    quiet_planted_panics();
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let n = 200_000u64;
    let panicked = std::sync::atomic::AtomicBool::new(false);
    let ran_after = AtomicUsize::new(0);
    for fused in [true, false] {
        panicked.store(false, Ordering::Relaxed);
        ran_after.store(0, Ordering::Relaxed);
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            pool.install(|| {
                // The first item run by another worker panics: its piece unwinds at once,
                // while the calling worker's piece still has most of its items to go.
                let caller = std::thread::current().id();
                let item = |x: u64| {
                    if panicked.load(Ordering::Relaxed) {
                        ran_after.fetch_add(1, Ordering::Relaxed);
                    } else if std::thread::current().id() != caller
                        && !panicked.swap(true, Ordering::Relaxed)
                    {
                        panic!("planted");
                    }
                    // Under a microsecond of work: without the fuse, the items after the panic
                    // count in tens of thousands; with it, in ones.
                    let mut h = x;
                    for _ in 0..300 {
                        h = std::hint::black_box(h.wrapping_mul(0x9e37_79b9_7f4a_7c15));
                    }
                    h
                };
                if fused {
                    (0..n).into_par_iter().panic_fuse().map(item).max()
                } else {
                    (0..n).into_par_iter().map(item).max()
                }
            })
        }));
        let payload = result.unwrap_err();
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"planted"));
        let ran_after = ran_after.load(Ordering::Relaxed) as u64;
        if fused {
            // The calling worker finishes the item it is on; a few more may start while the
            // panic unwinds to the fuse's drop (hundreds here; a bound far above that, so a
            // worker descheduled mid-unwind on a loaded machine does not fail the test).
            assert!(ran_after < n / 4, "{ran_after} items ran after the panic");
        } else {
            // A check of the test itself: the calling worker's piece runs on.
            assert!(ran_after > n / 8, "{ran_after} items ran after the panic");
        }
    }
}

/// Sources whose lengths are at the edge of a `usize`: a chain longer than a length can count
/// searches its true items (a wrapped length made it see 4), and `enumerate` numbers an item
/// at index `usize::MAX - 1` without stepping past it, and skips without producing.
#[test]
fn chains_and_enumerations_at_the_edge_of_usize() {
    on_pools(|| {
        let chain = || (0..usize::MAX).into_par_iter().chain(0..5usize);
        assert_eq!(chain().find_last(|_| true), Some(4));
        assert_eq!(chain().find_any(|&x| x == 4), Some(4));
        let last = (0..usize::MAX)
            .into_par_iter()
            .enumerate()
            .find_last(|_| true);
        assert_eq!(last, Some((usize::MAX - 1, usize::MAX - 1)));
        let every: Vec<(usize, usize)> = (0..usize::MAX)
            .into_par_iter()
            .enumerate()
            .step_by(1 << 62)
            .collect();
        let want: Vec<(usize, usize)> = (0..4).map(|k| (k << 62, k << 62)).collect();
        assert_eq!(every, want);
    });
}

/// A long loop is shared: with expensive items every worker of the pool takes part. (Not
/// under Miri, whose clock runs the probe's limit at a different scale.)
#[test]
#[cfg_attr(miri, ignore)]
fn an_expensive_loop_uses_every_worker() {
    let pool = ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    let items: usize = 64;
    let per_worker: Vec<usize> = pool.install(|| {
        (0..items)
            .into_par_iter()
            .map(|_| {
                std::thread::sleep(std::time::Duration::from_millis(2));
                crate::current_thread_index().unwrap()
            })
            .fold(
                || vec![0usize; 4],
                |mut counts, worker| {
                    counts[worker] += 1;
                    counts
                },
            )
            .reduce(
                || vec![0usize; 4],
                |a, b| a.iter().zip(&b).map(|(x, y)| x + y).collect(),
            )
    });
    assert_eq!(per_worker.iter().sum::<usize>(), items);
    assert!(per_worker.iter().all(|&n| n > 0), "{per_worker:?}");
}

/// A loop whose first items cost nothing and whose later ones are expensive is shared too:
/// the probe's cheap first steps must not make it run the rest on the caller alone. The
/// loop starts once the other workers have gone to sleep, when the probe's limit is the
/// longest.
#[test]
#[cfg_attr(miri, ignore)]
fn a_loop_whose_expensive_items_come_after_free_ones_uses_every_worker() {
    let pool = ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    let free = 16;
    let v: Vec<usize> = (0..free + 128).collect();
    let ran_on: Vec<AtomicUsize> = v.iter().map(|_| AtomicUsize::new(usize::MAX)).collect();
    let sum: usize = pool.install(|| {
        std::thread::sleep(std::time::Duration::from_millis(50));
        v.par_iter()
            .map(|&i| {
                if i >= free {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
                ran_on[i].store(crate::current_thread_index().unwrap(), Ordering::Relaxed);
                i
            })
            .sum()
    });
    assert_eq!(sum, v.iter().sum::<usize>());
    let mut per_worker = [0usize; 4];
    for worker in &ran_on[free..] {
        per_worker[worker.load(Ordering::Relaxed)] += 1;
    }
    assert!(
        per_worker.iter().all(|&n| n > 0),
        "the expensive items ran {per_worker:?} per worker"
    );
}

/// An indexed iterator written in safe code whose `len` is wrong: its producer holds `real`
/// items, and it claims `claimed`.
struct WrongLen {
    real: u64,
    claimed: usize,
}

impl ParallelIterator for WrongLen {
    type Item = u64;

    fn with_producer<CB: super::ProducerCallback<u64>>(self, callback: CB) -> CB::Output {
        (0..self.real).into_par_iter().with_producer(callback)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.claimed)
    }
}

impl IndexedParallelIterator for WrongLen {
    fn len(&self) -> usize {
        self.claimed
    }
}

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

#[test]
fn collecting_an_iterator_with_a_wrong_len_panics_instead_of_writing_past_the_vec() {
    quiet_planted_panics();
    let real = if cfg!(miri) { 24 } else { 100_000 };
    on_pools(|| {
        for claimed in [0, 1, real as usize / 2, real as usize + 1] {
            let iter = || WrongLen { real, claimed };
            let collected = panic::catch_unwind(AssertUnwindSafe(|| iter().collect::<Vec<_>>()));
            let message = panic_message(collected.expect_err("a wrong len is caught"));
            assert!(message.contains("than its length"), "{message}");
            let unzipped = panic::catch_unwind(AssertUnwindSafe(|| {
                iter().map(|x| (x, x)).unzip::<_, _, Vec<_>, Vec<_>>()
            }));
            let message = panic_message(unzipped.expect_err("a wrong len is caught"));
            assert!(message.contains("than its length"), "{message}");
        }
        // The pool still works.
        assert_eq!(
            (0..real).into_par_iter().collect::<Vec<_>>().len(),
            real as usize
        );
    });
}

#[test]
fn searches_over_ranges_longer_than_usize_max() {
    if cfg!(miri) {
        return;
    }
    on_pools(|| {
        // `0..=u64::MAX` has one item more than `usize::MAX`; the `u128` ranges many more.
        assert_eq!(
            (0..=u64::MAX)
                .into_par_iter()
                .find_first(|&x| x == 1_000_000),
            Some(1_000_000)
        );
        assert_eq!(
            (i64::MIN..=i64::MAX)
                .into_par_iter()
                .find_any(|&x| x == i64::MIN + 5),
            Some(i64::MIN + 5)
        );
        assert!((0..=u64::MAX).into_par_iter().any(|x| x == 3_000_000));
        assert!((0..u128::MAX).into_par_iter().any(|x| x == 3_000_000));
        // A hit past 2^64 must not look earlier than one near the start (offsets saturate
        // instead of wrapping).
        let first = (0..u128::MAX)
            .into_par_iter()
            .find_first(|&x| x == 5_000_000 || x >> 64 == 1);
        assert_eq!(first, Some(5_000_000));
        let first = (0..u128::MAX)
            .into_par_iter()
            .filter(|_| true)
            .find_first(|&x| x == 5_000_000 || x >> 64 == 1);
        assert_eq!(first, Some(5_000_000));
    });
    assert!(crate::loops::any(0..=u64::MAX, 0, |x| x == 5));
}

#[test]
fn searches_over_huge_ranges_reach_their_far_end() {
    if cfg!(miri) {
        return;
    }
    // Every item is a hit, so the answer is the last one, 2^64 - 2 items in. A piece that
    // finds a hit lets every piece before it stop at once (not when it ends), and the
    // workers take turns splitting the rest to its right until one reaches the end, as in
    // rayon. (A pool of one has nobody to take the pieces to the right: not tested.)
    for threads in [2, 4] {
        let pool = ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let last = pool.install(|| (0..u64::MAX).into_par_iter().find_last(|_| true));
        assert_eq!(last, Some(u64::MAX - 1));
        let last = pool.install(|| (0..u64::MAX).into_par_iter().position_last(|_| true));
        assert_eq!(last, Some(usize::MAX - 1));
        // Far more items than `usize::MAX`: the range is halved at its true middle, so the
        // half past the hit is a worker's first piece (rayon's `find_any_octillion`).
        const N: u128 = 1_000_000_000_000_000_000_000_000_000;
        let hit = pool.install(|| (0..N).into_par_iter().find_any(|&x| x > N / 2));
        assert!(hit.is_some_and(|x| x > N / 2 && x < N));
        let hit = pool.install(|| (0..=N).into_par_iter().find_any(|&x| x > N / 2));
        assert!(hit.is_some_and(|x| x > N / 2 && x <= N));
        let hit = pool.install(|| (i128::MIN..=i128::MAX).into_par_iter().find_any(|&x| x > 0));
        assert!(hit.is_some_and(|x| x > 0));
        // A window just past the true middle, at the front of the half a peer takes first: no
        // probe of the front may move that middle.
        let window = |x: &i128| (1..4).contains(x);
        let hit = pool.install(|| (i128::MIN..i128::MAX).into_par_iter().find_any(window));
        assert!(hit.is_some_and(|x| window(&x)));
        let window = |x: &u64| (u64::MAX / 2..u64::MAX / 2 + 4).contains(x);
        let hit = pool.install(|| (0..u64::MAX).into_par_iter().find_any(window));
        assert!(hit.is_some_and(|x| window(&x)));
        // Behind a filter that rejects the first half: the leaves in that half yield nothing
        // to their search loop, and stop only because they run in blocks of the source that
        // each ask whether the search is settled (rayon's `filter_find_any_octillion`).
        let hit = pool.install(|| {
            (0..N)
                .into_par_iter()
                .filter(|&x| x > N / 2)
                .find_any(|_| true)
        });
        assert!(hit.is_some_and(|x| x > N / 2 && x < N));
        let hit = pool.install(|| {
            (0..u64::MAX)
                .into_par_iter()
                .filter(|&x| x > u64::MAX / 2)
                .flat_map_iter(|x| [x, x])
                .any(|_| true)
        });
        assert!(hit);
    }
}

#[test]
fn collecting_into_result_or_option_stops_at_a_failure() {
    let n: usize = if cfg!(miri) { 64 } else { 2_000_000 };
    on_pools(|| {
        let calls = AtomicUsize::new(0);
        let collected: Result<Vec<usize>, usize> = (0..n)
            .into_par_iter()
            .map(|i| {
                calls.fetch_add(1, Ordering::Relaxed);
                if i == 10 { Err(i) } else { Ok(i) }
            })
            .collect();
        assert_eq!(collected, Err(10));
        // Pieces already running when the error came stop at their next item, and pieces
        // not started yield nothing: not every item is mapped (under Miri's scheduler a
        // peer may get far before the error, so only the result is checked there).
        let stopped_early = |calls: &AtomicUsize| cfg!(miri) || calls.load(Ordering::Relaxed) < n;
        assert!(
            stopped_early(&calls),
            "{} calls",
            calls.load(Ordering::Relaxed)
        );

        calls.store(0, Ordering::Relaxed);
        let collected: Option<Vec<usize>> = (0..n)
            .into_par_iter()
            .map(|i| {
                calls.fetch_add(1, Ordering::Relaxed);
                (i != 10).then_some(i)
            })
            .collect();
        assert_eq!(collected, None);
        assert!(
            stopped_early(&calls),
            "{} calls",
            calls.load(Ordering::Relaxed)
        );

        // Without a failure, everything is collected, in order.
        let all: Result<Vec<usize>, ()> = (0..n).into_par_iter().map(Ok).collect();
        assert_eq!(all.unwrap(), (0..n).collect::<Vec<_>>());
    });
}
