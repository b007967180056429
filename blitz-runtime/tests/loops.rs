//! Parallel loops on a started 2-worker pool: every source, every primitive integer type,
//! the drivers (`for_each_piece`, `reduce_pieces`, `map_reduce`), the early-exit searches, and
//! panics in loop bodies. Each result is compared with the same computation done by a plain
//! sequential loop.

use std::panic::{self, AssertUnwindSafe};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use blitz_runtime::{
    ThreadPool, ThreadPoolBuilder, all, any, chunks, chunks_mut, enumerate, enumerate_mut,
    find_any, for_each_piece, map_reduce, position_any, reduce_pieces,
};

/// One started pool of 2 workers shared by every test (tests also stress it concurrently).
fn pool() -> &'static ThreadPool {
    static POOL: OnceLock<ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| ThreadPoolBuilder::new().num_threads(2).build().unwrap())
}

/// The explicit grain used by the tests; lengths around it are tested.
const G: usize = 100;
/// The lengths every source is tested with (clipped to the span of narrow integer types).
const LENGTHS: [usize; 6] = [0, 1, G - 1, G, G + 1, LONG];
/// The long length: deep splits at any grain. Under a sanitizer (`cfg(blitz_sanitizer)`, see
/// `build.rs`) a tenth of it, still a thousand grains: the range tests over the full length
/// took most of this file's 131 s under ThreadSanitizer, for arithmetic a debug build checks.
const LONG: usize = if cfg!(blitz_sanitizer) {
    100_000
} else {
    1_000_000
};
/// Grains: adaptive and explicit. The long lengths run with the adaptive grain only (the
/// explicit one is exercised by the short lengths around it), to keep debug builds quick.
fn grains(len: usize) -> &'static [usize] {
    if len > 10 * G { &[0] } else { &[0, G] }
}

/// The smallest piece a loop of `len` items may hand to a leaf with this grain.
fn min_piece(len: usize, grain: usize) -> usize {
    grain.max(1).min(len)
}

macro_rules! integer_tests {
    ($($name:ident: $t:ty),* $(,)?) => {$(
        mod $name {
            use super::*;

            type T = $t;

            /// What a loop over a range computes; compared between sequential and parallel.
            #[derive(Debug, Clone, Copy, PartialEq, Eq)]
            struct Summary {
                count: usize,
                first: Option<T>,
                last: Option<T>,
                /// Every item is its predecessor + 1 (order and no gaps or repeats).
                contiguous: bool,
                sum: T,
                /// Wrapping product of `x | 1` (odd factors, so it never collapses to 0).
                product: T,
                min: T,
                max: T,
                /// The shortest piece a leaf saw (sequentially: the whole range).
                min_piece: usize,
            }

            /// The leaf: one plain sequential loop.
            fn summarise(piece: impl IntoIterator<Item = T>) -> Summary {
                let mut s = Summary {
                    count: 0,
                    first: None,
                    last: None,
                    contiguous: true,
                    sum: 0,
                    product: 1,
                    min: T::MAX,
                    max: T::MIN,
                    min_piece: 0,
                };
                for x in piece {
                    match s.last {
                        None => s.first = Some(x),
                        Some(prev) => s.contiguous &= prev.wrapping_add(1) == x,
                    }
                    s.last = Some(x);
                    s.count += 1;
                    s.sum = s.sum.wrapping_add(x);
                    s.product = s.product.wrapping_mul(x | 1);
                    s.min = s.min.min(x);
                    s.max = s.max.max(x);
                }
                s.min_piece = s.count;
                s
            }

            fn combine(a: Summary, b: Summary) -> Summary {
                if a.count == 0 {
                    return b;
                }
                if b.count == 0 {
                    return a;
                }
                Summary {
                    count: a.count + b.count,
                    first: a.first,
                    last: b.last,
                    contiguous: a.contiguous
                        && b.contiguous
                        && a.last.unwrap().wrapping_add(1) == b.first.unwrap(),
                    sum: a.sum.wrapping_add(b.sum),
                    product: a.product.wrapping_mul(b.product),
                    min: a.min.min(b.min),
                    max: a.max.max(b.max),
                    min_piece: a.min_piece.min(b.min_piece),
                }
            }

            /// `start + n` if it does not overflow.
            fn add(start: T, n: usize) -> Option<T> {
                // Modular addition is exact when the true sum is in range.
                (T::MAX.abs_diff(start) as u128 >= n as u128).then(|| start.wrapping_add(n as T))
            }

            /// `start - n` if it does not overflow.
            fn sub(start: T, n: usize) -> Option<T> {
                (start.abs_diff(T::MIN) as u128 >= n as u128).then(|| start.wrapping_sub(n as T))
            }

            /// The number of values of `T`, saturated.
            fn span() -> usize {
                usize::try_from((T::MAX.abs_diff(T::MIN) as u128).saturating_add(1)).unwrap_or(usize::MAX)
            }

            /// Runs every driver over `range` and compares with the sequential loop.
            fn check<R>(range: R, grain: usize)
            where
                R: blitz_runtime::IntoParallelSource + IntoIterator<Item = T> + Clone + Send + Sync
                    + std::fmt::Debug,
                <R as blitz_runtime::IntoParallelSource>::Source: IntoIterator<Item = T>,
            {
                let what = format!("{range:?} grain {grain}");
                let expected = summarise(range.clone());
                assert!(expected.contiguous);
                let got = pool().install(|| {
                    reduce_pieces(range.clone(), grain, summarise, combine)
                });
                assert_eq!(
                    Summary { min_piece: expected.min_piece, ..got },
                    expected,
                    "{what}"
                );
                assert!(got.min_piece >= min_piece(expected.count, grain), "{what}: {got:?}");

                let visited = AtomicUsize::new(0);
                pool().install(|| {
                    for_each_piece(range.clone(), grain, |piece| {
                        let mut n = 0;
                        for _ in piece {
                            n += 1;
                        }
                        visited.fetch_add(n, Ordering::Relaxed);
                    })
                });
                assert_eq!(visited.into_inner(), expected.count, "{what}");

                let (sum, product, min, max) = pool().install(|| {
                    (
                        map_reduce(range.clone(), grain, || 0, |x| x, T::wrapping_add),
                        map_reduce(range.clone(), grain, || 1, |x| x | 1, T::wrapping_mul),
                        map_reduce(range.clone(), grain, || T::MAX, |x| x, T::min),
                        map_reduce(range.clone(), grain, || T::MIN, |x| x, T::max),
                    )
                });
                assert_eq!(
                    (sum, product, min, max),
                    (expected.sum, expected.product, expected.min, expected.max),
                    "{what}"
                );

                pool().install(|| match (expected.first, expected.last) {
                    (Some(first), Some(last)) => {
                        // Hit first, hit last, absent.
                        assert!(any(range.clone(), grain, |x| x == first), "{what}");
                        assert!(any(range.clone(), grain, |x| x == last), "{what}");
                        assert!(!any(range.clone(), grain, |x| x < first), "{what}");
                        assert_eq!(
                            position_any(range.clone(), grain, |x| x == first),
                            Some(0),
                            "{what}"
                        );
                        assert_eq!(
                            position_any(range.clone(), grain, |x| x == last),
                            Some(expected.count - 1),
                            "{what}"
                        );
                        assert_eq!(position_any(range.clone(), grain, |x| x > last), None);
                        assert_eq!(find_any(range.clone(), grain, |&x| x == last), Some(last));
                        assert_eq!(find_any(range.clone(), grain, |&x| x == first), Some(first));
                        assert_eq!(find_any(range.clone(), grain, |&x| x < first), None);
                        assert!(all(range.clone(), grain, |x| x >= first), "{what}");
                        assert!(!all(range.clone(), grain, |x| x != first), "{what}");
                        assert!(!all(range.clone(), grain, |x| x != last), "{what}");
                    }
                    _ => {
                        assert!(!any(range.clone(), grain, |_| true), "{what}");
                        assert!(all(range.clone(), grain, |_| false), "{what}");
                        assert_eq!(position_any(range.clone(), grain, |_| true), None);
                        assert_eq!(find_any(range.clone(), grain, |_| true), None);
                    }
                });
            }

            /// Exclusive and inclusive ranges of every test length, starting at `MIN`, at 0,
            /// at a negative number (signed types), and ending at `MAX`.
            #[test]
            fn ranges_match_the_sequential_loop() {
                for len in LENGTHS {
                    let len = len.min(span());
                    let mut starts = vec![Some(T::MIN), Some(0), sub(0, len / 2 + 1)];
                    // Exclusive ranges ending at MAX, inclusive ones ending at MAX.
                    starts.push(sub(T::MAX, len));
                    starts.push(len.checked_sub(1).and_then(|n| sub(T::MAX, n)));
                    for &grain in grains(len) {
                        for start in starts.iter().flatten().copied() {
                            if let Some(end) = add(start, len) {
                                check(start..end, grain);
                            }
                            match len.checked_sub(1) {
                                Some(n) => {
                                    if let Some(last) = add(start, n) {
                                        check(start..=last, grain);
                                    }
                                }
                                None => {
                                    // An empty inclusive range.
                                    #[allow(clippy::reversed_empty_ranges)]
                                    let empty = 1..=0;
                                    check(empty, grain);
                                }
                            }
                        }
                    }
                }
            }

            #[test]
            fn inclusive_ranges_ending_at_max() {
                for len in [1, 2, G + 1, 1000] {
                    let len = len.min(span());
                    let start = sub(T::MAX, len - 1).unwrap();
                    let range = start..=T::MAX;
                    check(range.clone(), 0);
                    check(range.clone(), 1);
                    let last = pool().install(|| {
                        reduce_pieces(range, 1, |p| p.last(), |a, b| b.or(a))
                    });
                    assert_eq!(last, Some(T::MAX));
                }
            }

            #[test]
            fn the_whole_span_of_narrow_types() {
                if span() > 1 << 20 {
                    return; // not iterable in a test
                }
                check(T::MIN..=T::MAX, 0);
                check(T::MIN..=T::MAX, 7);
                check(T::MIN..T::MAX, 0);
            }

            /// `x * 3 + 1`, wrapping: what the mutable loops apply.
            fn bump(x: &mut T) {
                *x = x.wrapping_mul(3).wrapping_add(1);
            }

            fn values(len: usize) -> Vec<T> {
                (0..len).map(|i| (i as T).wrapping_mul(7).wrapping_add(3)).collect()
            }

            /// A piece of a shared slice: where it is and what it sums to.
            #[derive(Debug, Clone, Copy, PartialEq, Eq)]
            struct Piece {
                start: usize,
                end: usize,
                sum: T,
                min: T,
                max: T,
                contiguous: bool,
                min_len: usize,
            }

            fn piece_of(items: &[T]) -> Piece {
                let mut p = Piece {
                    start: items.as_ptr() as usize,
                    end: items.as_ptr_range().end as usize,
                    sum: 0,
                    min: T::MAX,
                    max: T::MIN,
                    contiguous: true,
                    min_len: items.len(),
                };
                for &x in items {
                    p.sum = p.sum.wrapping_add(x);
                    p.min = p.min.min(x);
                    p.max = p.max.max(x);
                }
                p
            }

            fn join_pieces(a: Piece, b: Piece) -> Piece {
                Piece {
                    start: a.start,
                    end: b.end,
                    sum: a.sum.wrapping_add(b.sum),
                    min: a.min.min(b.min),
                    max: a.max.max(b.max),
                    contiguous: a.contiguous && b.contiguous && a.end == b.start,
                    min_len: a.min_len.min(b.min_len),
                }
            }

            #[test]
            fn shared_slices_and_vecs() {
                for len in LENGTHS {
                    let v = values(len);
                    let expected = piece_of(&v);
                    for &grain in grains(len) {
                        let (from_slice, from_vec) = pool().install(|| {
                            (
                                reduce_pieces(v.as_slice(), grain, piece_of, join_pieces),
                                reduce_pieces(&v, grain, piece_of, join_pieces),
                            )
                        });
                        for got in [from_slice, from_vec] {
                            assert_eq!(
                                Piece { min_len: expected.min_len, ..got },
                                expected,
                                "len {len} grain {grain}"
                            );
                            assert!(got.min_len >= min_piece(len, grain));
                        }
                        check_slice_searches(&v, grain);
                    }
                }
            }

            /// Early exit over a slice, identifying items by address (values may repeat).
            fn check_slice_searches(v: &[T], grain: usize) {
                let len = v.len();
                let other = [0 as T];
                pool().install(|| {
                    assert!(!any(v, grain, |x| std::ptr::eq(x, &other[0])));
                    assert_eq!(position_any(v, grain, |x| std::ptr::eq(x, &other[0])), None);
                    if len == 0 {
                        assert!(all(v, grain, |_| false));
                        return;
                    }
                    for target in [0, len / 2, len - 1] {
                        let hit = &v[target];
                        assert!(any(v, grain, |x| std::ptr::eq(x, hit)));
                        assert!(!all(v, grain, |x| !std::ptr::eq(x, hit)));
                        assert_eq!(position_any(v, grain, |x| std::ptr::eq(x, hit)), Some(target));
                        let found = find_any(v, grain, |x| std::ptr::eq(*x, hit));
                        assert!(found.is_some_and(|x| std::ptr::eq(x, hit)));
                        assert_eq!(
                            position_any(enumerate(v), grain, |(i, _)| i == target),
                            Some(target)
                        );
                    }
                });
            }

            #[test]
            fn mutable_slices_and_vecs_visit_each_item_once() {
                for len in LENGTHS {
                    let v = values(len);
                    let mut expected = v.clone();
                    expected.iter_mut().for_each(bump);
                    for &grain in grains(len) {
                        let mut via_vec = v.clone();
                        let mut via_slice = v.clone();
                        let mut visits = vec![0u8; len];
                        pool().install(|| {
                            for_each_piece(&mut via_vec, grain, |piece| {
                                for x in piece {
                                    bump(x);
                                }
                            });
                            for_each_piece(via_slice.as_mut_slice(), grain, |piece| {
                                for x in piece {
                                    bump(x);
                                }
                            });
                            for_each_piece(&mut visits, grain, |piece| {
                                for x in piece {
                                    *x += 1;
                                }
                            });
                        });
                        assert!(via_vec == expected, "len {len} grain {grain}");
                        assert!(via_slice == expected, "len {len} grain {grain}");
                        assert!(visits.iter().all(|&n| n == 1), "len {len} grain {grain}");
                    }
                }
            }

            #[test]
            fn chunks_match_the_sequential_loop() {
                for len in LENGTHS {
                    let v = values(len);
                    for k in [1, 3, G] {
                        let expected: Vec<T> = v
                            .chunks(k)
                            .map(|c| c.iter().fold(0 as T, |a, &b| a.wrapping_add(b)))
                            .collect();
                        for &grain in grains(len) {
                            // Chunk sums, concatenated in order, and each chunk's address.
                            let got = pool().install(|| {
                                reduce_pieces(
                                    chunks(&v, k),
                                    grain,
                                    |piece| {
                                        let mut sums = Vec::new();
                                        for chunk in piece {
                                            let offset = (chunk.as_ptr() as usize
                                                - v.as_ptr() as usize)
                                                / std::mem::size_of::<T>().max(1);
                                            assert_eq!(offset % k, 0);
                                            assert!(
                                                chunk.len() == k || offset + chunk.len() == len
                                            );
                                            sums.push(
                                                chunk.iter().fold(0 as T, |a, &b| a.wrapping_add(b)),
                                            );
                                        }
                                        sums
                                    },
                                    |mut a, b| {
                                        a.extend(b);
                                        a
                                    },
                                )
                            });
                            assert!(got == expected, "len {len} k {k} grain {grain}");

                            let mut w = v.clone();
                            let chunk_count = AtomicUsize::new(0);
                            pool().install(|| {
                                for_each_piece(chunks_mut(&mut w, k), grain, |piece| {
                                    for chunk in piece {
                                        chunk_count.fetch_add(1, Ordering::Relaxed);
                                        chunk.iter_mut().for_each(bump);
                                    }
                                })
                            });
                            assert_eq!(chunk_count.into_inner(), len.div_ceil(k));
                            let mut expected_w = v.clone();
                            expected_w.iter_mut().for_each(bump);
                            assert!(w == expected_w, "len {len} k {k} grain {grain}");
                        }
                    }
                }
            }

            #[test]
            fn enumerate_gives_global_indices() {
                for len in LENGTHS {
                    let v = values(len);
                    for &grain in grains(len) {
                        // (count, first index, last index, every item at its index, contiguous)
                        type Acc = (usize, Option<usize>, Option<usize>, bool);
                        let got: Acc = pool().install(|| {
                            reduce_pieces(
                                enumerate(&v),
                                grain,
                                |piece| {
                                    let mut acc: Acc = (0, None, None, true);
                                    for (i, x) in piece {
                                        acc.3 &= std::ptr::eq(x, &v[i])
                                            && acc.2.is_none_or(|prev| prev + 1 == i);
                                        acc.1 = acc.1.or(Some(i));
                                        acc.2 = Some(i);
                                        acc.0 += 1;
                                    }
                                    acc
                                },
                                |a, b| {
                                    let joined = match (a.2, b.1) {
                                        (Some(l), Some(f)) => l + 1 == f,
                                        _ => true,
                                    };
                                    (a.0 + b.0, a.1.or(b.1), b.2.or(a.2), a.3 && b.3 && joined)
                                },
                            )
                        });
                        let expected: Acc = (len, (len > 0).then_some(0), len.checked_sub(1), true);
                        assert_eq!(got, expected, "len {len} grain {grain}");

                        let mut w = v.clone();
                        let mut visits = vec![0u8; len];
                        pool().install(|| {
                            for_each_piece(enumerate_mut(&mut w), grain, |piece| {
                                for (i, x) in piece {
                                    *x = (i as T).wrapping_mul(5);
                                }
                            });
                            for_each_piece(enumerate_mut(&mut visits), grain, |piece| {
                                for (_, x) in piece {
                                    *x += 1;
                                }
                            });
                        });
                        assert!(
                            w.iter().enumerate().all(|(i, &x)| x == (i as T).wrapping_mul(5)),
                            "len {len} grain {grain}"
                        );
                        assert!(visits.iter().all(|&n| n == 1));
                    }
                }
            }
        }
    )*};
}

integer_tests!(
    u8_: u8,
    u16_: u16,
    u32_: u32,
    u64_: u64,
    u128_: u128,
    usize_: usize,
    i8_: i8,
    i16_: i16,
    i32_: i32,
    i64_: i64,
    i128_: i128,
    isize_: isize,
);

#[test]
fn negative_i64_ranges() {
    let expected: i64 = (-1_000_000..-10i64).sum();
    let got =
        pool().install(|| reduce_pieces(-1_000_000..-10i64, 0, |p| p.sum::<i64>(), |a, b| a + b));
    assert_eq!(got, expected);
    let got = pool().install(|| {
        map_reduce(
            i64::MIN..=i64::MIN + 1000,
            G,
            || 0i128,
            i128::from,
            |a, b| a + b,
        )
    });
    assert_eq!(
        got,
        (i64::MIN..=i64::MIN + 1000).map(i128::from).sum::<i128>()
    );
    assert_eq!(
        pool().install(|| position_any(-500..500i64, 0, |x| x == 0)),
        Some(500)
    );
}

#[test]
fn float_sums_match_within_tolerance() {
    let n = 1_000_000u32;
    let sequential: f64 = (0..n).map(|i| f64::from(i).sqrt()).sum();
    for grain in [0, 1, G, 4096] {
        let parallel = pool()
            .install(|| map_reduce(0..n, grain, || 0.0, |i| f64::from(i).sqrt(), |a, b| a + b));
        assert!(
            (parallel - sequential).abs() <= 1e-9 * sequential,
            "{parallel} vs {sequential}"
        );
    }
    let v: Vec<f64> = (0..n).map(|i| f64::from(i) * 0.5 - 1000.0).collect();
    let sequential: f64 = v.iter().sum();
    let parallel =
        pool().install(|| reduce_pieces(&v, 0, |p: &[f64]| p.iter().sum::<f64>(), |a, b| a + b));
    assert!((parallel - sequential).abs() <= 1e-9 * sequential.abs());
}

#[test]
fn arrays_by_reference_are_sources() {
    let mut a = [1u32, 2, 3, 4, 5, 6, 7];
    pool().install(|| {
        for_each_piece(&mut a, 1, |p| p.iter_mut().for_each(|x| *x *= 10));
    });
    let sum =
        pool().install(|| reduce_pieces(&a, 1, |p: &[u32]| p.iter().sum::<u32>(), |x, y| x + y));
    assert_eq!(sum, 280);
}

#[test]
fn loops_work_from_outside_every_pool() {
    // Through the global pool, and inline for sources too short to split.
    assert_eq!(
        reduce_pieces(0..10_000u64, 0, |p| p.sum::<u64>(), |a, b| a + b),
        49_995_000
    );
    assert_eq!(
        reduce_pieces(0..1u64, 0, |p| p.sum::<u64>(), |a, b| a + b),
        0
    );
    assert!(any(0..10_000u64, 0, |x| x == 9_999));
}

/// The panicking leaf's guard decrements `running` too, so it reaches zero only when every leaf
/// that started has finished.
struct Running<'a>(&'a AtomicUsize);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

#[test]
fn a_panic_in_a_loop_body_reaches_the_caller_after_running_leaves_finish() {
    for bad in [0u64, 5_000, 99_999] {
        let running = AtomicUsize::new(0);
        let started = AtomicUsize::new(0);
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            pool().install(|| {
                for_each_piece(0..100_000u64, 64, |piece| {
                    running.fetch_add(1, Ordering::SeqCst);
                    started.fetch_add(1, Ordering::SeqCst);
                    let _guard = Running(&running);
                    let mut acc = 0u64;
                    for i in piece {
                        if i == bad {
                            panic!("bad item {i}");
                        }
                        acc = acc.wrapping_add(std::hint::black_box(i));
                    }
                    std::hint::black_box(acc);
                })
            })
        }));
        let payload = result.expect_err("the panic must reach the caller");
        assert_eq!(
            payload.downcast_ref::<String>().map(String::as_str),
            Some(format!("bad item {bad}").as_str())
        );
        assert_eq!(
            running.load(Ordering::SeqCst),
            0,
            "a leaf was still running when the panic reached the caller"
        );
        assert!(started.load(Ordering::SeqCst) >= 1);
    }
    // The pool is still usable.
    let sum = pool().install(|| reduce_pieces(0..1000u64, 0, |p| p.sum::<u64>(), |a, b| a + b));
    assert_eq!(sum, 499_500);
}

#[test]
fn a_panic_in_a_reduction_propagates_and_the_pool_stays_usable() {
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        pool().install(|| {
            reduce_pieces(
                0..1_000_000u32,
                0,
                |p| {
                    let mut s = 0u64;
                    for i in p {
                        assert!(i != 777_777, "reduction body failed");
                        s += u64::from(i);
                    }
                    s
                },
                |a, b| a + b,
            )
        })
    }));
    assert!(result.is_err());
    assert!(pool().install(|| all(0..1000u32, 0, |i| i < 1000)));
}

#[test]
fn busy_loops_are_shared_by_both_workers() {
    // Leaves spin, so the idle worker has time to steal; retry rather than assume timing.
    for _attempt in 0..20 {
        let seen: Vec<AtomicUsize> = (0..2).map(|_| AtomicUsize::new(0)).collect();
        pool().install(|| {
            for_each_piece(0..256u32, 1, |piece| {
                let index = blitz_runtime::current_thread_index().unwrap();
                for i in piece {
                    seen[index].fetch_add(1, Ordering::Relaxed);
                    let mut x = u64::from(i);
                    for _ in 0..20_000 {
                        x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005));
                    }
                }
            })
        });
        let total: usize = seen.iter().map(|s| s.load(Ordering::Relaxed)).sum();
        assert_eq!(total, 256);
        if seen.iter().all(|s| s.load(Ordering::Relaxed) > 0) {
            return;
        }
    }
    panic!("the second worker never ran a piece: nothing was stolen");
}
