//! Tests of the splitting engine.
use super::*;
use crate::ThreadPoolBuilder;
use std::sync::Mutex;

/// The pieces a run visits, as (offset, len), sorted.
fn pieces(len: usize, grain: usize, threads: Option<usize>) -> Vec<(usize, usize)> {
    let seen = Mutex::new(Vec::new());
    let run = || {
        drive(
            0..len,
            grain,
            &NeverStop,
            &|piece: std::ops::Range<usize>, offset| {
                assert_eq!(piece.start, offset, "offsets are source indices");
                seen.lock().unwrap().push((offset, piece.len()));
                piece.len()
            },
            &|a, b| a + b,
        )
    };
    let total = match threads {
        Some(n) => ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
            .install(run),
        None => run(),
    };
    assert_eq!(total, len);
    let mut seen = seen.into_inner().unwrap();
    seen.sort_unstable();
    seen
}

#[test]
fn pieces_tile_the_source_in_and_out_of_a_pool() {
    // Not outside a pool under Miri: the global pool's threads would outlive the test.
    let pools: &[Option<usize>] = if cfg!(miri) {
        &[Some(2)]
    } else {
        &[None, Some(2), Some(4)]
    };
    for &threads in pools {
        for len in [0, 1, 2, 3, 17, 1000, if cfg!(miri) { 300 } else { 300_000 }] {
            for grain in [0, 1, 7, 64] {
                let seen = pieces(len, grain, threads);
                let mut next = 0;
                for &(offset, piece_len) in &seen {
                    assert_eq!(offset, next, "gap or overlap: {seen:?}");
                    next += piece_len;
                }
                assert_eq!(next, len);
                // Every piece respects the grain, unless the whole source is shorter.
                if len >= grain.max(1) {
                    assert!(
                        seen.iter().all(|&(_, l)| l >= grain.max(1)),
                        "grain {grain}: {seen:?}"
                    );
                } else {
                    assert_eq!(seen.len(), 1);
                }
            }
        }
    }
}

/// A source of `usize::MAX` items is split at once, at its true middle: no probe cuts its
/// front off first (which would move the middle, and with it where a peer's first piece
/// starts: `find_any` over a huge range could then never reach a hit just past the middle).
#[test]
fn a_saturated_source_is_halved_at_its_true_middle() {
    let pools: &[Option<usize>] = if cfg!(miri) {
        &[Some(2)]
    } else {
        &[None, Some(2)]
    };
    for &threads in pools {
        let seen = pieces(usize::MAX, 0, threads);
        assert!(
            seen.iter().any(|&(offset, _)| offset == usize::MAX / 2),
            "{seen:?}"
        );
    }
}

/// A loop whose first item took the probe's whole limit is shared at once on its next
/// run (its leftmost piece comes from the split, not from a one-item probe step); a run
/// that finds the items cheap clears the mark, and the loop is probed again. (Not under
/// Miri, whose clock runs the limit at a different scale.)
#[test]
#[cfg_attr(miri, ignore)]
fn a_site_with_expensive_items_skips_the_probe_until_they_turn_cheap() {
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    // One closure, so one site, for every run; returns the length of the leftmost piece.
    let run = |expensive: bool| {
        let leftmost = Mutex::new(0);
        pool.install(|| {
            drive(
                0..64usize,
                1,
                &NeverStop,
                &|piece: std::ops::Range<usize>, offset| {
                    if offset == 0 {
                        *leftmost.lock().unwrap() = piece.len();
                    }
                    if expensive {
                        std::thread::sleep(std::time::Duration::from_millis(1));
                    }
                    piece.len()
                },
                &|a, b| a + b,
            )
        });
        leftmost.into_inner().unwrap()
    };
    // Another test's loop may take the site's slot in the table between two runs: a few
    // attempts.
    let skipped = (0..3).any(|_| {
        assert_eq!(run(true), 1, "probed: its first step is one item");
        run(true) > 1
    });
    assert!(skipped, "the second expensive run was probed too");
    let probed_again = (0..10).any(|_| run(false) == 1);
    assert!(probed_again, "cheap runs never cleared the mark");
}

/// A probe step grows 4x until 16 minimal steps' worth of items ran, then up to 256x: a first
/// item that costs nothing (one a `filter` rejects) cannot send the next 255 items to the
/// caller alone. Near the limit a step takes what fits in the time left, at the rate so far.
#[test]
fn probe_steps_grow_slowly_until_the_sample_is_large() {
    use super::next_probe_step;
    let plenty = 1 << 20;
    // Items of 1 tick each, far from the limit: 1, 3, 12 items, then 256x, aligned.
    assert_eq!(next_probe_step(1, 1, plenty, 1, usize::MAX), 3);
    assert_eq!(next_probe_step(4, 4, plenty, 1, usize::MAX), 12);
    assert_eq!(
        next_probe_step(16, 16, plenty, 1, usize::MAX),
        16 * 256 - 16
    );
    // A grain of 8: the early growth lasts until 128 items.
    assert_eq!(next_probe_step(8, 8, plenty, 8, usize::MAX), 24);
    assert_eq!(
        next_probe_step(128, 128, plenty, 8, usize::MAX),
        128 * 256 - 128
    );
    // Near the limit: 100 ticks left at 10 ticks per item fits 10 more (aligned to 16).
    assert_eq!(next_probe_step(6, 60, 100, 1, usize::MAX), 10);
    // A source's maximum piece bounds the step.
    assert_eq!(next_probe_step(16, 16, plenty, 1, 100), 100);
}

/// The pieces one probe runs, in the order it runs them, and what it returns: `Some(n)` if
/// it ran the whole loop (`n` items), `None` if it left a rest to share. `limit` is in
/// [`timestamp`] units; item `i` sleeps `sleep(i)`.
fn probed_pieces(
    len: usize,
    limit: u64,
    memory: (&SiteTable, Site),
    short_before: bool,
    sleep: impl Fn(usize) -> std::time::Duration,
) -> (Vec<(usize, usize)>, Option<usize>) {
    let seen = Mutex::new(Vec::new());
    let leaf = |piece: std::ops::Range<usize>, offset: usize| {
        assert_eq!(piece.start, offset);
        for i in piece.clone() {
            std::thread::sleep(sleep(i));
        }
        seen.lock().unwrap().push((offset, piece.len()));
        piece.len()
    };
    let probed = probe(
        0..len,
        1,
        limit,
        memory,
        short_before,
        &NeverStop,
        &leaf,
        &|a, b| a + b,
    );
    let done = match probed {
        Probed::Done(n) => Some(n),
        Probed::Rest(..) | Probed::Sampled { .. } => None,
    };
    (seen.into_inner().unwrap(), done)
}

/// A loop that ran whole on its caller, well within the limit, is remembered with its
/// length; the next run of up to twice as many items skips the early steps (after its first
/// item, the rest in one step, its last items first), and so does not remember it again. A
/// run that has to share forgets it.
#[test]
fn a_short_loop_skips_the_early_steps_on_its_next_run() {
    use crate::loops::history::Remembered;
    let table = SiteTable::new();
    let site = Site::of(0x5a5a_0010);
    let plenty = u64::MAX / 4;
    let no_sleep = |_| std::time::Duration::ZERO;
    let (first, done) = probed_pieces(2000, plenty, (&table, site), false, no_sleep);
    assert_eq!(done, Some(2000));
    assert_eq!(first, [(0, 1), (1, 3), (4, 12), (1996, 4), (16, 1980)]);
    assert_eq!(table.recall(site), Remembered::ShortLoop { len: 2000 });

    let (next, done) = probed_pieces(4000, plenty, (&table, site), true, no_sleep);
    assert_eq!(done, Some(4000));
    assert_eq!(next, [(0, 1), (3996, 4), (1, 3995)]);
    assert_eq!(table.recall(site), Remembered::ShortLoop { len: 2000 });

    // No time at all: the first item and the sample are over the limit, and the rest is left
    // to share.
    let (shared, done) = probed_pieces(2000, 0, (&table, site), true, no_sleep);
    assert_eq!((shared.as_slice(), done), (&[(0, 1), (1996, 4)][..], None));
    assert_eq!(table.recall(site), Remembered::Nothing);

    // A loop of fewer than `SHORT_LOOP_MIN_STEPS` items is not remembered (a recursion's loop
    // over a node's children); one of that many is.
    let few = SHORT_LOOP_MIN_STEPS - 1;
    assert_eq!(
        probed_pieces(few, plenty, (&table, site), false, no_sleep).1,
        Some(few)
    );
    assert_eq!(table.recall(site), Remembered::Nothing);
    let (_, done) = probed_pieces(few + 1, plenty, (&table, site), false, no_sleep);
    assert_eq!(done, Some(few + 1));
    assert_eq!(table.recall(site), Remembered::ShortLoop { len: few + 1 });
}

/// The least time (in [`timestamp`] units) that three sleeps of `duration` took.
fn least_ticks_of_sleep(duration: std::time::Duration) -> u64 {
    (0..3)
        .map(|_| {
            let started = timestamp();
            std::thread::sleep(duration);
            timestamp().wrapping_sub(started)
        })
        .min()
        .unwrap()
}

/// A run of a loop remembered as short whose first item or last items take a good part of the
/// limit (its items cost more than last time) is shared after them, and forgotten as a short
/// loop. (Not under Miri, whose clock runs at a different scale.)
#[test]
#[cfg_attr(miri, ignore)]
fn a_short_loop_whose_items_turn_slow_is_shared() {
    use crate::loops::history::Remembered;
    let table = SiteTable::new();
    let site = Site::of(0x5a5a_0020);
    let sleep = std::time::Duration::from_millis(10);
    // The limit: eight times the least a sleep took, so a sleeping item takes at least an
    // eighth of it (more than `1 / SHORT_ITEM`) and, unless its sleep overshoots by 70 ms,
    // less than all of it.
    let limit = 8 * least_ticks_of_sleep(sleep);
    let slow_first = |i: usize| if i == 0 { sleep } else { Default::default() };
    let slow_last = |i: usize| if i == 1999 { sleep } else { Default::default() };
    for slow in [&slow_first as &dyn Fn(usize) -> _, &slow_last] {
        table.remember_short_loop(site, 2000);
        let (pieces, done) = probed_pieces(2000, limit, (&table, site), true, slow);
        assert_eq!((pieces.as_slice(), done), (&[(0, 1), (1996, 4)][..], None));
        assert_eq!(table.recall(site), Remembered::Nothing);
    }
}

/// Items that take long are shared: a probe does not keep them on the caller. (Not under
/// Miri, whose clock runs the probe's limit at a different scale.)
#[test]
#[cfg_attr(miri, ignore)]
fn a_slow_loop_is_shared() {
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let items = 64;
    let ran_on = Mutex::new([0usize; 2]);
    pool.install(|| {
        drive(
            0..items,
            1,
            &NeverStop,
            &|piece: std::ops::Range<usize>, _| {
                for _ in piece {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                    ran_on.lock().unwrap()[crate::current_thread_index().unwrap()] += 1;
                }
            },
            &|(), ()| (),
        )
    });
    let ran_on = ran_on.into_inner().unwrap();
    assert_eq!(ran_on[0] + ran_on[1], items);
    assert!(ran_on[0] > 0 && ran_on[1] > 0, "{ran_on:?}");
}

/// A stop that says yes once `set`, for every piece, or for the pieces wholly before
/// `before` when running from the back.
struct StopWhenSet<const FROM_BACK: bool> {
    set: std::sync::atomic::AtomicBool,
    before: usize,
}

impl<const B: bool> Stop for StopWhenSet<B> {
    const FROM_BACK: bool = B;
    fn skip(&self, offset: usize, len: usize) -> bool {
        self.set.load(std::sync::atomic::Ordering::Relaxed) && (!B || offset + len <= self.before)
    }
}

/// A leaf that settles a search stops at the end of its block, not of its piece; the
/// rest is handed to the leaf as an empty piece (so it drops its items), and the results
/// come back in source order, whichever end ran first.
#[test]
fn a_search_leaf_stops_between_blocks() {
    /// Runs a search leaf over `0..len` in blocks; the block holding `hit` settles it.
    /// Returns the leaf's calls and the items covered, as a range (results are ranges,
    /// and combining checks that they are adjacent and in order).
    fn run<const B: bool>(
        len: usize,
        hit: usize,
        min_len: usize,
    ) -> (Vec<(usize, usize)>, std::ops::Range<usize>) {
        let stop = StopWhenSet::<B> {
            set: false.into(),
            before: hit,
        };
        let calls = Mutex::new(Vec::new());
        let covered = leaf_in_blocks(
            0..len,
            0,
            min_len,
            &stop,
            &|piece: std::ops::Range<usize>, offset| {
                assert_eq!(piece.start, offset);
                calls.lock().unwrap().push((offset, piece.len()));
                if piece.contains(&hit) {
                    stop.set.store(true, std::sync::atomic::Ordering::Relaxed);
                }
                // Look at every item, as a search's leaf would.
                let end = piece.clone().fold(piece.start, |_, i| i + 1);
                piece.start..end
            },
            &|a: std::ops::Range<usize>, b: std::ops::Range<usize>| {
                assert!(
                    a.end == b.start || a.is_empty() || b.is_empty(),
                    "{a:?} {b:?}"
                );
                if a.is_empty() {
                    b
                } else if b.is_empty() {
                    a
                } else {
                    a.start..b.end
                }
            },
        );
        (calls.into_inner().unwrap(), covered)
    }
    let len = if cfg!(miri) { 5_000 } else { 10_000_000 };
    for min_len in [1, 7, 1000] {
        // From the front: the blocks up to the hit run, then one empty piece.
        let (calls, covered) = run::<false>(len, len / 3, min_len);
        let (last_offset, last_len) = *calls.last().unwrap();
        assert_eq!(last_len, 0, "{calls:?}");
        assert!(last_offset > len / 3 && last_offset < len / 2, "{calls:?}");
        assert_eq!(covered, 0..last_offset);
        assert!(calls[..calls.len() - 1].iter().all(|&(_, l)| l >= min_len));
        // From the back: the blocks down to the hit run, then the front as an empty
        // piece.
        let (calls, covered) = run::<true>(len, len * 2 / 3, min_len);
        let (first_kept, _) = calls[calls.len() - 2];
        assert_eq!(calls.last().unwrap(), &(0, 0), "{calls:?}");
        assert!(
            first_kept <= len * 2 / 3 && first_kept > len / 2,
            "{calls:?}"
        );
        assert_eq!(covered, first_kept..len);
    }
    // Nothing stops it: every item, in blocks of at least the minimum.
    for len in [0, 1, 2, 9, 1000] {
        for min_len in [1, 3, 16] {
            let (calls, covered) = run::<false>(len, usize::MAX, min_len);
            assert_eq!(covered.len(), len);
            assert!(
                len < min_len || calls.iter().all(|&(_, l)| l >= min_len),
                "{calls:?}"
            );
            let (_, covered) = run::<true>(len, usize::MAX, min_len);
            assert_eq!(covered.len(), len);
        }
    }
}

/// A source of `len` nominal items whose minimum piece becomes unbounded once `ends_after`
/// items were taken, as a bridge's does when its iterator ends.
struct EndingSource<'a> {
    range: std::ops::Range<usize>,
    taken: &'a std::sync::atomic::AtomicUsize,
    ends_after: usize,
}

impl IntoIterator for EndingSource<'_> {
    type Item = usize;
    type IntoIter = std::ops::Range<usize>;
    fn into_iter(self) -> Self::IntoIter {
        let ended = self.taken.load(std::sync::atomic::Ordering::Relaxed) >= self.ends_after;
        let end = if ended {
            self.range.start
        } else {
            self.range.end
        };
        let n = end - self.range.start;
        self.taken
            .fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        self.range.start..end
    }
}

impl ParallelSource for EndingSource<'_> {
    fn par_len(&self) -> usize {
        self.range.len()
    }
    fn par_min_len(&self) -> usize {
        if self.taken.load(std::sync::atomic::Ordering::Relaxed) >= self.ends_after {
            usize::MAX
        } else {
            1
        }
    }
    fn par_split_at(self, index: usize) -> (Self, Self) {
        let mid = self.range.start + index;
        (
            EndingSource {
                range: self.range.start..mid,
                ..self
            },
            EndingSource {
                range: mid..self.range.end,
                ..self
            },
        )
    }
}

/// A search leaf over a source that stops being worth cutting part-way (a bridge whose
/// iterator ended) runs the rest as one block: blocks of a nominal length of 2^55 items
/// would otherwise go on as long as the blocks stay slow enough not to grow.
#[test]
fn a_search_leaf_runs_the_rest_at_once_when_the_source_ends() {
    let taken = std::sync::atomic::AtomicUsize::new(0);
    let stop = StopWhenSet::<false> {
        set: false.into(),
        before: 0,
    };
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let source = EndingSource {
        range: 0..usize::MAX >> 8,
        taken: &taken,
        ends_after: 5,
    };
    let items = leaf_in_blocks(
        source,
        0,
        1,
        &stop,
        &|piece: EndingSource<'_>, _| {
            calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            piece.into_iter().count()
        },
        &|a: usize, b: usize| a + b,
    );
    assert!(items >= 5, "{items}");
    // The blocks up to the end (1, 4, ...), then the rest at once.
    let calls = calls.into_inner();
    assert!(calls <= 4, "{calls} leaf calls");
}

/// A source whose halves disagree with where it was split: the right half repeats the
/// split point, so the two pieces would overlap by one item.
struct OverlappingSplit(std::ops::Range<usize>);

impl IntoIterator for OverlappingSplit {
    type Item = usize;
    type IntoIter = std::ops::Range<usize>;
    fn into_iter(self) -> Self::IntoIter {
        self.0
    }
}

impl ParallelSource for OverlappingSplit {
    fn par_len(&self) -> usize {
        self.0.len()
    }
    fn par_split_at(self, index: usize) -> (Self, Self) {
        let mid = self.0.start + index;
        let back = mid.saturating_sub(1).max(self.0.start);
        (
            OverlappingSplit(self.0.start..mid),
            OverlappingSplit(back..self.0.end),
        )
    }
}

#[test]
fn a_source_whose_split_disagrees_with_its_length_panics() {
    crate::test_panics::quiet_planted_panics();
    ALWAYS_SHARE.store(true, std::sync::atomic::Ordering::Relaxed);
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let run = || {
        drive(
            OverlappingSplit(0..if cfg!(miri) { 64 } else { 1000 }),
            0,
            &NeverStop,
            &|piece: OverlappingSplit, _| piece.0.len(),
            &|a, b| a + b,
        )
    };
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| pool.install(run)));
    let payload = caught.expect_err("the overlap is caught");
    let message = payload
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(message.contains("disagree"), "{message}");
    // The pool still works.
    assert_eq!(
        pool.install(|| drive(
            0..10usize,
            0,
            &NeverStop,
            &|p: std::ops::Range<usize>, _| p.len(),
            &|a, b| a + b
        )),
        10
    );
}
