//! The adaptors against `std`'s.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet, VecDeque};
use std::ffi::OsString;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::{lengths, on_pools, random_vec};
use crate::iter::Either;
use crate::iter::prelude::*;
use crate::test_rng::Rng;

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
            let (words, numbers): (Vec<String>, BTreeMap<u64, u64>) =
                v.par_iter().partition_map(|&x| {
                    if x % 3 == 0 {
                        Either::Left(x.to_string())
                    } else {
                        Either::Right((x, x * 2))
                    }
                });
            let words_std: Vec<String> = s
                .clone()
                .filter(|&&x| x % 3 == 0)
                .map(u64::to_string)
                .collect();
            assert_eq!(words, words_std);
            let numbers_std: BTreeMap<u64, u64> = s
                .clone()
                .filter(|&&x| x % 3 != 0)
                .map(|&x| (x, x * 2))
                .collect();
            assert_eq!(numbers, numbers_std);
            let (left, right): (Vec<u64>, Vec<u64>) = v
                .par_iter()
                .map(|&x| {
                    if x < 500 {
                        Either::Left(x)
                    } else {
                        Either::Right(x)
                    }
                })
                .collect();
            assert_eq!(
                left,
                s.clone().copied().filter(|&x| x < 500).collect::<Vec<_>>()
            );
            assert_eq!(right.len() + left.len(), v.len());
            let (firsts, seconds): (Vec<u64>, VecDeque<String>) =
                v.par_iter().map(|&x| (x, x.to_string())).collect();
            assert_eq!(&firsts, v);
            assert!(
                seconds
                    .iter()
                    .zip(v.iter())
                    .all(|(t, x)| *t == x.to_string())
            );
            let shared: Rc<[u64]> = v.par_iter().copied().collect();
            let arc: Arc<[u64]> = v.par_iter().copied().filter(|x| x % 2 == 0).collect();
            assert_eq!(&shared[..], &v[..]);
            assert_eq!(arc.len(), s.clone().filter(|&&x| x % 2 == 0).count());
            let digits: Cow<'_, str> = v
                .par_iter()
                .map(|x| char::from(b'0' + (x % 10) as u8))
                .collect();
            assert_eq!(digits.len(), v.len());
            let os: OsString = v
                .par_iter()
                .map(|x| OsString::from(x.to_string()))
                .collect();
            assert_eq!(
                os,
                s.clone().map(u64::to_string).collect::<String>().as_str()
            );
            for size in [1, 3, 64] {
                let sums: Vec<u64> = v.par_iter().fold_chunks(size, || 0, |a, x| a + x).collect();
                let sums_std: Vec<u64> = v.chunks(size).map(|c| c.iter().sum()).collect();
                assert_eq!(sums, sums_std);
                let maxima: Vec<u64> = v
                    .par_iter()
                    .fold_chunks_with(size, 0, |m, &x| m.max(x))
                    .collect();
                let maxima_std: Vec<u64> =
                    v.chunks(size).map(|c| *c.iter().max().unwrap()).collect();
                assert_eq!(maxima, maxima_std);
            }
            let (mut evens, mut texts) = (vec![1, 2, 3], vec![String::new()]);
            v.par_iter()
                .map(|&x| (x * 2, x.to_string()))
                .unzip_into_vecs(&mut evens, &mut texts);
            assert_eq!(evens, s.clone().map(|x| x * 2).collect::<Vec<_>>());
            assert!(texts.iter().zip(v.iter()).all(|(t, x)| *t == x.to_string()));
            let list = v.par_iter().filter(|&&x| x % 3 == 0).collect_vec_list();
            assert!(list.iter().all(|piece| !piece.is_empty()));
            let flat: Vec<&u64> = list.into_iter().flatten().collect();
            assert_eq!(flat, s.clone().filter(|&&x| x % 3 == 0).collect::<Vec<_>>());
            // take_any_while and skip_any_while: which items pass depends on the schedule;
            // what holds in every schedule is checked.
            let small: Vec<u64> = v.par_iter().copied().take_any_while(|&x| x < 90).collect();
            assert!(small.iter().all(|&x| x < 90));
            assert!(is_subsequence(&small, v));
            if v.iter().all(|&x| x < 90) {
                assert_eq!(&small, v);
            }
            let rest: Vec<u64> = v.par_iter().copied().skip_any_while(|&x| x < 90).collect();
            assert!(is_subsequence(&rest, v));
            let must_pass = v.iter().filter(|&&x| x >= 90).count();
            assert_eq!(rest.iter().filter(|&&x| x >= 90).count(), must_pass);
            if must_pass == 0 {
                assert!(rest.is_empty());
            }
            // intersperse, over an indexed base and over a filtered one.
            let spread = |items: Vec<u64>| -> Vec<u64> {
                let mut out = Vec::new();
                for (i, x) in items.into_iter().enumerate() {
                    if i > 0 {
                        out.push(1000);
                    }
                    out.push(x);
                }
                out
            };
            let indexed = v.par_iter().copied().intersperse(1000);
            assert_eq!(indexed.len(), (2 * v.len()).saturating_sub(1));
            let indexed: Vec<(usize, u64)> = indexed.enumerate().collect();
            let expected = spread(v.clone());
            assert_eq!(
                indexed,
                expected.iter().copied().enumerate().collect::<Vec<_>>()
            );
            let filtered: Vec<u64> = v
                .par_iter()
                .copied()
                .filter(|x| x % 3 == 0)
                .intersperse(1000)
                .collect();
            assert_eq!(
                filtered,
                spread(s.clone().copied().filter(|x| x % 3 == 0).collect())
            );
            let texts: String = v
                .par_iter()
                .map(u64::to_string)
                .intersperse(",".into())
                .collect();
            assert_eq!(
                texts,
                s.clone().map(u64::to_string).collect::<Vec<_>>().join(",")
            );
            let mut extended = vec![7u64];
            extended.par_extend(v.par_iter().map(|x| x + 1));
            assert_eq!(extended[0], 7);
            assert_eq!(
                &extended[1..],
                &s.clone().map(|x| x + 1).collect::<Vec<_>>()[..]
            );
            // Unindexed: one piece (a short input) or several, after existing items.
            let mut evens = vec![1u64, 2];
            evens.par_extend(v.par_iter().copied().filter(|x| x % 2 == 0));
            assert_eq!(
                evens,
                [1, 2]
                    .into_iter()
                    .chain(s.clone().copied().filter(|x| x % 2 == 0))
                    .collect::<Vec<_>>()
            );
            let mut set = std::collections::BTreeSet::from([u64::MAX]);
            set.par_extend(v.par_iter().copied().filter(|x| x % 3 == 0));
            let mut set_std: std::collections::BTreeSet<u64> =
                s.clone().copied().filter(|x| x % 3 == 0).collect();
            set_std.insert(u64::MAX);
            assert_eq!(set, set_std);
            // A pair of collections takes the halves of pairs.
            let mut pair = (vec![0u64], String::new());
            pair.par_extend(
                v.par_iter()
                    .map(|&x| (x, char::from(b'a' + (x % 26) as u8))),
            );
            assert_eq!(pair.0.len(), v.len() + 1);
            assert!(
                pair.0[1..]
                    .iter()
                    .zip(pair.1.chars())
                    .all(|(&x, c)| c as u64 == 97 + x % 26)
            );
            // A pair of a program's own `ParallelExtend` types (no `Extend`), and of
            // collections that take an `Either`'s sides; an `Either` of collections.
            let mut totals = (Total(1), Total(2));
            totals.par_extend(v.par_iter().map(|&x| (x, 2 * x)));
            let sum = s.clone().sum::<u64>();
            assert_eq!((totals.0.0, totals.1.0), (1 + sum, 2 + 2 * sum));
            let mut sides = (vec![u64::MAX], Total(0));
            sides.par_extend(v.par_iter().map(|&x| {
                if x % 3 == 0 {
                    Either::Left(x)
                } else {
                    Either::Right(x)
                }
            }));
            let thirds: Vec<u64> = s.clone().copied().filter(|x| x % 3 == 0).collect();
            assert_eq!(sides.0[1..], thirds[..]);
            let others: u64 = s.clone().filter(|&&x| x % 3 != 0).sum();
            assert_eq!(sides.1.0, others);
            let (total, copy): (Total, Vec<u64>) = v.par_iter().map(|&x| (x, x)).unzip();
            assert_eq!((total.0, &copy), (sum, v));
            let mut either: Either<Vec<u64>, Total> = Either::Left(vec![]);
            either.par_extend(v.par_iter().copied());
            assert_eq!(either, Either::Left(v.clone()));
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
                // `skip` pulls the items it skips, as `Iterator::skip`: an `inspect` before it
                // sees every item, one before `take` only those taken.
                let seen = AtomicUsize::new(0);
                let count = |_: &u64| _ = seen.fetch_add(1, Ordering::Relaxed);
                let kept = v.par_iter().copied().inspect(count).skip(n).count();
                assert_eq!(
                    (kept, seen.swap(0, Ordering::Relaxed)),
                    (v.len() - n.min(v.len()), v.len())
                );
                let kept = v.par_iter().copied().inspect(count).take(n).count();
                assert_eq!((kept, seen.into_inner()), (n.min(v.len()), n.min(v.len())));
            }
        }
    });
}

#[test]
// No unsafe code of its own (the in-place collect it ends in is covered by the test above).
#[cfg_attr(miri, ignore)]
#[cfg(not(blitz_sanitizer))] // See build.rs.
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
            // interleave and interleave_shortest, against a sequential interleaving.
            for cut in [0, 1, v.len() / 3, v.len()].map(|c| c.min(v.len())) {
                let (a, b) = v.split_at(cut);
                let mut want = Vec::new();
                let (mut ia, mut ib) = (a.iter().copied(), b.iter().copied());
                let mut shortest = None;
                loop {
                    match ia.next() {
                        Some(x) => want.push(x),
                        None => {
                            shortest.get_or_insert(want.len());
                            want.extend(ib.by_ref());
                            break;
                        }
                    }
                    match ib.next() {
                        Some(y) => want.push(y),
                        None => {
                            shortest.get_or_insert(want.len());
                            want.extend(ia.by_ref());
                            break;
                        }
                    }
                }
                let got: Vec<u64> = a
                    .par_iter()
                    .copied()
                    .interleave(b.par_iter().copied())
                    .collect();
                assert_eq!(got, want);
                let en: Vec<(usize, u64)> = a
                    .par_iter()
                    .copied()
                    .interleave(b.to_vec())
                    .enumerate()
                    .collect();
                assert_eq!(en, want.iter().copied().enumerate().collect::<Vec<_>>());
                let short: Vec<u64> = a
                    .par_iter()
                    .copied()
                    .interleave_shortest(b.par_iter().copied())
                    .collect();
                assert_eq!(short, want[..shortest.unwrap()]);
                assert_eq!(
                    a.par_iter().interleave(b).position_last(|&x| x == 5),
                    want.iter().rposition(|&x| x == 5)
                );
                let owned: Vec<String> = owned[..cut]
                    .to_vec()
                    .into_par_iter()
                    .interleave(owned[cut..].to_vec())
                    .collect();
                assert_eq!(
                    owned,
                    want.iter().map(|x| x.to_string()).collect::<Vec<_>>()
                );
            }
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
            // The bridge keeps no order: compare sorted.
            let mut bridged: Vec<u64> = s
                .clone()
                .filter(|x| x % 2 == 0)
                .par_bridge()
                .map(|x| x * 5)
                .collect();
            bridged.sort_unstable();
            let mut expected: Vec<u64> = s.clone().filter(|x| x % 2 == 0).map(|x| x * 5).collect();
            expected.sort_unstable();
            assert_eq!(bridged, expected);
        }
    });
}

/// True if `part` is `whole` with some items left out, the rest in order.
fn is_subsequence(part: &[u64], whole: &[u64]) -> bool {
    let mut rest = whole.iter();
    part.iter().all(|x| rest.any(|y| y == x))
}

#[test]
#[cfg_attr(miri, ignore)] // No unsafe code of its own.
#[cfg(not(blitz_sanitizer))] // See build.rs.
fn comparisons_match_std() {
    let mut rng = Rng(0x0c0f_fee0_c0ff_ee00);
    let mut pairs: Vec<(Vec<u64>, Vec<u64>)> = Vec::new();
    for len in lengths(&mut rng, 20_000) {
        let a = random_vec(&mut rng, len, 4);
        let mut changed = a.clone();
        if len > 0 {
            let at = rng.below(len);
            changed[at] = rng.below(4) as u64;
        }
        let cut = a[..rng.below(len + 1)].to_vec();
        pairs.push((a.clone(), a.clone()));
        pairs.push((a.clone(), changed));
        pairs.push((a.clone(), cut.clone()));
        pairs.push((cut, a));
    }
    on_pools(|| {
        for (a, b) in &pairs {
            let (x, y) = (a.par_iter(), b.par_iter());
            assert_eq!(x.clone().cmp(y.clone()), a.iter().cmp(b.iter()));
            assert_eq!(
                x.clone().partial_cmp(y.clone()),
                a.iter().partial_cmp(b.iter())
            );
            assert_eq!(x.clone().eq(y.clone()), a.iter().eq(b.iter()));
            assert_eq!(x.clone().ne(y.clone()), a.iter().ne(b.iter()));
            assert_eq!(x.clone().lt(y.clone()), a.iter().lt(b.iter()));
            assert_eq!(x.clone().le(y.clone()), a.iter().le(b.iter()));
            assert_eq!(x.clone().gt(y.clone()), a.iter().gt(b.iter()));
            assert_eq!(x.ge(y), a.iter().ge(b.iter()));
        }
        let with_nan = [1.0, f64::NAN, 0.0];
        let other = [1.0, 2.0, 3.0];
        assert_eq!(
            with_nan.par_iter().partial_cmp(&other),
            with_nan.iter().partial_cmp(other.iter())
        );
        assert!(!with_nan.par_iter().le(&other));
        assert!(!with_nan.par_iter().eq(&with_nan));
    });
}

#[test]
#[cfg_attr(miri, ignore)] // No unsafe code of its own.
#[cfg(not(blitz_sanitizer))] // See build.rs.
fn tuples_of_iterators_zip_like_nested_zips() {
    let mut rng = Rng(0x7091_e5ee_d000_0001);
    let inputs: Vec<(Vec<u64>, Vec<u64>)> = lengths(&mut rng, 20_000)
        .into_iter()
        .map(|len| {
            let other = len.saturating_sub(rng.below(3));
            (
                random_vec(&mut rng, len, 1000),
                random_vec(&mut rng, other, 1000),
            )
        })
        .collect();
    on_pools(|| {
        for (a, b) in &inputs {
            let n = a.len().min(b.len());
            let owned = (a.clone(), b.clone());
            let zipped: Vec<(&u64, &u64)> = owned.par_iter().collect();
            assert_eq!(zipped, a.iter().zip(b).collect::<Vec<_>>());
            let mut owned = owned.clone();
            owned.par_iter_mut().for_each(|(x, y)| std::mem::swap(x, y));
            assert!(owned.0.iter().zip(b).all(|(x, y)| x == y));
            let three: Vec<(u64, &u64, usize)> =
                (a.clone(), b, 0..a.len()).into_par_iter().collect();
            assert_eq!(three.len(), n);
            assert!(
                three
                    .iter()
                    .enumerate()
                    .all(|(i, &(x, y, k))| { x == a[i] && *y == b[i] && k == i })
            );
            let mut out = vec![0u64; a.len()];
            (&mut out, a, b)
                .into_par_iter()
                .for_each(|(o, x, y)| *o = x + y);
            assert!(
                out.iter()
                    .take(n)
                    .enumerate()
                    .all(|(i, &o)| o == a[i] + b[i])
            );
            assert!(out.iter().skip(n).all(|&o| o == 0));
            let one: Vec<&u64> = (a,).into_par_iter().map(|(x,)| x).collect();
            assert_eq!(one, a.iter().collect::<Vec<_>>());
            let twelve = (a, a, a, a, a, a, a, a, a, a, a, b).into_par_iter();
            assert_eq!(twelve.len(), n);
            let sum: u64 = twelve.map(|t| t.0 + t.11).sum();
            assert_eq!(sum, a.iter().zip(b).map(|(x, y)| x + y).sum::<u64>());
        }
    });
}

/// A running total: a `ParallelExtend` of the tests' own, without `Extend`.
#[derive(Debug, Default, PartialEq)]
struct Total(u64);

impl ParallelExtend<u64> for Total {
    fn par_extend<I>(&mut self, iter: I)
    where
        I: IntoParallelIterator<Item = u64>,
    {
        self.0 += iter.into_par_iter().sum::<u64>();
    }
}

/// `by_uniform_blocks` and `by_exponential_blocks` run their blocks one after another (every
/// item of a block starts before any item of the next), keep the results in order, and a
/// search that is settled skips the blocks after its hit.
#[test]
fn blocks_run_one_after_another() {
    // Items that take a few microseconds, so that idle workers wake and steal pieces while a
    // block runs: without blocks, a thief starts items far ahead of the owner's.
    let item = |i: usize, started: &AtomicUsize| {
        let start = started.fetch_add(1, Ordering::Relaxed);
        let until = std::time::Instant::now() + std::time::Duration::from_micros(5);
        while !cfg!(miri) && std::time::Instant::now() < until {
            std::hint::spin_loop();
        }
        (i, start)
    };
    let lengths: &[usize] = if cfg!(miri) {
        &[0, 7, 130]
    } else {
        &[0, 1, 7, 100, 1000, 5003]
    };
    on_pools(|| {
        for &len in lengths {
            let started = AtomicUsize::new(0);
            let order: Vec<(usize, usize)> = (0..len)
                .into_par_iter()
                .map(|i| item(i, &started))
                .by_uniform_blocks(64)
                .collect();
            assert!(order.iter().enumerate().all(|(i, &(item, _))| item == i));
            let starts: Vec<usize> = order.iter().map(|&(_, start)| start).collect();
            for (a, b) in starts.chunks(64).zip(starts.chunks(64).skip(1)) {
                assert!(a.iter().max() < b.iter().min(), "len {len}: {starts:?}");
            }

            // Exponential: blocks of `threads`, then twice as long each time.
            let started = AtomicUsize::new(0);
            let starts: Vec<usize> = (0..len)
                .into_par_iter()
                .map(|i| item(i, &started).1)
                .by_exponential_blocks()
                .collect();
            let (mut at, mut size) = (0, crate::current_num_threads());
            while at < len {
                let end = (at + size).min(len);
                if end < len {
                    let block_max = starts[at..end].iter().max();
                    assert!(
                        block_max < starts[end..].iter().min(),
                        "len {len}: {starts:?}"
                    );
                }
                (at, size) = (end, size * 2);
            }

            // A search settled in the first block skips the others.
            let looked = AtomicUsize::new(0);
            let hit = (0..len)
                .into_par_iter()
                .by_uniform_blocks(64)
                .find_first(|&i| {
                    looked.fetch_add(1, Ordering::Relaxed);
                    i >= 3
                });
            assert_eq!(hit, (len > 3).then_some(3));
            assert!(looked.load(Ordering::Relaxed) <= 64, "len {len}");
            let sum: usize = (0..len).into_par_iter().by_exponential_blocks().sum();
            assert_eq!(sum, len * len.saturating_sub(1) / 2);
        }
    });
}

/// Adaptors that hold closures print their other fields and leave the closures out, as
/// rayon's do; an adaptor over them prints through.
#[test]
fn adaptors_holding_closures_print_without_them() {
    let mut v = vec![1u32, 2, 3];
    let shown = [
        format!("{:?}", v.par_iter().map(|x| x + 1)),
        format!("{:?}", v.par_iter().filter(|_| true)),
        format!("{:?}", v.par_iter().filter_map(Some)),
        format!("{:?}", v.par_iter().flat_map(Some)),
        format!("{:?}", v.par_iter().flat_map_iter(Some)),
        format!("{:?}", v.par_iter().map(Some).flatten()),
        format!("{:?}", v.par_iter().fold(|| 0, |x, _| x)),
        format!("{:?}", v.par_iter().fold_with(7, |x, _| x)),
        format!("{:?}", v.par_iter().fold_chunks(2, || 0, |x, _| x)),
        format!("{:?}", v.par_iter().fold_chunks_with(2, 7, |x, _| x)),
        format!("{:?}", v.par_iter().try_fold(|| 0, |x, _| Some(x))),
        format!("{:?}", v.par_iter().try_fold_with(7, |x, _| Some(x))),
        format!("{:?}", v.par_iter().inspect(|_| ())),
        format!("{:?}", v.par_iter().update(|_| ())),
        format!("{:?}", v.par_iter().map_with(7, |_, x| x)),
        format!("{:?}", v.par_iter().map_init(|| 0, |_, x| x)),
        format!("{:?}", v.par_iter().positions(|_| true)),
        format!("{:?}", v.par_iter().take_any_while(|_| true)),
        format!("{:?}", v.par_iter().skip_any_while(|_| false)),
        format!("{:?}", v.par_iter().map(Some).while_some()),
        format!("{:?}", v.par_chunk_by(|a, b| a == b)),
        format!("{:?}", v.par_split(|x| x % 2 == 0)),
        format!("{:?}", v.par_split_inclusive(|x| x % 2 == 0)),
        format!("{:?}", crate::iter::split(0..3, |r| (r, None))),
    ];
    for line in &shown {
        assert!(
            line.contains("[1, 2, 3]") || line.contains("0..3"),
            "{line}"
        );
    }
    assert_eq!(shown[0], "Map { base: Iter { slice: [1, 2, 3] }, .. }");
    assert!(shown[7].contains("init: 7"), "{}", shown[7]);
    assert!(shown[8].contains("size: 2"), "{}", shown[8]);
    let shown_mut = [
        format!("{:?}", v.par_chunk_by_mut(|a, b| a == b)),
        format!("{:?}", v.par_split_mut(|x| x % 2 == 0)),
        format!("{:?}", v.par_split_inclusive_mut(|x| x % 2 == 0)),
    ];
    for line in &shown_mut {
        assert!(line.contains("[1, 2, 3]"), "{line}");
    }
}
