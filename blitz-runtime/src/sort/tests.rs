//! The sorts against `std`, on every input shape, at lengths around every cutoff, inside a
//! started pool and outside every pool; and their memory safety when the comparator panics or
//! lies.
//!
//! Most tests use [`SMALL`] cutoffs, so that slices of a few hundred elements (which Miri
//! can afford) take every parallel path: scan, reversal, runs in both arrays, parallel and
//! sequential merges, partitions, equal-element skips and key pieces.

use super::*;
use crate::ThreadPoolBuilder;
use crate::test_panics::quiet_planted_panics;
use crate::test_rng::Rng;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};

/// Cutoffs that make short slices parallel.
const SMALL: Cutoffs = Cutoffs {
    sequential: 16,
    min_run: 8,
    merge_piece: 16,
    quicksort_leaf: 8,
    scan_piece: 8,
    key_piece: 4,
};

/// Lengths for the [`SMALL`] cutoffs: the edge cases, around each cutoff, and a few longer.
/// Under Miri, where every fork costs milliseconds, one length of each parity of the merge
/// sort's levels: 17 sorts two runs (copied into the buffer), 40 four (merged in parallel).
fn small_lengths() -> Vec<usize> {
    if cfg!(miri) {
        return vec![0, 1, 2, 3, 17, 40];
    }
    vec![
        0, 1, 2, 3, 9, 15, 16, 17, 33, 49, 50, 51, 100, 257, 1000, 4099, 20_000,
    ]
}

/// Lengths for the public functions (their default cutoffs); short ones only under Miri.
fn default_lengths() -> Vec<usize> {
    if cfg!(miri) {
        return vec![0, 1, 2, 3, 40];
    }
    let seq = Cutoffs::DEFAULT.sequential;
    vec![
        0,
        1,
        2,
        3,
        100,
        seq - 1,
        seq,
        seq + 1,
        3 * seq + 7,
        50_000,
        200_000,
    ]
}

/// The input shapes every sort is checked on.
const SHAPES: [&str; 9] = [
    "random",
    "sorted",
    "reversed",
    "all-equal",
    "few-distinct",
    "mostly-sorted",
    "descending-with-ties",
    "pipe-organ",
    "sorted-then-random",
];

fn shape(name: &str, len: usize, seed: u64) -> Vec<u64> {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let len64 = len as u64;
    let mut v: Vec<u64> = match name {
        "random" => (0..len).map(|_| rng.next()).collect(),
        "sorted" => (0..len64).collect(),
        "reversed" => (0..len64).rev().collect(),
        "all-equal" => vec![7; len],
        "few-distinct" => (0..len).map(|_| rng.next() % 4).collect(),
        "mostly-sorted" => (0..len64).collect(),
        "descending-with-ties" => (0..len64).rev().map(|x| x / 3).collect(),
        "pipe-organ" => (0..len64).map(|i| i.min(len64 - i)).collect(),
        "sorted-then-random" => (0..len64)
            .map(|i| if i < len64 / 2 { i } else { rng.next() })
            .collect(),
        _ => unreachable!(),
    };
    if name == "mostly-sorted" && len > 1 {
        for _ in 0..=len / 64 {
            let (a, b) = (rng.below(len), rng.below(len));
            v.swap(a, b);
        }
    }
    v
}

fn pool() -> crate::ThreadPool {
    ThreadPoolBuilder::new().num_threads(2).build().unwrap()
}

/// Runs `check(outside)` on a started pool of two workers (`outside == false`) and outside
/// every pool (`true`).
fn in_and_outside_pool(check: impl Fn(bool) + Send + Sync) {
    pool().install(|| check(false));
    check(true);
}

/// The shapes to check with parallel sorts. Outside a pool, they run on the global pool, whose
/// detached threads Miri reports as leaked when the tests end: none there under Miri. (The
/// sorts at the default cutoffs do run outside every pool under Miri, at lengths sorted
/// sequentially: a sort there that touched the global pool would fail the run.)
fn shapes(outside: bool) -> &'static [&'static str] {
    if cfg!(miri) && outside { &[] } else { &SHAPES }
}

/// Sorts `(key, index)` pairs by key with `sort` and checks the result is `std`'s stable
/// sort's (so equal keys keep their indices ascending).
fn check_stable(keys: &[u64], context: &str, sort: impl Fn(&mut [(u64, usize)])) {
    let mut v: Vec<(u64, usize)> = keys.iter().copied().zip(0..).collect();
    let mut expected = v.clone();
    expected.sort_by_key(|p| p.0);
    sort(&mut v);
    for pair in v.windows(2) {
        assert!(
            pair[0].0 < pair[1].0 || (pair[0].0 == pair[1].0 && pair[0].1 < pair[1].1),
            "{context}: not sorted and stable at {pair:?}"
        );
    }
    assert!(v == expected, "{context}: differs from std");
}

fn check_unstable(keys: &[u64], context: &str, sort: impl Fn(&mut [u64])) {
    let mut v = keys.to_vec();
    let mut expected = v.clone();
    expected.sort_unstable();
    sort(&mut v);
    assert!(v == expected, "{context}: differs from std");
}

#[test]
fn stable_sort_matches_std_on_every_shape() {
    in_and_outside_pool(|outside| {
        for &name in shapes(outside) {
            for len in small_lengths() {
                let keys = shape(name, len, len as u64);
                let context = format!("{name}, len {len}");
                check_stable(&keys, &context, |v| {
                    sort_by_with(v, &|a, b| a.0.cmp(&b.0), SMALL)
                });
            }
        }
    });
}

#[test]
fn stable_sort_at_default_cutoffs() {
    in_and_outside_pool(|_| {
        for name in SHAPES {
            for len in default_lengths() {
                let keys = shape(name, len, len as u64 + 1);
                let context = format!("{name}, len {len}");
                check_stable(&keys, &context, |v| par_sort_by(v, |a, b| a.0.cmp(&b.0)));
            }
        }
    });
}

#[test]
fn unstable_sort_matches_std_on_every_shape() {
    in_and_outside_pool(|outside| {
        for &name in shapes(outside) {
            for len in small_lengths() {
                let keys = shape(name, len, len as u64 + 2);
                let context = format!("{name}, len {len}");
                check_unstable(&keys, &context, |v| {
                    sort_unstable_by_with(v, &u64::cmp, SMALL)
                });
            }
        }
    });
}

#[test]
fn unstable_sort_at_default_cutoffs() {
    in_and_outside_pool(|_| {
        for name in SHAPES {
            for len in default_lengths() {
                let keys = shape(name, len, len as u64 + 3);
                let context = format!("{name}, len {len}");
                check_unstable(&keys, &context, |v| par_sort_unstable_by(v, u64::cmp));
            }
        }
    });
}

#[test]
fn cached_key_sort_matches_std_and_is_stable() {
    in_and_outside_pool(|outside| {
        // Under Miri, three shapes: what the key pieces and the permutation see varies little
        // with the shape, and the pairs' sort is the unstable sort, checked on every shape.
        let shapes = shapes(outside);
        let shapes = if cfg!(miri) {
            &shapes[..shapes.len().min(3)]
        } else {
            shapes
        };
        for &name in shapes {
            for len in small_lengths() {
                let keys = shape(name, len, len as u64 + 4);
                let context = format!("{name}, len {len}");
                check_stable(&keys, &context, |v| {
                    cached_key::sort_by_cached_key(v, &|p: &(u64, usize)| p.0, SMALL)
                });
                check_stable(&keys, &context, |v| par_sort_by_cached_key(v, |p| p.0));
            }
        }
        if !cfg!(miri) {
            // One-digit keys: their string order is the numeric one.
            let keys = shape("few-distinct", 200_000, 5);
            check_stable(&keys, "few-distinct, 200k", |v| {
                par_sort_by_cached_key(v, |p| p.0.to_string())
            });
        }
    });
}

#[test]
fn descending_input_is_reversed_only_when_strict_for_the_stable_sort() {
    use presorted::{Presorted, scan};
    pool().install(|| {
        with_worker(|w| {
            let is_less = |a: &u64, b: &u64| a < b;
            let mut strict: Vec<u64> = (0..100).rev().collect();
            let mut ties: Vec<u64> = (0..100).rev().map(|x| x / 2).collect();
            let mut up: Vec<u64> = (0..100).map(|x| x / 2).collect();
            assert_eq!(
                scan(w, &mut strict, &is_less, true, SMALL),
                Presorted::Descending
            );
            assert_eq!(
                scan(w, &mut ties, &is_less, true, SMALL),
                Presorted::Neither
            );
            assert_eq!(
                scan(w, &mut ties, &is_less, false, SMALL),
                Presorted::Descending
            );
            assert_eq!(
                scan(w, &mut up, &is_less, true, SMALL),
                Presorted::Ascending
            );
        })
    });
}

/// One pair out of order anywhere, in particular across the cut between two scanned pieces
/// (checked after the join) and inside the sequential probe, makes the input unsorted.
#[test]
fn presorted_scan_finds_any_pair_out_of_order() {
    use presorted::{Presorted, scan};
    pool().install(|| {
        with_worker(|w| {
            let is_less = |a: &u64, b: &u64| a < b;
            let len = if cfg!(miri) { 48 } else { 300 };
            // Under Miri: two pairs inside the sequential probe, then every pair after it.
            let skip = if cfg!(miri) { 30 } else { 0 };
            for at in [0, 17].into_iter().chain(skip..len - 1) {
                let mut up: Vec<u64> = (0..len as u64).collect();
                up.swap(at, at + 1);
                assert_eq!(
                    scan(w, &mut up, &is_less, false, SMALL),
                    Presorted::Neither,
                    "{at}"
                );
                let mut down: Vec<u64> = (0..len as u64).rev().collect();
                down.swap(at, at + 1);
                assert_eq!(
                    scan(w, &mut down, &is_less, true, SMALL),
                    Presorted::Neither,
                    "{at}"
                );
            }
        })
    });
}

#[test]
fn parallel_reverse_reverses() {
    pool().install(|| {
        with_worker(|w| {
            for len in [0, 1, 2, 3, 16, 17, 18, 19, 101] {
                let mut v: Vec<usize> = (0..len).collect();
                presorted::par_reverse(w, &mut v, SMALL);
                assert!(v.iter().copied().eq((0..len).rev()), "len {len}");
            }
        })
    });
}

#[test]
fn run_levels() {
    // Four runs a worker, at least `min_run` long, an even number of levels if possible.
    assert_eq!(stable::levels(4_000_000, 2, 4096), 4);
    assert_eq!(stable::levels(10_000, 2, 4096), 1);
    assert_eq!(stable::levels(20_000, 2, 4096), 2);
    assert_eq!(stable::levels(40_000, 2, 4096), 3);
    assert_eq!(stable::levels(1_000_000, 1, 4096), 2);
    assert_eq!(stable::levels(100, 8, 4096), 0);
}

/// An element that counts its drops, to prove that a sort drops nothing and duplicates
/// nothing, whatever the comparator does.
struct Tracked<'a> {
    key: u64,
    id: usize,
    drops: &'a AtomicUsize,
}

impl Drop for Tracked<'_> {
    fn drop(&mut self) {
        self.drops.fetch_add(1, AtomicOrdering::Relaxed);
    }
}

fn tracked<'a>(keys: &[u64], drops: &'a AtomicUsize) -> Vec<Tracked<'a>> {
    (keys.iter().enumerate())
        .map(|(id, &key)| Tracked { key, id, drops })
        .collect()
}

/// `v` holds every element of `tracked(..)` exactly once, and nothing was dropped yet; then
/// dropping it drops each once.
fn assert_whole(v: Vec<Tracked<'_>>, drops: &AtomicUsize, context: &str) {
    assert_eq!(
        drops.load(AtomicOrdering::Relaxed),
        0,
        "{context}: dropped during the sort"
    );
    let mut ids: Vec<usize> = v.iter().map(|t| t.id).collect();
    ids.sort_unstable();
    assert!(
        ids.iter().copied().eq(0..v.len()),
        "{context}: not a permutation"
    );
    let len = v.len();
    drop(v);
    assert_eq!(drops.load(AtomicOrdering::Relaxed), len, "{context}: drops");
}

/// The sorts under test, by a comparator of `Tracked` elements.
type Sorter = fn(&mut [Tracked<'_>], &(dyn Fn(&Tracked<'_>, &Tracked<'_>) -> Ordering + Sync));

const SORTERS: [(&str, Sorter); 2] = [
    ("stable", |v, compare| sort_by_with(v, &compare, SMALL)),
    ("unstable", |v, compare| {
        sort_unstable_by_with(v, &compare, SMALL)
    }),
];

/// A comparator that panics at its `k`-th call, at every stage of both sorts.
#[test]
fn a_panicking_comparator_leaves_a_permutation() {
    quiet_planted_panics();
    let pool = pool();
    // Under Miri: a panic in the scan and in the sort; two runs copied to the buffer (30
    // elements, few-distinct) and four (40, random).
    let cases: &[(&str, usize, &[usize])] = if cfg!(miri) {
        &[("random", 40, &[0, 90]), ("few-distinct", 30, &[60])]
    } else {
        let ks = &[0, 5, 100, 1000, 5000, 10_000, 20_000, 35_000, 1 << 40];
        &[
            ("random", 3000, ks),
            ("few-distinct", 3000, ks),
            ("mostly-sorted", 3000, ks),
            ("sorted", 3000, ks),
            ("random", 30, &[0, 20, 50, 100, 150]),
        ]
    };
    for (sort_name, sort) in SORTERS {
        for &(name, len, ks) in cases {
            let keys = shape(name, len, 9);
            for &k in ks {
                let context = format!("{sort_name}, {name}, panic at call {k}");
                let drops = AtomicUsize::new(0);
                let mut v = tracked(&keys, &drops);
                let calls = AtomicUsize::new(0);
                let compare = |a: &Tracked<'_>, b: &Tracked<'_>| {
                    if calls.fetch_add(1, AtomicOrdering::Relaxed) == k {
                        panic!("sort test: comparator panic");
                    }
                    a.key.cmp(&b.key)
                };
                let result = pool
                    .install(|| panic::catch_unwind(AssertUnwindSafe(|| sort(&mut v, &compare))));
                match result {
                    Err(payload) => {
                        assert_eq!(
                            payload.downcast_ref::<&str>(),
                            Some(&"sort test: comparator panic")
                        );
                    }
                    Ok(()) => {
                        // The sort needed fewer calls: it must have sorted.
                        assert!(calls.into_inner() <= k, "{context}");
                        assert!(v.windows(2).all(|p| p[0].key <= p[1].key), "{context}");
                    }
                }
                assert_whole(v, &drops, &context);
            }
        }
    }
    // The pool survived.
    let mut v: Vec<u64> = (0..1000).rev().collect();
    pool.install(|| sort_unstable_by_with(&mut v, &u64::cmp, SMALL));
    assert!(v.iter().copied().eq(0..1000));
}

/// A comparator that panics at its `k`-th call for every `k` up to the number of calls a
/// sort makes, so that every place that compares (scan, pivot choice, partition, run sort,
/// order check, binary search, merge) sees a panic. Natively only: thousands of sorts.
#[test]
#[cfg_attr(miri, ignore)]
fn a_panic_at_every_comparison_leaves_a_permutation() {
    quiet_planted_panics();
    let pool = pool();
    for (sort_name, sort) in SORTERS {
        for (name, len) in [("random", 40), ("few-distinct", 30), ("random", 100)] {
            let keys = shape(name, len, 21);
            let calls = AtomicUsize::new(0);
            let drops = AtomicUsize::new(0);
            let mut v = tracked(&keys, &drops);
            let count = |a: &Tracked<'_>, b: &Tracked<'_>| {
                calls.fetch_add(1, AtomicOrdering::Relaxed);
                a.key.cmp(&b.key)
            };
            pool.install(|| sort(&mut v, &count));
            assert_whole(v, &drops, "counting run");
            // Forks make the order of the calls vary a little: a margin past the count.
            for k in 0..calls.into_inner() + 10 {
                let context = format!("{sort_name}, {name}, len {len}, panic at call {k}");
                let drops = AtomicUsize::new(0);
                let mut v = tracked(&keys, &drops);
                let calls = AtomicUsize::new(0);
                let compare = |a: &Tracked<'_>, b: &Tracked<'_>| {
                    if calls.fetch_add(1, AtomicOrdering::Relaxed) == k {
                        panic!("sort test: comparator panic");
                    }
                    a.key.cmp(&b.key)
                };
                let result = pool
                    .install(|| panic::catch_unwind(AssertUnwindSafe(|| sort(&mut v, &compare))));
                if result.is_ok() {
                    assert!(v.windows(2).all(|p| p[0].key <= p[1].key), "{context}");
                }
                assert_whole(v, &drops, &context);
            }
        }
    }
}

/// A comparator that answers at random, no total order: no undefined behaviour, no panic
/// (`std`'s panic about the order is caught), and a permutation.
#[test]
fn an_inconsistent_comparator_leaves_a_permutation() {
    quiet_planted_panics();
    let len = if cfg!(miri) { 40 } else { 5000 };
    in_and_outside_pool(|outside| {
        for (sort_name, sort) in SORTERS {
            for name in ["random", "sorted", "few-distinct"] {
                if cfg!(miri) && (outside || name == "few-distinct") {
                    continue;
                }
                let context = format!("{sort_name}, {name}");
                let drops = AtomicUsize::new(0);
                let mut v = tracked(&shape(name, len, 11), &drops);
                let state = AtomicUsize::new(1);
                let compare = |_: &Tracked<'_>, _: &Tracked<'_>| {
                    // A shared counter, hashed: the answers differ between calls and threads.
                    let n = state.fetch_add(1, AtomicOrdering::Relaxed) as u64;
                    match n.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 62 {
                        0 => Ordering::Less,
                        1 => Ordering::Equal,
                        _ => Ordering::Greater,
                    }
                };
                sort(&mut v, &compare);
                assert_whole(v, &drops, &context);
            }
        }
    });
}

/// A comparator, or a key function, whose own panic carries `std`'s message about orders that
/// are no total order (it may run a `std` sort itself): its panic propagates, from the `std`
/// pieces too, and is not taken for `std`'s report of an inconsistent comparator.
#[test]
fn a_comparator_panic_with_the_order_message_propagates() {
    quiet_planted_panics();
    const MESSAGE: &str =
        "user-provided comparison function does not correctly implement a total order";
    let lens: &[usize] = if cfg!(miri) {
        &[3, 40]
    } else {
        &[3, 40, 300, 5000]
    };
    in_and_outside_pool(|outside| {
        for (sort_name, sort) in SORTERS {
            for &len in lens {
                if cfg!(miri) && outside {
                    continue;
                }
                let context = format!("{sort_name}, len {len}, outside {outside}");
                let keys = shape("random", len, 5);
                // Any comparison with this element panics, at whatever stage it comes.
                let planted = keys[len / 2];
                let drops = AtomicUsize::new(0);
                let mut v = tracked(&keys, &drops);
                let compare = |a: &Tracked<'_>, b: &Tracked<'_>| {
                    if a.key == planted || b.key == planted {
                        panic!("{MESSAGE}");
                    }
                    a.key.cmp(&b.key)
                };
                let result = panic::catch_unwind(AssertUnwindSafe(|| sort(&mut v, &compare)));
                assert!(
                    result.is_err(),
                    "{context}: the comparator's panic was lost"
                );
                assert_whole(v, &drops, &context);
            }
        }
        if !(cfg!(miri) && outside) {
            let mut v: Vec<u64> = shape("random", 300, 9);
            let planted = v[7];
            let result = panic::catch_unwind(AssertUnwindSafe(|| {
                cached_key::sort_by_cached_key(
                    &mut v,
                    &|x: &u64| {
                        if *x == planted {
                            panic!("{MESSAGE}");
                        }
                        *x
                    },
                    SMALL,
                )
            }));
            assert!(
                result.is_err(),
                "cached key, outside {outside}: the key's panic was lost"
            );
        }
    });
}

/// A key function that panics at its `k`-th call: the slice is unchanged and every key made
/// so far is dropped.
#[test]
fn a_panicking_key_function_drops_every_key_made() {
    quiet_planted_panics();
    struct Key<'a> {
        key: u64,
        drops: &'a AtomicUsize,
    }
    impl Drop for Key<'_> {
        fn drop(&mut self) {
            self.drops.fetch_add(1, AtomicOrdering::Relaxed);
        }
    }
    impl PartialEq for Key<'_> {
        fn eq(&self, other: &Self) -> bool {
            self.key == other.key
        }
    }
    impl Eq for Key<'_> {}
    impl PartialOrd for Key<'_> {
        fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
            Some(self.cmp(other))
        }
    }
    impl Ord for Key<'_> {
        fn cmp(&self, other: &Self) -> Ordering {
            self.key.cmp(&other.key)
        }
    }

    let pool = pool();
    let len = if cfg!(miri) { 30 } else { 3000 };
    let keys = shape("random", len, 13);
    let ks = if cfg!(miri) {
        vec![5, len]
    } else {
        vec![0, 1, len / 3, len - 1, len]
    };
    for k in ks {
        let drops = AtomicUsize::new(0);
        let key_drops = AtomicUsize::new(0);
        let made = AtomicUsize::new(0);
        let mut v = tracked(&keys, &drops);
        let key_of = |t: &Tracked<'_>| {
            if made.fetch_add(1, AtomicOrdering::Relaxed) == k {
                panic!("sort test: key panic");
            }
            Key {
                key: t.key,
                drops: &key_drops,
            }
        };
        let result = pool.install(|| {
            panic::catch_unwind(AssertUnwindSafe(|| {
                cached_key::sort_by_cached_key(&mut v, &key_of, SMALL)
            }))
        });
        let context = format!("key panic at call {k}");
        // `made` counts the panicking call too, which made no key.
        let made = made.into_inner();
        if k < len {
            assert!(result.is_err(), "{context}");
            assert_eq!(key_drops.into_inner(), made - 1, "{context}");
            assert!(v.iter().map(|t| t.id).eq(0..len), "{context}: changed");
        } else {
            assert!(result.is_ok(), "{context}");
            assert_eq!(key_drops.into_inner(), made, "{context}");
            assert!(v.windows(2).all(|p| p[0].key <= p[1].key), "{context}");
        }
        assert_whole(v, &drops, &context);
    }
}
