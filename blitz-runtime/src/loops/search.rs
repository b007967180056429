//! Early-exit searches: [`any`], [`all`], [`find_any`], [`position_any`].
//!
//! A search is a parallel loop whose answer may be known before every item has been looked at.
//! All pieces share one `done` flag: the piece that finds a hit raises it, and every fork and
//! every leaf checks it first, so the remaining pieces are neither split further nor run. A
//! running leaf is a sequential short-circuiting loop that also re-checks the flag every
//! [`CHECK_INTERVAL`] items, so a long leaf stops soon after another leaf found the answer.
//!
//! The flag is only a hint to stop early; the answer itself travels back through the
//! return values of `join`, which synchronises it. So the flag is a plain `std` atomic with
//! relaxed accesses (it is not part of the runtime's synchronisation protocol).

use std::sync::atomic::{AtomicBool, Ordering};

use super::splitter::Splitter;
use super::{IntoParallelSource, ParallelSource};
use crate::join::with_worker;
use crate::registry::Worker;

/// How many items a leaf checks between two looks at the shared `done` flag.
const CHECK_INTERVAL: usize = 1024;

/// The item type of a source.
type Item<S> = <<S as IntoParallelSource>::Source as IntoIterator>::Item;

/// Runs `leaf(piece, offset_of_piece, done)` over the pieces of `source` until one returns
/// `Some`; returns that answer (any one of them if several pieces found one).
fn search<S, T, F>(source: S, grain: usize, leaf: F) -> Option<T>
where
    S: IntoParallelSource,
    T: Send,
    F: Fn(S::Source, usize, &AtomicBool) -> Option<T> + Sync,
{
    let source = source.into_par_source();
    let done = AtomicBool::new(false);
    if !Splitter::new(1, grain).may_split(source.par_len()) {
        return leaf(source, 0, &done);
    }
    with_worker(|worker| {
        let splitter = Splitter::new(worker.num_threads(), grain);
        search_split(worker, source, 0, splitter, false, &done, &leaf)
    })
}

fn search_split<S, T, F>(
    worker: &Worker,
    source: S,
    offset: usize,
    mut splitter: Splitter,
    stolen: bool,
    done: &AtomicBool,
    leaf: &F,
) -> Option<T>
where
    S: ParallelSource,
    T: Send,
    F: Fn(S, usize, &AtomicBool) -> Option<T> + Sync,
{
    // Relaxed: a hint (see the module docs); a stale `false` costs one more piece's work.
    if done.load(Ordering::Relaxed) {
        return None;
    }
    let len = source.par_len();
    if !splitter.try_split(len, stolen) {
        let answer = leaf(source, offset, done);
        if answer.is_some() {
            // Relaxed: a hint (see the module docs).
            done.store(true, Ordering::Relaxed);
        }
        return answer;
    }
    let mid = len / 2;
    let (left, right) = source.par_split_at(mid);
    let forker = worker.index();
    let (a, b) = worker.join(
        |w| search_split(w, left, offset, splitter, false, done, leaf),
        |w| {
            let stolen = w.index() != forker;
            search_split(w, right, offset + mid, splitter, stolen, done, leaf)
        },
    );
    a.or(b)
}

/// The sequential leaf of a search: `check(index_in_piece, item)` on each item in order until
/// it answers, looking at `done` every [`CHECK_INTERVAL`] items.
fn scan<I, T>(
    piece: I,
    done: &AtomicBool,
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
        if index - block_start < CHECK_INTERVAL {
            return None; // the piece is exhausted
        }
        // Relaxed: a hint (see the module docs).
        if done.load(Ordering::Relaxed) {
            return None;
        }
    }
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
    search(source, grain, |piece, _, done| {
        scan(piece, done, |_, item| predicate(item).then_some(()))
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
    search(source, grain, |piece, _, done| {
        scan(piece, done, |_, item| predicate(&item).then_some(item))
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
    search(source, grain, |piece, offset, done| {
        scan(piece, done, |index, item| {
            predicate(item).then_some(offset + index)
        })
    })
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::ThreadPoolBuilder;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn scan_stops_at_the_hit_and_reports_its_index() {
        let done = AtomicBool::new(false);
        let mut seen = 0;
        let hit = scan(0..10_000u32, &done, |i, x| {
            seen += 1;
            (x == 3000).then_some(i)
        });
        assert_eq!((hit, seen), (Some(3000), 3001));
        assert_eq!(scan(0..5000u32, &done, |_, _| None::<()>), None);
    }

    #[test]
    fn scan_gives_up_when_another_piece_found_the_answer() {
        let done = AtomicBool::new(true);
        let mut seen = 0;
        let hit = scan(0..100_000u32, &done, |_, _| {
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
}
