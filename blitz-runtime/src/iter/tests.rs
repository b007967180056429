//! Every consumer and adaptor against `std`'s sequential iterators, on random inputs of random
//! lengths (0 and 1 included), outside a pool and on pools of 1, 2 and 4 workers, with the
//! engine made to share even small inputs (`ALWAYS_SHARE`), so the parallel paths run.

use std::collections::{BTreeMap, HashSet};
use std::num::Wrapping;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::prelude::*;
use crate::ThreadPoolBuilder;
use crate::loops::engine::ALWAYS_SHARE;
use crate::test_panics::quiet_planted_panics;
use crate::test_rng::Rng;

/// Random lengths: the edge cases, then random ones up to `max`.
fn lengths(rng: &mut Rng, max: usize) -> Vec<usize> {
    if cfg!(miri) {
        // Miri interprets every item: a few lengths, each still split by `ALWAYS_SHARE`.
        return vec![0, 1, 3, 17];
    }
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
            }
        }
    });
}

#[test]
fn adaptors_and_collect_match_std() {
    let mut rng = Rng(0xdead_beef_cafe_f00d);
    let inputs: Vec<Vec<u64>> = lengths(&mut rng, 30_000)
        .into_iter()
        .map(|len| random_vec(&mut rng, len, 100))
        .collect();
    on_pools(|| {
        for v in &inputs {
            let s = v.iter();
            let mapped: Vec<u64> = v.par_iter().map(|x| x * 3).collect();
            assert_eq!(mapped, s.clone().map(|x| x * 3).collect::<Vec<_>>());
            let filtered: Vec<u64> = v.par_iter().copied().filter(|x| x % 4 == 1).collect();
            assert_eq!(
                filtered,
                s.clone()
                    .copied()
                    .filter(|x| x % 4 == 1)
                    .collect::<Vec<_>>()
            );
            let fm: Vec<u64> = v
                .par_iter()
                .filter_map(|&x| (x % 5 == 0).then_some(x / 5))
                .collect();
            let fm_std: Vec<u64> = s
                .clone()
                .filter_map(|&x| (x % 5 == 0).then_some(x / 5))
                .collect();
            assert_eq!(fm, fm_std);
            let flat: Vec<u64> = v.par_iter().flat_map_iter(|&x| 0..x % 4).collect();
            assert_eq!(flat, s.clone().flat_map(|&x| 0..x % 4).collect::<Vec<_>>());
            let en: Vec<(usize, u64)> = v.par_iter().cloned().enumerate().collect();
            assert_eq!(en, s.clone().cloned().enumerate().collect::<Vec<_>>());
            let shorter = &v[..v.len() / 2];
            let zipped: Vec<(u64, u64)> =
                v.par_iter().zip(shorter).map(|(a, b)| (*a, *b)).collect();
            let zipped_std: Vec<(u64, u64)> =
                s.clone().zip(shorter).map(|(a, b)| (*a, *b)).collect();
            assert_eq!(zipped, zipped_std);
            for size in [1, 3, 64] {
                let chunked: Vec<Vec<u64>> = v.par_iter().copied().chunks(size).collect();
                let chunked_std: Vec<Vec<u64>> = v.chunks(size).map(<[u64]>::to_vec).collect();
                assert_eq!(chunked, chunked_std);
                let sums: Vec<u64> = v.par_chunks(size).map(|c| c.iter().sum()).collect();
                let sums_std: Vec<u64> = v.chunks(size).map(|c| c.iter().sum()).collect();
                assert_eq!(sums, sums_std);
            }
            for (min, max) in [(1, 1), (100, usize::MAX), (1, 7)] {
                let bounded: Vec<u64> = v
                    .par_iter()
                    .copied()
                    .with_min_len(min)
                    .with_max_len(max)
                    .collect();
                assert_eq!(&bounded, v);
            }
            let (a, b): (Vec<u64>, Vec<u64>) = v.par_iter().map(|&x| (x, x + 1)).unzip();
            assert_eq!((a.as_slice(), b.len()), (v.as_slice(), v.len()));
            assert!(b.iter().zip(v).all(|(b, x)| *b == x + 1));
            let (c, d): (Vec<u64>, Vec<u64>) = v
                .par_iter()
                .filter(|&&x| x % 2 == 0)
                .map(|&x| (x, x * 2))
                .unzip();
            let evens: Vec<u64> = s.clone().copied().filter(|x| x % 2 == 0).collect();
            assert_eq!(c, evens);
            assert_eq!(d, evens.iter().map(|x| x * 2).collect::<Vec<_>>());
            let set: HashSet<u64> = v.par_iter().copied().collect();
            assert_eq!(set, s.clone().copied().collect::<HashSet<_>>());
            let map: BTreeMap<usize, u64> = v.par_iter().copied().enumerate().collect();
            assert_eq!(map.len(), v.len());
            let text: String = v.par_iter().map(|x| x.to_string()).collect();
            assert_eq!(text, s.clone().map(|x| x.to_string()).collect::<String>());
            // Ranges and owned vectors.
            let squares: Vec<u64> = (0..v.len() as u64).into_par_iter().map(|i| i * i).collect();
            assert!(
                squares
                    .iter()
                    .enumerate()
                    .all(|(i, &q)| q == (i * i) as u64)
            );
            assert_eq!(
                (0..=v.len() as u32)
                    .into_par_iter()
                    .map(u64::from)
                    .sum::<u64>(),
                (0..=v.len() as u64).sum::<u64>()
            );
            let owned: Vec<String> = v.iter().map(|x| x.to_string()).collect();
            let owned_iter = owned.clone().into_par_iter();
            assert_eq!(owned_iter.opt_len(), Some(owned.len()));
            let moved: Vec<String> = owned_iter.map(std::convert::identity).collect();
            assert_eq!(moved, owned);
            let mut w = v.clone();
            w.par_iter_mut().for_each(|x| *x += 1);
            assert!(w.iter().zip(v).all(|(a, b)| *a == b + 1));
            let flat: Vec<u64> = v
                .par_iter()
                .flat_map(|&x| (0..x % 4).into_par_iter())
                .collect();
            assert_eq!(flat, s.clone().flat_map(|&x| 0..x % 4).collect::<Vec<_>>());
            let (small, big): (Vec<u64>, Vec<u64>) = v.par_iter().copied().partition(|&x| x < 50);
            let (small_std, big_std): (Vec<u64>, Vec<u64>) = s.clone().partition(|&&x| x < 50);
            assert_eq!((small, big), (small_std, big_std));
            let (odd_text, even_text): (Vec<String>, Vec<String>) = v
                .par_iter()
                .map(|x| x.to_string())
                .partition(|t| t.ends_with(['1', '3', '5', '7', '9']));
            let odd_set: HashSet<u64> = odd_text.iter().map(|t| t.parse().unwrap()).collect();
            assert_eq!(odd_set, s.clone().copied().filter(|x| x % 2 == 1).collect());
            assert_eq!(even_text.len(), s.clone().filter(|&&x| x % 2 == 0).count());
            let (odd, even): (HashSet<u64>, Vec<u64>) =
                v.par_iter().copied().partition(|x| x % 2 == 1);
            assert_eq!(odd, odd_set);
            assert_eq!(
                even,
                s.clone()
                    .copied()
                    .filter(|x| x % 2 == 0)
                    .collect::<Vec<_>>()
            );
            let mut extended = vec![7u64];
            extended.par_extend(v.par_iter().map(|x| x + 1));
            assert_eq!(extended[0], 7);
            assert_eq!(
                &extended[1..],
                &s.clone().map(|x| x + 1).collect::<Vec<_>>()[..]
            );
            let mut text = String::from(">");
            text.par_extend(v.par_iter().filter(|&&x| x < 10).map(|x| x.to_string()));
            let text_std: String = s
                .clone()
                .filter(|&&x| x < 10)
                .map(|x| x.to_string())
                .collect();
            assert_eq!(text, format!(">{text_std}"));
            // map_with: every piece gets its own clone of the value (a counter here, so the
            // items of one piece see 0, 1, 2, ..), and the results are those of std's map.
            let with: Vec<(u64, u64)> = v
                .par_iter()
                .map_with(0u64, |calls, &x| {
                    *calls += 1;
                    (x * 2, *calls)
                })
                .collect();
            assert_eq!(
                with.iter().map(|p| p.0).collect::<Vec<_>>(),
                s.clone().map(|x| x * 2).collect::<Vec<_>>()
            );
            assert!(
                with.first().is_none_or(|p| p.1 == 1),
                "a piece starts from the clone"
            );
            let (sender, receiver) = std::sync::mpsc::channel();
            v.par_iter()
                .for_each_with(sender, |s, &x| s.send(x).unwrap());
            let mut sent: Vec<u64> = receiver.iter().collect();
            sent.sort_unstable();
            let mut sorted = v.clone();
            sorted.sort_unstable();
            assert_eq!(sent, sorted);
            let seen = AtomicUsize::new(0);
            let inspected: Vec<u64> = v
                .par_iter()
                .copied()
                .inspect(|_| {
                    seen.fetch_add(1, Ordering::Relaxed);
                })
                .collect();
            assert_eq!((&inspected, seen.into_inner()), (v, v.len()));
            // skip and take: before, after and across the end, on borrowed and owned items.
            for n in [0, 1, v.len() / 3, v.len(), v.len() + 5] {
                let skipped: Vec<u64> = v.par_iter().copied().skip(n).collect();
                assert_eq!(skipped, s.clone().copied().skip(n).collect::<Vec<_>>());
                let taken: Vec<(usize, u64)> = v.par_iter().copied().enumerate().take(n).collect();
                let taken_std: Vec<(usize, u64)> = s.clone().copied().enumerate().take(n).collect();
                assert_eq!(taken, taken_std);
                let window = v.par_iter().skip(n / 2).take(n).len();
                assert_eq!(window, s.clone().skip(n / 2).take(n).count());
                let owned_cut: Vec<String> =
                    owned.clone().into_par_iter().skip(n / 2).take(n).collect();
                let owned_cut_std: Vec<String> =
                    owned.iter().skip(n / 2).take(n).cloned().collect();
                assert_eq!(owned_cut, owned_cut_std);
            }
        }
    });
}

#[test]
// No unsafe code of its own (the in-place collect it ends in is covered by the test above).
#[cfg_attr(miri, ignore)]
fn reordering_and_combining_adaptors_match_std() {
    let mut rng = Rng(0x5eed_0fc4_a14e_5eed);
    let inputs: Vec<Vec<u64>> = lengths(&mut rng, 30_000)
        .into_iter()
        .map(|len| random_vec(&mut rng, len, 100))
        .collect();
    on_pools(|| {
        for v in &inputs {
            let s = v.iter().copied();
            let owned: Vec<String> = v.iter().map(|x| x.to_string()).collect();
            // rev: alone, under and over other indexed adaptors, owned, and searched.
            let rev: Vec<u64> = v.par_iter().copied().rev().collect();
            assert_eq!(rev, s.clone().rev().collect::<Vec<_>>());
            let rev_en: Vec<(usize, u64)> = v.par_iter().copied().rev().enumerate().collect();
            assert_eq!(rev_en, s.clone().rev().enumerate().collect::<Vec<_>>());
            let en_rev: Vec<(usize, u64)> = v.par_iter().copied().enumerate().rev().collect();
            assert_eq!(en_rev, s.clone().enumerate().rev().collect::<Vec<_>>());
            let zip_rev: Vec<(u64, u64)> = v
                .par_iter()
                .copied()
                .zip(v.par_iter().copied().rev())
                .collect();
            assert_eq!(zip_rev, s.clone().zip(s.clone().rev()).collect::<Vec<_>>());
            let owned_rev: Vec<String> = owned.clone().into_par_iter().rev().skip(2).collect();
            assert_eq!(
                owned_rev,
                owned.iter().rev().skip(2).cloned().collect::<Vec<_>>()
            );
            assert_eq!(
                v.par_iter().rev().position_first(|&x| x == 7),
                s.clone().rev().position(|x| x == 7)
            );
            assert_eq!(
                v.par_iter()
                    .enumerate()
                    .rev()
                    .find_first(|&(_, &x)| x < 3)
                    .map(|p| p.0),
                s.clone()
                    .enumerate()
                    .rev()
                    .find(|&(_, x)| x < 3)
                    .map(|p| p.0)
            );
            assert_eq!(v.par_iter().rev().len(), v.len());
            let rev_sum: u64 = (0..v.len() as u64)
                .into_par_iter()
                .rev()
                .map(|i| i * 3)
                .sum();
            assert_eq!(rev_sum, (0..v.len() as u64).map(|i| i * 3).sum::<u64>());
            // step_by: several steps, under and over other adaptors.
            for step in [1, 2, 3, 64, v.len().max(1), v.len() + 7] {
                let stepped: Vec<u64> = v.par_iter().copied().step_by(step).collect();
                assert_eq!(stepped, s.clone().step_by(step).collect::<Vec<_>>());
                let en: Vec<(usize, u64)> =
                    v.par_iter().copied().step_by(step).enumerate().collect();
                assert_eq!(en, s.clone().step_by(step).enumerate().collect::<Vec<_>>());
                let back: Vec<u64> = v.par_iter().copied().rev().step_by(step).collect();
                assert_eq!(back, s.clone().rev().step_by(step).collect::<Vec<_>>());
                let stepped_rev: Vec<u64> = v.par_iter().copied().step_by(step).rev().collect();
                let mut stepped_rev_std: Vec<u64> = s.clone().step_by(step).collect();
                stepped_rev_std.reverse();
                assert_eq!(stepped_rev, stepped_rev_std);
                assert_eq!(
                    v.par_iter().step_by(step).len(),
                    s.clone().step_by(step).count()
                );
                let owned_step: Vec<String> = owned.clone().into_par_iter().step_by(step).collect();
                assert_eq!(
                    owned_step,
                    owned.iter().step_by(step).cloned().collect::<Vec<_>>()
                );
            }
            // chain: indexed on both sides, unindexed, and searched across the seam.
            let half = v.len() / 2;
            let chained: Vec<u64> = v[..half].par_iter().chain(&v[half..]).copied().collect();
            assert_eq!(&chained, v);
            let chained_en: Vec<(usize, u64)> =
                v.par_iter().copied().chain(0..5u64).enumerate().collect();
            assert_eq!(
                chained_en,
                s.clone().chain(0..5).enumerate().collect::<Vec<_>>()
            );
            assert_eq!(v.par_iter().chain(v.par_iter()).len(), 2 * v.len());
            let filtered: Vec<u64> = v
                .par_iter()
                .copied()
                .filter(|x| x % 3 == 0)
                .chain(v.par_iter().copied().rev().filter(|x| x % 3 == 1))
                .collect();
            let filtered_std: Vec<u64> = s
                .clone()
                .filter(|x| x % 3 == 0)
                .chain(s.clone().rev().filter(|x| x % 3 == 1))
                .collect();
            assert_eq!(filtered, filtered_std);
            assert_eq!(
                v.par_iter().chain(v.par_iter()).position_last(|&x| x == 9),
                [&v[..], &v[..]].concat().iter().rposition(|&x| x == 9)
            );
            let owned_chain: Vec<String> = owned
                .clone()
                .into_par_iter()
                .chain(owned.clone())
                .skip(half)
                .collect();
            let owned_chain_std: Vec<String> =
                owned.iter().chain(&owned).skip(half).cloned().collect();
            assert_eq!(owned_chain, owned_chain_std);
            // flatten and flatten_iter.
            let rows: Vec<Vec<u64>> = v.chunks(7).map(|c| c[..c.len() % 5].to_vec()).collect();
            let flat: Vec<u64> = rows.clone().into_par_iter().flatten().collect();
            assert_eq!(flat, rows.iter().flatten().copied().collect::<Vec<_>>());
            let flat_iter: Vec<u64> = rows.par_iter().flatten_iter().copied().collect();
            assert_eq!(flat_iter, flat);
            // map_init: one value per piece, made when it starts.
            let inits = AtomicUsize::new(0);
            let mapped: Vec<(u64, usize)> = v
                .par_iter()
                .map_init(
                    || {
                        inits.fetch_add(1, Ordering::Relaxed);
                        0usize
                    },
                    |calls, &x| {
                        *calls += 1;
                        (x + 1, *calls)
                    },
                )
                .collect();
            assert_eq!(
                mapped.iter().map(|p| p.0).collect::<Vec<_>>(),
                s.clone().map(|x| x + 1).collect::<Vec<_>>()
            );
            assert!(mapped.first().is_none_or(|p| p.1 == 1));
            let inits = inits.into_inner();
            assert!(
                inits <= v.len().max(1),
                "{inits} inits for {} items",
                v.len()
            );
            // update, and par_bridge from a sequential iterator.
            let updated: Vec<String> = owned.par_iter().cloned().update(|t| t.push('!')).collect();
            assert!(
                updated
                    .iter()
                    .zip(&owned)
                    .all(|(u, o)| *u == format!("{o}!"))
            );
            let bridged: Vec<u64> = s
                .clone()
                .filter(|x| x % 2 == 0)
                .par_bridge()
                .map(|x| x * 5)
                .collect();
            assert_eq!(
                bridged,
                s.clone()
                    .filter(|x| x % 2 == 0)
                    .map(|x| x * 5)
                    .collect::<Vec<_>>()
            );
        }
    });
}

/// Random text from pieces that stress the part boundaries: multi-byte chars, Unicode and
/// ASCII whitespace runs, `\r\n` and bare `\n`, empty lines, separators at both ends.
fn random_text(rng: &mut Rng, pieces: usize) -> String {
    const PIECES: [&str; 14] = [
        "a", "bc", "é", "日本", "🦀", " ", "  ", "\t", "\u{2003}", "\n", "\r\n", ",", ",,", "x,y",
    ];
    (0..pieces)
        .map(|_| PIECES[rng.below(PIECES.len())])
        .collect()
}

#[test]
#[cfg_attr(miri, ignore)] // No unsafe code of its own.
fn string_parts_match_std() {
    let mut rng = Rng(0x7e47_0b1e_57a1_d00d);
    let mut texts: Vec<String> = vec![
        String::new(),
        ",".into(),
        "\n".into(),
        "é".into(),
        " a".into(),
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
            let by_fn: Vec<&str> = t.par_split(char::is_whitespace).collect();
            assert_eq!(by_fn, t.split(char::is_whitespace).collect::<Vec<_>>());
            let count = t.par_lines().filter(|l| l.contains('a')).count();
            assert_eq!(count, t.lines().filter(|l| l.contains('a')).count());
        }
    });
}

#[test]
#[cfg_attr(miri, ignore)] // No unsafe code of its own.
fn collections_slices_and_searches_match_std() {
    use std::collections::{BTreeSet, BinaryHeap, LinkedList, VecDeque};
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

/// Ranges of unsuffixed literals infer their item type as with `std` and rayon (`i32` by
/// default, or what the consumer asks for): this test compiling is most of it.
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
