//! The sources other than slices and `Vec`s against `std`: collections, strings, slice cuts,
//! literal ranges; and the searches and early ends over them.

use super::{lengths, on_pools, random_vec};
use crate::iter::prelude::*;
use crate::loops::ParallelSource;
use crate::test_rng::Rng;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Random text from pieces that stress the part boundaries: multi-byte chars, Unicode and
/// ASCII whitespace runs, `\r\n` and bare `\n`, empty lines, separators at both ends.
#[cfg(not(blitz_sanitizer))] // See build.rs.
fn random_text(rng: &mut Rng, pieces: usize) -> String {
    const PIECES: [&str; 15] = [
        "a", "bc", "é", "日本", "🦀", " ", "  ", "\t", "\u{2003}", "\n", "\r\n", "\r", ",", ",,",
        "x,y",
    ];
    (0..pieces)
        .map(|_| PIECES[rng.below(PIECES.len())])
        .collect()
}

/// `char` ranges are the scalar values in them, indexed (surrogates skipped); a boxed slice
/// and a `Result` go by value as in rayon.
#[test]
#[cfg_attr(miri, ignore)] // No unsafe code of its own.
fn char_ranges_boxed_slices_and_results_match_std() {
    on_pools(|| {
        let ranges = [
            ('a', 'z'),
            ('\u{D000}', '\u{F000}'),
            ('\u{D7FF}', '\u{E000}'),
            ('\u{E000}', '\u{E000}'),
            ('z', 'a'),
            ('\u{10FF00}', char::MAX),
            ('\0', '\u{1000}'),
        ];
        for (lo, hi) in ranges {
            let half: Vec<char> = (lo..hi).into_par_iter().collect();
            assert_eq!(half, (lo..hi).collect::<Vec<_>>(), "{lo:?}..{hi:?}");
            let inclusive: Vec<char> = (lo..=hi).into_par_iter().collect();
            assert_eq!(inclusive, (lo..=hi).collect::<Vec<_>>(), "{lo:?}..={hi:?}");
            let backwards: Vec<char> = (lo..=hi).into_par_iter().rev().collect();
            assert_eq!(backwards, (lo..=hi).rev().collect::<Vec<_>>());
            assert_eq!((lo..hi).into_par_iter().len(), (lo..hi).count());
        }
        let mut exhausted = 'a'..='b';
        exhausted.by_ref().for_each(drop);
        assert_eq!(exhausted.into_par_iter().count(), 0);

        let boxed: Box<[String]> = (0..1000).map(|i| i.to_string()).collect();
        let expected: Vec<String> = boxed.to_vec();
        let owned: Vec<String> = boxed.into_par_iter().collect();
        assert_eq!(owned, expected);

        let ok: Result<u64, String> = Ok(7);
        let err: Result<u64, String> = Err("no".into());
        assert_eq!(ok.par_iter().copied().sum::<u64>(), 7);
        assert_eq!(err.par_iter().count(), 0);
        assert_eq!(ok.into_par_iter().collect::<Vec<_>>(), [7]);
        let mut m: Result<u64, ()> = Ok(1);
        m.par_iter_mut().for_each(|x| *x += 1);
        assert_eq!(m, Ok(2));
    });
}

#[test]
#[cfg_attr(miri, ignore)] // No unsafe code of its own.
#[cfg(not(blitz_sanitizer))] // See build.rs.
fn string_parts_match_std() {
    let mut rng = Rng(0x7e47_0b1e_57a1_d00d);
    let mut texts: Vec<String> = vec![
        String::new(),
        ",".into(),
        "\n".into(),
        "é".into(),
        " a".into(),
        // Long runs without a separator: pieces inside them hold no part.
        "é".repeat(5000),
        format!(
            "{} {}\n{},",
            "w".repeat(7000),
            "日".repeat(3000),
            "x".repeat(9000)
        ),
    ];
    texts.extend(
        lengths(&mut rng, 20_000)
            .into_iter()
            .map(|n| random_text(&mut rng, n)),
    );
    on_pools(|| {
        for text in &texts {
            let t = text.as_str();
            assert_eq!(t.par_chars().collect::<String>(), t);
            let indices: Vec<(usize, char)> = t.par_char_indices().collect();
            assert_eq!(indices, t.char_indices().collect::<Vec<_>>());
            assert_eq!(t.par_bytes().collect::<Vec<u8>>(), t.as_bytes());
            assert_eq!(
                t.par_lines().collect::<Vec<_>>(),
                t.lines().collect::<Vec<_>>()
            );
            let words: Vec<&str> = t.par_split_whitespace().collect();
            assert_eq!(words, t.split_whitespace().collect::<Vec<_>>());
            let ascii_words: Vec<&str> = t.par_split_ascii_whitespace().collect();
            assert_eq!(ascii_words, t.split_ascii_whitespace().collect::<Vec<_>>());
            assert_eq!(
                t.par_split(',').collect::<Vec<_>>(),
                t.split(',').collect::<Vec<_>>()
            );
            let multi: Vec<&str> = t.par_split(['\n', 'é', '🦀']).collect();
            assert_eq!(multi, t.split(['\n', 'é', '🦀']).collect::<Vec<_>>());
            for sep in [',', '\n', 'é'] {
                let terminated: Vec<&str> = t.par_split_terminator(sep).collect();
                assert_eq!(terminated, t.split_terminator(sep).collect::<Vec<_>>());
                let inclusive: Vec<&str> = t.par_split_inclusive(sep).collect();
                assert_eq!(inclusive, t.split_inclusive(sep).collect::<Vec<_>>());
                let matches: Vec<&str> = t.par_matches(sep).collect();
                assert_eq!(matches, t.matches(sep).collect::<Vec<_>>());
                let indices: Vec<(usize, &str)> = t.par_match_indices(sep).collect();
                assert_eq!(indices, t.match_indices(sep).collect::<Vec<_>>());
            }
            let wide: Vec<&str> = t.par_matches(|c: char| !c.is_ascii()).collect();
            assert_eq!(wide, t.matches(|c: char| !c.is_ascii()).collect::<Vec<_>>());
            let units: Vec<u16> = t.par_encode_utf16().collect();
            assert_eq!(units, t.encode_utf16().collect::<Vec<_>>());
            let by_fn: Vec<&str> = t.par_split(char::is_whitespace).collect();
            assert_eq!(by_fn, t.split(char::is_whitespace).collect::<Vec<_>>());
            let count = t.par_lines().filter(|l| l.contains('a')).count();
            assert_eq!(count, t.lines().filter(|l| l.contains('a')).count());
        }
    });
}

#[test]
#[cfg_attr(miri, ignore)] // No unsafe code of its own.
#[cfg(not(blitz_sanitizer))] // See build.rs.
fn collections_slices_and_searches_match_std() {
    use std::collections::{BTreeMap, BTreeSet, BinaryHeap, LinkedList, VecDeque};
    let mut rng = Rng(0x0c0f_fee5_ca1e_ab1e);
    let inputs: Vec<Vec<u64>> = lengths(&mut rng, 20_000)
        .into_iter()
        .map(|len| random_vec(&mut rng, len, 100))
        .collect();
    on_pools(|| {
        for v in &inputs {
            let s = v.iter().copied();
            let sum: u64 = s.clone().sum();
            // Collections: every item once, whatever the collection's order.
            let map: std::collections::HashMap<usize, u64> =
                v.iter().copied().enumerate().collect();
            assert_eq!(map.par_iter().map(|(_, x)| *x).sum::<u64>(), sum);
            assert_eq!(
                map.clone().into_par_iter().map(|(i, _)| i).max(),
                v.len().checked_sub(1)
            );
            let mut map2 = map.clone();
            map2.par_iter_mut().for_each(|(_, x)| *x += 1);
            assert_eq!(map2.values().sum::<u64>(), sum + v.len() as u64);
            let set: BTreeSet<u64> = v.iter().copied().collect();
            let in_order: Vec<u64> = set.par_iter().copied().collect();
            assert_eq!(in_order, set.iter().copied().collect::<Vec<_>>());
            let btree: BTreeMap<usize, u64> = v.iter().copied().enumerate().collect();
            let pairs: Vec<(usize, u64)> = btree.par_iter().map(|(k, x)| (*k, *x)).collect();
            assert_eq!(pairs, s.clone().enumerate().collect::<Vec<_>>());
            let mut deque: VecDeque<u64> = v.iter().copied().collect();
            deque.rotate_left(v.len() / 3); // two slices
            deque.par_iter_mut().for_each(|x| *x *= 2);
            let doubled: Vec<u64> = deque.par_iter().copied().collect();
            assert_eq!(doubled, deque.iter().copied().collect::<Vec<_>>());
            assert_eq!(deque.into_par_iter().sum::<u64>(), 2 * sum);
            let list: LinkedList<u64> = v.iter().copied().collect();
            assert_eq!(list.par_iter().copied().collect::<Vec<_>>(), *v);
            let heap: BinaryHeap<u64> = v.iter().copied().collect();
            assert_eq!(heap.par_iter().sum::<u64>(), sum);
            assert_eq!(heap.into_par_iter().count(), v.len());
            assert_eq!(
                v.first().copied().into_par_iter().collect::<Vec<_>>(),
                v.first().copied().into_iter().collect::<Vec<_>>()
            );
            // Collecting into them.
            let into_list: LinkedList<u64> = v.par_iter().copied().collect();
            assert!(into_list.iter().eq(v.iter()));
            let into_heap: BinaryHeap<u64> = v.par_iter().copied().collect();
            assert_eq!(into_heap.into_sorted_vec(), {
                let mut s = v.clone();
                s.sort_unstable();
                s
            });
            let digits: Vec<char> = v
                .iter()
                .map(|x| char::from(b'0' + (x % 10) as u8))
                .collect();
            let text: String = digits.par_iter().collect();
            assert_eq!(text, digits.iter().collect::<String>());
            let boxed: Box<str> = digits.par_iter().copied().collect();
            assert_eq!(&*boxed, text);
            let cows: String = v
                .par_iter()
                .map(|&x| {
                    if x % 2 == 0 {
                        std::borrow::Cow::Borrowed("e")
                    } else {
                        x.to_string().into()
                    }
                })
                .collect();
            assert_eq!(
                cows,
                v.iter()
                    .map(|&x| if x % 2 == 0 {
                        "e".to_string()
                    } else {
                        x.to_string()
                    })
                    .collect::<String>()
            );
            // Array windows, split anywhere (`rev` pieces meet at every split point).
            let a: Vec<[u64; 3]> = v.par_array_windows::<3>().copied().rev().collect();
            let mut b: Vec<[u64; 3]> = v.windows(3).map(|w| [w[0], w[1], w[2]]).collect();
            b.reverse();
            assert_eq!(a, b);
            assert_eq!(v.par_array_windows::<1>().len(), v.len());
            // Slices cut other ways.
            for size in [1, 2, 5, 64] {
                let w: Vec<u64> = v.par_windows(size).map(|w| w.iter().sum()).collect();
                assert_eq!(
                    w,
                    v.windows(size)
                        .map(|w| w.iter().sum())
                        .collect::<Vec<u64>>()
                );
                let exact = v.par_chunks_exact(size);
                assert_eq!(exact.remainder(), v.chunks_exact(size).remainder());
                let e: Vec<&[u64]> = exact.collect();
                assert_eq!(e, v.chunks_exact(size).collect::<Vec<_>>());
                let r: Vec<&[u64]> = v.par_rchunks(size).collect();
                assert_eq!(r, v.rchunks(size).collect::<Vec<_>>());
                let mut a = v.clone();
                let mut b = v.clone();
                a.par_chunks_exact_mut(size)
                    .enumerate()
                    .for_each(|(i, c)| c.fill(i as u64));
                b.chunks_exact_mut(size)
                    .enumerate()
                    .for_each(|(i, c)| c.fill(i as u64));
                assert_eq!(a, b);
                a.par_rchunks_mut(size)
                    .enumerate()
                    .for_each(|(i, c)| c[0] = i as u64);
                b.rchunks_mut(size)
                    .enumerate()
                    .for_each(|(i, c)| c[0] = i as u64);
                assert_eq!(a, b);
            }
            for size in [1, 3, 64] {
                let exact = v.par_rchunks_exact(size);
                assert_eq!(exact.remainder(), v.rchunks_exact(size).remainder());
                let e: Vec<&[u64]> = exact.collect();
                assert_eq!(e, v.rchunks_exact(size).collect::<Vec<_>>());
                let (mut a, mut b) = (v.clone(), v.clone());
                a.par_rchunks_exact_mut(size)
                    .enumerate()
                    .for_each(|(i, c)| c.fill(i as u64));
                b.rchunks_exact_mut(size)
                    .enumerate()
                    .for_each(|(i, c)| c.fill(i as u64));
                assert_eq!(a, b);
            }
            // Slices cut by predicates: common, rare and absent separators.
            for modulus in [2, 5, 1000, u64::MAX] {
                let sep = |x: &u64| x.is_multiple_of(modulus) && modulus != u64::MAX;
                let parts: Vec<&[u64]> = v.par_split(sep).collect();
                assert_eq!(parts, v.split(sep).collect::<Vec<_>>());
                let inclusive: Vec<&[u64]> = v.par_split_inclusive(sep).collect();
                assert_eq!(inclusive, v.split_inclusive(sep).collect::<Vec<_>>());
                let same = |a: &u64, b: &u64| a % modulus <= b % modulus;
                let runs: Vec<&[u64]> = v.par_chunk_by(same).collect();
                assert_eq!(runs, v.chunk_by(same).collect::<Vec<_>>());
                let (mut a, mut b) = (v.clone(), v.clone());
                a.par_split_mut(sep).for_each(|p| p.reverse());
                b.split_mut(sep).for_each(|p| p.reverse());
                assert_eq!(a, b);
                a.par_split_inclusive_mut(sep)
                    .for_each(|p| p.rotate_left(p.len() / 2));
                b.split_inclusive_mut(sep)
                    .for_each(|p| p.rotate_left(p.len() / 2));
                assert_eq!(a, b);
                a.par_chunk_by_mut(same).for_each(|p| p.sort_unstable());
                b.chunk_by_mut(same).for_each(|p| p.sort_unstable());
                assert_eq!(a, b);
                assert_eq!(a.par_split_mut(sep).count(), b.split(sep).count());
            }
            // Zero-sized items: the parts are found by position, not by address.
            let units = vec![(); v.len()];
            let unit_parts: Vec<usize> =
                units.par_chunk_by(|_, _| false).map(<[()]>::len).collect();
            assert_eq!(unit_parts, vec![1; v.len()]);
            let mut units = units;
            assert_eq!(units.par_chunk_by_mut(|_, _| false).count(), v.len());
            // Searches and early ends.
            let parse = |x: &u64| (x % 7 == 3).then_some(x / 7);
            assert_eq!(v.par_iter().find_map_first(parse), v.iter().find_map(parse));
            assert_eq!(
                v.par_iter().find_map_last(parse),
                v.iter().rev().find_map(parse)
            );
            let any = v.par_iter().find_map_any(parse);
            assert_eq!(any.is_some(), v.iter().any(|x| parse(x).is_some()));
            assert!(any.is_none_or(|a| v.iter().any(|x| parse(x) == Some(a))));
            let even: Vec<usize> = v.par_iter().positions(|x| x % 2 == 0).collect();
            let even_std: Vec<usize> = s
                .clone()
                .enumerate()
                .filter(|p| p.1 % 2 == 0)
                .map(|p| p.0)
                .collect();
            assert_eq!(even, even_std);
            let zipped: Vec<(u64, u64)> = v
                .par_iter()
                .copied()
                .zip_eq(v.par_iter().copied().rev())
                .collect();
            assert_eq!(zipped, s.clone().zip(s.clone().rev()).collect::<Vec<_>>());
            let opts: Vec<Option<u64>> = v.iter().map(|&x| (x != 42).then_some(x)).collect();
            let some: Vec<u64> = opts.par_iter().copied().while_some().collect();
            // With no `None`, every value; otherwise a subsequence of the values, in order
            // (the pieces stop wherever they were when one of them met a `None`).
            if opts.iter().all(Option::is_some) {
                assert_eq!(&some, v);
            } else {
                let mut values = opts.iter().flatten();
                assert!(some.iter().all(|x| values.any(|y| y == x)));
            }
            for n in [0, 1, v.len() / 2, v.len(), v.len() + 3] {
                let taken: Vec<u64> = v
                    .par_iter()
                    .copied()
                    .filter(|x| x % 2 == 1)
                    .take_any(n)
                    .collect();
                let odd = s.clone().filter(|x| x % 2 == 1).count();
                assert_eq!(taken.len(), n.min(odd));
                assert!(taken.iter().all(|x| x % 2 == 1));
                let rest = v.par_iter().skip_any(n).count();
                assert_eq!(rest, v.len().saturating_sub(n));
            }
            assert_eq!(v.par_iter().panic_fuse().copied().sum::<u64>(), sum);
        }
    });
}

/// Ranges of unsuffixed literals infer their item type as with `std` and rayon (`i32` by
/// default, or what the consumer asks for): this test compiling is most of it.
#[test]
#[cfg_attr(miri, ignore)] // No unsafe code of its own.
fn slices_cut_by_predicates_test_each_item_once() {
    let mut rng = Rng(0x5eed_c0de_0fc4_7500);
    let inputs: Vec<Vec<u64>> = lengths(&mut rng, 20_000)
        .into_iter()
        .flat_map(|len| {
            // Short runs, and runs of 97 items (so a split scans across several positions).
            let long = (0..len as u64).map(|i| i / 97).collect();
            [random_vec(&mut rng, len, 3), long]
        })
        .collect();
    on_pools(|| {
        let calls = AtomicUsize::new(0);
        let counted = || calls.swap(0, Ordering::Relaxed);
        for v in &inputs {
            for max_len in [1, 7, usize::MAX] {
                // Each pair of neighbours once, as `chunk_by`, however the slice is cut.
                let runs: Vec<&[u64]> = v
                    .par_chunk_by(|a, b| {
                        calls.fetch_add(1, Ordering::Relaxed);
                        a == b
                    })
                    .with_max_len(max_len)
                    .collect();
                assert_eq!(runs, v.chunk_by(|a, b| a == b).collect::<Vec<_>>());
                assert_eq!(counted(), v.len().saturating_sub(1), "max_len {max_len}");
                let mut w = v.clone();
                w.par_chunk_by_mut(|a, b| {
                    calls.fetch_add(1, Ordering::Relaxed);
                    a == b
                })
                .with_max_len(max_len)
                .for_each(|run| run[0] += 1);
                assert_eq!(counted(), v.len().saturating_sub(1), "max_len {max_len}");
                // Each item once, as `split`.
                let is_sep = |x: &u64| {
                    calls.fetch_add(1, Ordering::Relaxed);
                    x.is_multiple_of(3)
                };
                let parts: Vec<&[u64]> = v.par_split(is_sep).with_max_len(max_len).collect();
                assert_eq!(parts, v.split(|x| x.is_multiple_of(3)).collect::<Vec<_>>());
                assert_eq!(counted(), v.len(), "max_len {max_len}");
                // The last item is never asked: the last part ends there either way.
                let parts = v.par_split_inclusive(is_sep).with_max_len(max_len).count();
                assert_eq!(parts, v.split_inclusive(|x| x.is_multiple_of(3)).count());
                assert_eq!(counted(), v.len().saturating_sub(1), "max_len {max_len}");
            }
        }
    });
}

#[test]
fn ranges_of_unsuffixed_literals_infer_their_type() {
    on_pools(|| {
        let sum: i32 = (0..1000).into_par_iter().sum();
        assert_eq!(sum, 499_500);
        assert_eq!(
            (0..1000).into_par_iter().filter(|x| x % 3 == 0).count(),
            334
        );
        let doubled: Vec<u64> = (0..10).into_par_iter().map(|x| x * 2).collect();
        assert_eq!(doubled, (0..10).map(|x| x * 2).collect::<Vec<u64>>());
        assert_eq!((1..=10).into_par_iter().product::<u64>(), 3_628_800);
        assert_eq!((0..100).into_par_iter().max(), Some(99));
        let v: Vec<u8> = vec![7; 50];
        let pairs: Vec<(u32, u8)> = (0..50).into_par_iter().zip(v.par_iter().copied()).collect();
        assert_eq!(pairs[49], (49, 7));
        let positions: usize = (10..=20).into_par_iter().enumerate().map(|(i, _)| i).sum();
        assert_eq!(positions, 55);
    });
}

/// Every integer range is indexed, as in a `for` loop: `(0..=n).rev()` with `n: usize` or
/// `u64` works; an indexed operation on a range whose length no `usize` counts panics.
#[test]
#[cfg_attr(miri, ignore)] // No unsafe code of its own.
fn wide_inclusive_ranges_are_indexed() {
    on_pools(|| {
        let rev: Vec<usize> = (0..=10usize).into_par_iter().rev().collect();
        assert_eq!(rev, (0..=10usize).rev().collect::<Vec<_>>());
        let steps: Vec<i64> = (-7..=10i64).into_par_iter().step_by(3).collect();
        assert_eq!(steps, (-7..=10i64).step_by(3).collect::<Vec<_>>());
        let pairs: Vec<(usize, u64)> = (5..=9u64).into_par_iter().enumerate().collect();
        assert_eq!(pairs, (5..=9u64).enumerate().collect::<Vec<_>>());
        let top: Vec<u64> = (u64::MAX - 3..=u64::MAX).into_par_iter().rev().collect();
        assert_eq!(top, (u64::MAX - 3..=u64::MAX).rev().collect::<Vec<_>>());
        let wide: Vec<(u128, i128)> = (0..4u128)
            .into_par_iter()
            .zip((i128::MIN..=i128::MIN + 3).into_par_iter())
            .collect();
        assert_eq!(
            wide,
            (0..4u128)
                .zip(i128::MIN..=i128::MIN + 3)
                .collect::<Vec<_>>()
        );
        let (high, low) = (5u64, std::hint::black_box(4u64));
        let empty: Vec<u64> = (high..=low).into_par_iter().rev().collect();
        assert!(empty.is_empty());
    });
    let too_long = std::panic::catch_unwind(|| (0..=u64::MAX).into_par_iter().len());
    let message = too_long.expect_err("a length past usize::MAX");
    let message = message
        .downcast_ref::<String>()
        .expect("a formatted message");
    assert!(message.contains("0..=18446744073709551615"), "{message}");
    assert!(
        message.contains("more items than a `usize` can count"),
        "{message}"
    );
}

/// Adaptors that compute positions from their base's length (`rev` from the back, `step_by`
/// and `chunks` by dividing it, `enumerate` by numbering) refuse a range longer than a
/// `usize` counts with the range's own message, not a split that disagrees with the
/// saturated length (an internal error) or a run over 2^64 items. `count` of such a range
/// panics instead of wrapping to 0.
#[test]
#[cfg_attr(miri, ignore)] // No unsafe code of its own.
fn adaptors_that_need_the_length_refuse_a_range_too_long_to_count() {
    type Case = fn() -> usize;
    let cases: [(&str, Case); 6] = [
        ("rev().step_by", || {
            (0..=u64::MAX)
                .into_par_iter()
                .rev()
                .step_by(1 << 62)
                .count()
        }),
        ("step_by", || {
            (0..=u64::MAX).into_par_iter().step_by(3).take(4).count()
        }),
        ("rev", || (0..=u64::MAX).into_par_iter().rev().count()),
        ("enumerate", || {
            (0..=u64::MAX).into_par_iter().enumerate().count()
        }),
        ("chunks", || {
            (0..=u64::MAX).into_par_iter().chunks(3).take(2).count()
        }),
        ("count", || (0..=u64::MAX).into_par_iter().count()),
    ];
    let pool = crate::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    for (name, case) in cases {
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| pool.install(case)));
        let message = super::panic_message(result.expect_err(name));
        assert!(
            message.contains("more items than a `usize` can count"),
            "{name}: {message}"
        );
    }
    // One item fewer fits: the same adaptors give `std`'s answers.
    pool.install(|| {
        let (n, step) = (u64::MAX, 1u64 << 62);
        let got: Vec<u64> = (0..n)
            .into_par_iter()
            .rev()
            .step_by(step as usize)
            .collect();
        assert_eq!(got, (0..n).rev().step_by(step as usize).collect::<Vec<_>>());
        assert_eq!((0..n).into_par_iter().step_by(3).len(), usize::MAX / 3);
    });
}

/// `rev().step_by(k)` skips the items between its steps by splitting them off (`nth`), as
/// `std`'s does on a range: it produces about its output, not its whole input.
#[test]
#[cfg_attr(miri, ignore)] // No unsafe code of its own.
fn rev_step_by_skips_without_producing_the_skipped_items() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    const N: u64 = 1 << 22;
    const STEP: usize = 1 << 16;
    on_pools(|| {
        let produced = AtomicUsize::new(0);
        let got: Vec<u64> = (0..N)
            .into_par_iter()
            .map(|x| {
                produced.fetch_add(1, Ordering::Relaxed);
                x
            })
            .rev()
            .step_by(STEP)
            .collect();
        assert_eq!(got, (0..N).rev().step_by(STEP).collect::<Vec<_>>());
        // Each output pulls one block of at most 256 items from the back.
        let produced = produced.into_inner();
        assert!(produced <= got.len() * 256, "{produced} items produced");
    });
}

#[test]
#[cfg_attr(miri, ignore)] // No unsafe code of its own.
#[cfg(not(blitz_sanitizer))] // See build.rs.
fn generated_sources_match_std() {
    let mut rng = Rng(0x005e_ed0f_9e4e_7a7e);
    let counts = lengths(&mut rng, 20_000);
    on_pools(|| {
        assert_eq!(crate::iter::empty::<u32>().collect::<Vec<_>>(), []);
        assert_eq!(crate::iter::empty::<u32>().len(), 0);
        assert_eq!(crate::iter::once(5u8).collect::<Vec<_>>(), [5]);
        let around: Vec<u32> = crate::iter::once(0u32)
            .chain((1..100u32).into_par_iter())
            .chain(crate::iter::once(100))
            .chain(crate::iter::empty())
            .collect();
        assert_eq!(around, (0..=100u32).collect::<Vec<_>>());
        for &n in &counts {
            let strings: Vec<String> = crate::iter::repeat_n(String::from("ab"), n).collect();
            assert_eq!(
                strings,
                std::iter::repeat_n(String::from("ab"), n).collect::<Vec<_>>()
            );
            assert_eq!(crate::iter::repeatn(3u64, n).sum::<u64>(), 3 * n as u64);
            // `n - 1` clones whatever the splits (the last item is the element itself), and
            // every item dropped once.
            let (clones, drops) = (AtomicUsize::new(0), AtomicUsize::new(0));
            let counted = Counted(&clones, &drops);
            assert_eq!(crate::iter::repeat_n(counted, n).count(), n);
            let seen = (clones.into_inner(), drops.into_inner());
            assert_eq!(
                seen,
                (n.saturating_sub(1), n.max(1)),
                "clones, drops of {n}"
            );
            // `step_by` skips items without making them.
            let clones = AtomicUsize::new(0);
            let drops = AtomicUsize::new(0);
            let stepped = crate::iter::repeat_n(Counted(&clones, &drops), n).step_by(1000);
            assert_eq!(stepped.count(), n.div_ceil(1000));
            assert!(
                clones.into_inner() <= 2 * n.div_ceil(1000) + 64,
                "clones of {n}"
            );
            let indexed: Vec<(usize, char)> =
                crate::iter::repeat('z').take(n).enumerate().collect();
            assert_eq!(
                indexed,
                std::iter::repeat_n('z', n).enumerate().collect::<Vec<_>>()
            );
            let tagged: Vec<(&str, usize)> = crate::iter::repeat("t").zip(0..n).collect();
            assert_eq!(tagged, std::iter::repeat("t").zip(0..n).collect::<Vec<_>>());
            // An endless source, stopped by the consumer.
            assert_eq!(crate::iter::repeat(n).take_any(n).count(), n);
            let mut ticket = std::sync::atomic::AtomicUsize::new(0);
            let before_none = crate::iter::repeat(())
                .map(|()| {
                    let t = ticket.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    (t < n).then_some(t)
                })
                .while_some()
                .count();
            assert!(before_none <= n);
            assert!(*ticket.get_mut() > n.min(before_none));
        }
        assert_eq!(crate::iter::repeat(9u8).find_any(|&x| x == 9), Some(9));
    });
}

#[test]
#[cfg_attr(miri, ignore)] // No unsafe code of its own.
#[cfg(not(blitz_sanitizer))] // See build.rs.
fn split_cuts_where_the_splitter_allows_and_keeps_the_order() {
    let mut rng = Rng(0x0005_9117_c0de);
    let counts = lengths(&mut rng, 50_000);
    on_pools(|| {
        for &n in &counts {
            for limit in [1, 7, 1000] {
                let pieces: Vec<std::ops::Range<usize>> = crate::iter::split(0..n, |r| {
                    if r.len() <= limit {
                        return (r, None);
                    }
                    let mid = r.start + (r.len() / 3).max(1);
                    (r.start..mid, Some(mid..r.end))
                })
                .collect();
                // In order, covering the data exactly once, each piece cut no further than
                // the splitter allowed (a piece the splitter would cut may stay whole).
                let flat: Vec<usize> = pieces.iter().flat_map(|r| r.clone()).collect();
                assert_eq!(flat, (0..n).collect::<Vec<_>>());
                assert!(pieces.iter().all(|r| !r.is_empty() || n == 0));
            }
            // Peeling one item at a time: a chain of cuts, bounded by the schedule.
            let v: Vec<u64> = (0..n as u64).collect();
            let total: u64 = crate::iter::split(v.as_slice(), |s| match s.len() {
                0 | 1 => (s, None),
                _ => (&s[..1], Some(&s[1..])),
            })
            .map(|s| s.iter().sum::<u64>())
            .sum();
            assert_eq!(total, v.iter().sum::<u64>());
        }
    });
}

#[test]
#[cfg_attr(miri, ignore)] // No unsafe code of its own.
#[cfg(not(blitz_sanitizer))] // See build.rs.
fn tree_walks_match_a_recursive_walk() {
    /// A tree as child lists: node `i`'s children are `children[i]`.
    fn prefix(children: &[Vec<usize>], node: usize, out: &mut Vec<usize>) {
        out.push(node);
        for &c in &children[node] {
            prefix(children, c, out);
        }
    }
    fn postfix(children: &[Vec<usize>], node: usize, out: &mut Vec<usize>) {
        for &c in &children[node] {
            postfix(children, c, out);
        }
        out.push(node);
    }
    let mut rng = Rng(0x7ee5_0000_0000_0001);
    let mut trees: Vec<Vec<Vec<usize>>> = Vec::new();
    for size in lengths(&mut rng, 20_000).into_iter().filter(|&n| n > 0) {
        // Random parents below each node: bushy near the root, uneven below.
        let mut children = vec![Vec::new(); size];
        for node in 1..size {
            let parent = rng.below(node);
            children[parent].push(node);
        }
        trees.push(children);
    }
    // A wide root and a path: shapes at both extremes.
    trees.push(
        vec![(1..5000).collect()]
            .into_iter()
            .chain(vec![Vec::new(); 4999])
            .collect(),
    );
    let depth = 100_000;
    trees.push(
        (0..depth)
            .map(|i| {
                if i + 1 < depth {
                    vec![i + 1]
                } else {
                    Vec::new()
                }
            })
            .collect(),
    );
    on_pools(|| {
        for children in &trees {
            let kids = |&n: &usize| children[n].iter().copied();
            let walked: Vec<usize> = crate::iter::walk_tree_prefix(0, kids).collect();
            if children.len() < 50_000 {
                let mut expected = Vec::new();
                prefix(children, 0, &mut expected);
                assert_eq!(walked, expected);
                let mut expected = Vec::new();
                postfix(children, 0, &mut expected);
                let walked: Vec<usize> = crate::iter::walk_tree_postfix(0, kids).collect();
                assert_eq!(walked, expected);
            } else {
                // Too deep for the recursive reference: a path's orders are known.
                assert_eq!(walked, (0..depth).collect::<Vec<_>>());
                let walked: Vec<usize> = crate::iter::walk_tree_postfix(0, kids).collect();
                assert_eq!(walked, (0..depth).rev().collect::<Vec<_>>());
            }
            let sum: usize = crate::iter::walk_tree(0, kids).sum();
            assert_eq!(sum, children.len() * (children.len() - 1) / 2);
        }
        // Owned nodes.
        let names: Vec<String> = crate::iter::walk_tree_prefix(String::from("r"), |s: &String| {
            if s.len() < 3 {
                vec![format!("{s}a"), format!("{s}b")]
            } else {
                Vec::new()
            }
        })
        .collect();
        assert_eq!(names, ["r", "ra", "raa", "rab", "rb", "rba", "rbb"]);
    });
}

/// rayon's smaller pieces: `Either` of two iterators is one, the mutable exact chunks lend and
/// give up their remainder, a `String` collects boxed `str`s, and the iterator types answer
/// to rayon's names.
#[test]
#[cfg_attr(miri, ignore)] // No unsafe code of its own.
fn either_remainders_boxed_strs_and_rayon_type_names() {
    use crate::iter::Either;
    /// Evens or odds below `n`, as one return type.
    fn pick(
        odd: bool,
        n: u64,
    ) -> Either<impl IndexedParallelIterator<Item = u64>, impl IndexedParallelIterator<Item = u64>>
    {
        if odd {
            Either::Right((0..n / 2).into_par_iter().map(|i| 2 * i + 1))
        } else {
            Either::Left((0..n.div_ceil(2)).into_par_iter().map(|i| 2 * i))
        }
    }
    on_pools(|| {
        for n in [0u64, 1, 7, 100_000] {
            for odd in [false, true] {
                let want: Vec<u64> = (0..n).filter(|i| i % 2 == u64::from(odd)).collect();
                assert_eq!(pick(odd, n).len(), want.len());
                assert_eq!(pick(odd, n).collect::<Vec<_>>(), want);
                assert_eq!(
                    pick(odd, n).rev().find_first(|_| true),
                    want.last().copied()
                );
            }
        }
        let mut v: Vec<u32> = (0..10_007).collect();
        let mut chunks = v.par_chunks_exact_mut(10);
        chunks.remainder()[0] = 100;
        let tail = chunks.take_remainder();
        assert_eq!(tail, [100, 10_001, 10_002, 10_003, 10_004, 10_005, 10_006]);
        assert!(chunks.remainder().is_empty());
        chunks.for_each(|c| c[0] += 1);
        let mut chunks = v.par_rchunks_exact_mut(1000);
        assert_eq!(chunks.remainder(), [1, 1, 2, 3, 4, 5, 6]);
        assert_eq!(chunks.take_remainder().len(), 7);
        let words: Vec<Box<str>> = (0..5000).map(|i| i.to_string().into_boxed_str()).collect();
        let joined: String = words.par_iter().cloned().collect();
        assert_eq!(joined, words.concat());
        let chunks: crate::slice::Chunks<'_, u32> = v.par_chunks(3);
        assert_eq!(chunks.len(), 10_007usize.div_ceil(3));
        let owned: crate::vec::IntoIter<u32> = v.clone().into_par_iter();
        assert_eq!(owned.sum::<u32>(), v.iter().sum());
    });
}

/// A range of exactly `usize::MAX` items has that length (as rayon's); one item more has
/// none (`len()` then saturates).
#[test]
fn a_range_of_usize_max_items_has_a_length() {
    let max = usize::MAX;
    assert_eq!((0..max).into_par_iter().opt_len(), Some(max));
    assert_eq!((1..=max).into_par_iter().opt_len(), Some(max));
    assert_eq!((0..=max).into_par_iter().opt_len(), None);
    assert_eq!((0..max as u64).into_par_iter().opt_len(), Some(max));
    assert_eq!((0..=u64::MAX - 1).into_par_iter().opt_len(), Some(max));
    assert_eq!((0..=u64::MAX).into_par_iter().opt_len(), None);
    assert_eq!((5..max as u128 + 5).into_par_iter().opt_len(), Some(max));
    assert_eq!((5..max as u128 + 6).into_par_iter().opt_len(), None);
    assert_eq!((i128::MIN..0).into_par_iter().opt_len(), None);
    assert_eq!((0..10u8).into_par_iter().opt_len(), Some(10));
    let (start, end) = (std::hint::black_box(10u64), 0);
    assert_eq!((start..end).into_par_iter().opt_len(), Some(0));
}

/// Counts its clones and drops.
struct Counted<'a>(&'a AtomicUsize, &'a AtomicUsize);

impl Clone for Counted<'_> {
    fn clone(&self) -> Self {
        self.0.fetch_add(1, Ordering::Relaxed);
        Counted(self.0, self.1)
    }
}

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.1.fetch_add(1, Ordering::Relaxed);
    }
}

/// `repeat_n`'s source makes `n - 1` clones for `n` non-empty pieces: a cut at either end
/// moves the element to the side with the items (a cut at the end made a clone that was never
/// used).
#[test]
fn repeat_cut_at_either_end_moves_the_element() {
    use crate::iter::generate::RepeatSource;
    let (clones, drops) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let source = || RepeatSource {
        element: Some(Counted(&clones, &drops)),
        count: 3,
    };
    for at in [0, 3] {
        let (left, right) = source().par_split_at(at);
        assert_eq!((left.par_len(), right.par_len()), (at, 3 - at));
        assert_eq!(clones.load(Ordering::Relaxed), 0, "a cut at {at}");
        assert_eq!(left.chain(right).count(), 3);
        clones.store(0, Ordering::Relaxed);
    }
    let (left, right) = source().par_split_at(1);
    assert_eq!(left.chain(right).count(), 3);
    // One clone for the cut, one for the first item of the right side.
    assert_eq!(clones.into_inner(), 2);
    assert_eq!(drops.into_inner(), 9);
}
