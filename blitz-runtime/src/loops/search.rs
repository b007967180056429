//! Early-exit searches: [`any`], [`all`], [`find_any`], [`position_any`], and the stop rules
//! the parallel iterators' ordered searches share with them.
//!
//! A search is a parallel loop whose answer may be known before every item has been looked at.
//! All pieces share one [`Stop`]: the piece that finds a hit records it, and every fork and
//! every leaf asks it first, so pieces whose answer cannot matter any more are neither split
//! further nor run. A running leaf is a sequential short-circuiting loop that also asks again
//! every [`CHECK_INTERVAL`] items, so a long leaf stops soon after another leaf settled the
//! answer.
//!
//! * [`AnyHit`]: any hit settles it (`any`, `find_any`, ...).
//! * [`FirstHit`]: the hit of lowest index wins, so only pieces after the earliest piece with a
//!   hit can be skipped.
//! * [`LastHit`]: the hit of highest index wins, so only pieces before the latest piece with a
//!   hit can be skipped.
//!
//! The stop state is only a hint to stop early; the answer itself travels back through the
//! return values of `join`, which synchronises it. So it is held in plain `std` atomics with
//! relaxed accesses (not part of the runtime's synchronisation protocol).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::{IntoParallelSource, Stop, drive};

/// How many items a leaf checks between two looks at the shared stop state.
pub(crate) const CHECK_INTERVAL: usize = 1024;

/// The item type of a source.
type Item<S> = <<S as IntoParallelSource>::Source as IntoIterator>::Item;

/// Stop rule of unordered searches: once any piece found a hit, nothing else runs.
#[derive(Default)]
pub(crate) struct AnyHit(AtomicBool);

impl AnyHit {
    /// Records a hit.
    pub(crate) fn hit(&self) {
        // Relaxed: a hint (see the module docs).
        self.0.store(true, Ordering::Relaxed);
    }
}

impl Stop for AnyHit {
    #[inline]
    fn skip(&self, _offset: usize, _len: usize) -> bool {
        // Relaxed: a hint (see the module docs); a stale `false` costs one more look.
        self.0.load(Ordering::Relaxed)
    }
}

/// Stop rule of searches for the first hit: the offset of the earliest piece that found one.
/// Pieces are disjoint, so a piece starting after that piece's start lies wholly after it.
pub(crate) struct FirstHit(AtomicUsize);

impl Default for FirstHit {
    fn default() -> Self {
        FirstHit(AtomicUsize::new(usize::MAX))
    }
}

impl FirstHit {
    /// Records a hit in the piece starting at `offset`.
    pub(crate) fn hit(&self, offset: usize) {
        // Relaxed: a hint (see the module docs).
        self.0.fetch_min(offset, Ordering::Relaxed);
    }
}

impl Stop for FirstHit {
    #[inline]
    fn skip(&self, offset: usize, _len: usize) -> bool {
        // Relaxed: a hint (see the module docs).
        self.0.load(Ordering::Relaxed) < offset
    }
}

/// Stop rule of searches for the last hit: one past the offset of the latest piece that found
/// one (0: none yet). Everything ending at or before that piece's start lies wholly before it.
#[derive(Default)]
pub(crate) struct LastHit(AtomicUsize);

impl LastHit {
    /// Records a hit in the piece starting at `offset`.
    pub(crate) fn hit(&self, offset: usize) {
        // Relaxed: a hint (see the module docs).
        self.0
            .fetch_max(offset.saturating_add(1), Ordering::Relaxed);
    }
}

impl Stop for LastHit {
    const FROM_BACK: bool = true;

    #[inline]
    fn skip(&self, offset: usize, len: usize) -> bool {
        // Relaxed: a hint (see the module docs).
        match self.0.load(Ordering::Relaxed) {
            0 => false,
            latest => latest > offset.saturating_add(len),
        }
    }
}

/// The sequential leaf of a search for the first hit in a piece: `check(index_in_piece, item)`
/// on each item in order until it answers, asking `stop` every [`CHECK_INTERVAL`] items
/// whether the piece starting at `offset` still matters.
pub(crate) fn scan<I, T>(
    piece: I,
    offset: usize,
    stop: &impl Stop,
    mut check: impl FnMut(usize, I::Item) -> Option<T>,
) -> Option<T>
where
    I: IntoIterator,
{
    let mut items = piece.into_iter();
    let mut index = 0;
    loop {
        let block_start = index;
        for item in items.by_ref().take(CHECK_INTERVAL) {
            if let Some(answer) = check(index, item) {
                return Some(answer);
            }
            index += 1;
        }
        if index - block_start < CHECK_INTERVAL || stop.skip(offset, 1) {
            return None; // the piece is exhausted, or no longer matters
        }
    }
}

/// Like [`scan`], but for the last hit in the piece: looks at every item (unless `stop` says
/// the piece no longer matters) and keeps the last answer.
pub(crate) fn scan_last<I, T>(
    piece: I,
    offset: usize,
    len: usize,
    stop: &impl Stop,
    mut check: impl FnMut(usize, I::Item) -> Option<T>,
    mut first_hit: impl FnMut(),
) -> Option<T>
where
    I: IntoIterator,
{
    let mut items = piece.into_iter();
    let mut index = 0;
    let mut last = None;
    loop {
        let block_start = index;
        for item in items.by_ref().take(CHECK_INTERVAL) {
            if let Some(answer) = check(index, item) {
                if last.is_none() {
                    // Pieces wholly before this one can stop now, not when this one ends.
                    first_hit();
                }
                last = Some(answer);
            }
            index += 1;
        }
        if index - block_start < CHECK_INTERVAL || stop.skip(offset, len) {
            return last;
        }
    }
}

/// Runs `leaf(piece, offset)` over the pieces of `source` until one answers; returns that
/// answer (any one of them if several pieces found one).
fn search<S, T, F>(source: S, grain: usize, leaf: F) -> Option<T>
where
    S: IntoParallelSource,
    T: Send,
    F: Fn(S::Source, usize, &AnyHit) -> Option<T> + Sync,
{
    let stop = AnyHit::default();
    let leaf = |piece, offset| {
        let answer = leaf(piece, offset, &stop);
        if answer.is_some() {
            stop.hit();
        }
        answer
    };
    drive(source.into_par_source(), grain, &stop, &leaf, &Option::or)
}

/// True if `predicate` holds for some item of `source`. Stops looking (no new pieces, and
/// running pieces soon stop) once an item is found. `grain` is the minimum piece length, as
/// for [`for_each_piece`](crate::for_each_piece).
///
/// ```
/// assert!(blitz::any(0..1_000_000u32, 0, |i| i == 765_432));
/// assert!(!blitz::any(&[1, 3, 5][..], 0, |&x| x % 2 == 0));
/// ```
pub fn any<S, P>(source: S, grain: usize, predicate: P) -> bool
where
    S: IntoParallelSource,
    P: Fn(Item<S>) -> bool + Sync,
{
    search(source, grain, |piece, offset, stop| {
        scan(piece, offset, stop, |_, item| predicate(item).then_some(()))
    })
    .is_some()
}

/// True if `predicate` holds for every item of `source` (true for an empty source). Stops
/// looking once an item fails it.
///
/// ```
/// let v: Vec<u64> = (0..100_000).map(|i| 2 * i).collect();
/// assert!(blitz::all(&v, 0, |&x| x % 2 == 0));
/// assert!(!blitz::all(&v, 0, |&x| x < 199_998));
/// ```
pub fn all<S, P>(source: S, grain: usize, predicate: P) -> bool
where
    S: IntoParallelSource,
    P: Fn(Item<S>) -> bool + Sync,
{
    !any(source, grain, |item| !predicate(item))
}

/// Some item of `source` for which `predicate` holds, or `None`. Not necessarily the first
/// such item: whichever piece finds one first wins. Stops looking once one is found.
///
/// ```
/// let v = vec![4, 8, 15, 16, 23, 42];
/// assert_eq!(blitz::find_any(&v, 0, |&&x| x % 2 == 1 && x > 20), Some(&23));
/// assert_eq!(blitz::find_any(&v, 0, |&&x| x > 100), None);
/// ```
pub fn find_any<S, P>(source: S, grain: usize, predicate: P) -> Option<Item<S>>
where
    S: IntoParallelSource,
    Item<S>: Send,
    P: Fn(&Item<S>) -> bool + Sync,
{
    search(source, grain, |piece, offset, stop| {
        scan(piece, offset, stop, |_, item| {
            predicate(&item).then_some(item)
        })
    })
}

/// The index (in `source`) of some item for which `predicate` holds, or `None`. Not
/// necessarily the first such index. Stops looking once one is found.
///
/// ```
/// let v: Vec<u32> = (0..1_000_000).collect();
/// assert_eq!(blitz::position_any(&v, 0, |&x| x == 999_999), Some(999_999));
/// assert_eq!(blitz::position_any(100..200u8, 0, |x| x == 150), Some(50));
/// ```
pub fn position_any<S, P>(source: S, grain: usize, predicate: P) -> Option<usize>
where
    S: IntoParallelSource,
    P: Fn(Item<S>) -> bool + Sync,
{
    search(source, grain, |piece, offset, stop| {
        scan(piece, offset, stop, |index, item| {
            predicate(item).then_some(offset.saturating_add(index))
        })
    })
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::ThreadPoolBuilder;
    use crate::loops::NeverStop;

    #[test]
    fn scan_stops_at_the_hit_and_reports_its_index() {
        let mut seen = 0;
        let hit = scan(0..10_000u32, 0, &NeverStop, |i, x| {
            seen += 1;
            (x == 3000).then_some(i)
        });
        assert_eq!((hit, seen), (Some(3000), 3001));
        assert_eq!(scan(0..5000u32, 0, &NeverStop, |_, _| None::<()>), None);
    }

    #[test]
    fn scan_gives_up_when_another_piece_found_the_answer() {
        let done = AnyHit::default();
        done.hit();
        let mut seen = 0;
        let hit = scan(0..100_000u32, 0, &done, |_, _| {
            seen += 1;
            None::<()>
        });
        assert_eq!(hit, None);
        assert_eq!(seen, CHECK_INTERVAL, "stops at the first look at the flag");
    }

    #[test]
    fn a_hit_in_the_first_piece_skips_most_of_the_others() {
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let looked_at = AtomicUsize::new(0);
        let found = pool.install(|| {
            any(0..10_000_000u64, 0, |i| {
                looked_at.fetch_add(1, Ordering::Relaxed);
                i == 0
            })
        });
        assert!(found);
        // Without early exit every item would be looked at.
        assert!(looked_at.into_inner() < 10_000_000);
    }

    #[test]
    fn ordered_stop_rules_skip_only_what_cannot_matter() {
        let first = FirstHit::default();
        assert!(!first.skip(0, 10));
        first.hit(100);
        assert!(first.skip(101, 10), "after the hit's piece");
        assert!(!first.skip(100, 10), "the hit's own piece");
        assert!(
            !first.skip(0, 1000),
            "a piece before it may hold an earlier hit"
        );
        first.hit(40);
        assert!(first.skip(100, 10));

        let last = LastHit::default();
        assert!(!last.skip(0, 10));
        last.hit(100);
        assert!(last.skip(0, 100), "ends where the hit's piece starts");
        assert!(!last.skip(0, 101));
        assert!(!last.skip(200, 10), "a piece after it may hold a later hit");
        let mut seen = 0;
        let mut first_hits = 0;
        let answer = scan_last(
            0..10_000u32,
            0,
            10_000,
            &NeverStop,
            |i, x| {
                seen += 1;
                (x % 3000 == 7).then_some(i)
            },
            || first_hits += 1,
        );
        assert_eq!((answer, seen, first_hits), (Some(9007), 10_000, 1));
    }
}
