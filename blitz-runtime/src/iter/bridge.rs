//! `par_bridge`: a sequential iterator's items, run as a parallel iterator.
//!
//! The iterator sits behind a mutex; every piece of the loop takes items from it one at a
//! time, as it needs them. Pieces are cut as for any other source, by a nominal length (see
//! [`NOMINAL_LEN`]): a piece that is not the last of the loop takes at most its length in
//! items, the last piece takes everything that is left. So the probe's first pieces take one,
//! three, twelve items (a short iterator runs on its caller alone, a slow one is shared after
//! its first items), the pieces that follow keep taking until the iterator ends, and no
//! item is left behind however the loop was cut.
//!
//! # A piece inside a piece
//!
//! A worker that runs a piece can start another piece of the same bridge while the first is
//! still running: an item of the first piece forks, and the worker runs the second piece
//! while it waits for the fork. Taking items there would be harmless; but if the fork was
//! made inside the iterator's own `next`, the first piece holds the lock, and the second would
//! wait for it forever. So a piece that finds a piece of the same bridge running on its
//! thread takes no items: the one running there goes on taking them once it is back. If the
//! inner piece was the last one, the outer piece inherits that (it then takes items past its
//! length), so that no item is left behind.
//!
//! That covers one thread. A `next` that waits for parallel work can still run a job that
//! waits in turn for a piece on another worker, which waits for the lock: the documented
//! limit of `par_bridge` (rayon's bridge has it too).

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, TryLockError};

use crossbeam_utils::Backoff;

use super::{ParallelIterator, ProducerCallback};
use crate::loops::ParallelSource;

/// Turns a sequential iterator into a parallel one (rayon's `ParallelBridge`), for sources
/// that cannot be split: lines of a reader, directory entries, a channel's messages.
///
/// Workers take the items from the iterator as they need them, one at a time (the iterator
/// is behind a lock), so the iteration overlaps the parallel work: the iterator may produce
/// its items slowly, and need not end if a consumer stops early (`find_any`, `any`,
/// `take_any`, `try_for_each`). As in rayon, the items do not keep the iterator's order:
/// `collect` gets them in the order the workers happened to take them. When the items can be
/// produced from an index (a range, a slice, a `Vec`), use those sources instead: they split
/// without a lock and keep their order.
///
/// ```
/// use blitz::prelude::*;
/// let text = "3\n1\n4\n1\n5";
/// let total: u32 = text.lines().par_bridge().map(|l| l.parse::<u32>().unwrap()).sum();
/// assert_eq!(total, 14);
///
/// // An endless iterator, stopped by the search.
/// let squares = std::iter::successors(Some(1u64), |n| Some(n + 1)).map(|n| n * n);
/// let big = squares.par_bridge().find_any(|&s| s > 1_000).unwrap();
/// assert!(big > 1_000 && big.isqrt() * big.isqrt() == big);
/// ```
///
/// The iterator's `next` runs under that lock. A `next` that itself runs parallel work on
/// the same pool can deadlock: while its worker waits for that work, it may run other pieces
/// of the loop, which wait for the lock it holds. Keep `next` sequential and do the parallel
/// work in the loop's closures, or collect the items into a `Vec` first.
pub trait ParallelBridge: Sized {
    /// Makes the parallel iterator.
    fn par_bridge(self) -> IterBridge<Self>;
}

impl<I> ParallelBridge for I
where
    I: Iterator + Send,
    I::Item: Send,
{
    fn par_bridge(self) -> IterBridge<Self> {
        IterBridge { iter: self }
    }
}

/// The iterator of [`ParallelBridge::par_bridge`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct IterBridge<I> {
    iter: I,
}

impl<I> ParallelIterator for IterBridge<I>
where
    I: Iterator + Send,
    I::Item: Send,
{
    type Item = I::Item;

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let shared = SharedIter::new(self.iter);
        callback.call(BridgeSource {
            shared: &shared,
            len: NOMINAL_LEN,
            last: true,
        })
    }
}

/// The length a bridge claims to have. Only its size matters: large enough that the engine
/// cuts pieces that outlast any real iterator (on 64-bit targets, the first half alone is
/// 2^55 items), and small enough that the engine probes it as a loop of known length (a
/// length of `usize::MAX` means "endless": no probe, every fork published at once) and that a
/// `chain` of bridges still has a length.
const NOMINAL_LEN: usize = usize::MAX >> 8;

/// The iterator all pieces of one bridge take their items from; `None` once it has ended
/// (dropped at once, so it is never asked again) or its `next` panicked.
struct SharedIter<I> {
    iter: Mutex<Option<I>>,
    /// Set once `iter` is `None` (or poisoned): from then on no piece is worth splitting (see
    /// [`BridgeSource::par_min_len`]). Relaxed: a stale `false` costs a split of empty pieces.
    ended: AtomicBool,
}

impl<I: Iterator> SharedIter<I> {
    fn new(iter: I) -> Self {
        SharedIter {
            iter: Mutex::new(Some(iter)),
            ended: AtomicBool::new(false),
        }
    }

    /// The iterator's next item, or `None` if it ended (now or before), or its `next` panicked
    /// in another piece (that piece's panic is the loop's).
    ///
    /// One item per lock, never more: an iterator may wait in `next` for the loop to finish
    /// the items it made before (a work queue fed by the items, a producer that paces
    /// itself), and an item taken ahead would sit with a worker that waits in `next`.
    fn next(&self) -> Option<I::Item> {
        if self.ended.load(Ordering::Relaxed) {
            // Ended: nothing to take, and no lock to pass around among the pieces that ask.
            return None;
        }
        // Pieces that find the lock taken back off, spinning then yielding, before they block
        // on it: with cheap items, workers that take turns item by item spend their time
        // passing the lock's cache line (and futex calls) back and forth, while one that
        // backs off lets the holder take several items in a row. 1M lines parsed and summed
        // on 2 workers while another pool's threads looked for work on the same 2 CPUs: 150-190
        // ms blocking at once, about 80 ms backing off. On CPUs left to the pool (the `iter`
        // bench's row) the two were within noise of each other and of rayon.
        let backoff = Backoff::new();
        let mut iter = loop {
            match self.iter.try_lock() {
                Ok(iter) => break iter,
                Err(TryLockError::WouldBlock) if !backoff.is_completed() => backoff.snooze(),
                Err(TryLockError::WouldBlock) => match self.iter.lock() {
                    Ok(iter) => break iter,
                    Err(_) => return self.end(),
                },
                Err(TryLockError::Poisoned(_)) => return self.end(),
            }
        };
        let item = iter.as_mut()?.next();
        if item.is_none() {
            *iter = None;
            return self.end();
        }
        item
    }
}

impl<I> SharedIter<I> {
    /// Records that the iterator has no more items for the loop; returns `None`, for
    /// [`next`](Self::next).
    fn end<T>(&self) -> Option<T> {
        self.ended.store(true, Ordering::Relaxed);
        None
    }

    /// Identifies this bridge in [`RUNNING_PIECES`].
    fn id(&self) -> usize {
        std::ptr::from_ref(self).addr()
    }
}

/// A piece of a bridge: up to `len` items of the shared iterator, or all it has left if the
/// piece is the last of the loop.
struct BridgeSource<'a, I> {
    shared: &'a SharedIter<I>,
    len: usize,
    last: bool,
}

impl<I> ParallelSource for BridgeSource<'_, I>
where
    I: Iterator + Send,
    I::Item: Send,
{
    fn par_len(&self) -> usize {
        self.len
    }

    /// 1 while the iterator has items, else `usize::MAX`: the engine splits no piece once it
    /// has ended. The nominal length is far longer than the items: the engine would go on
    /// splitting empty pieces for as long as idle workers steal them (on a wide pool, for
    /// ever).
    fn par_min_len(&self) -> usize {
        if self.shared.ended.load(Ordering::Relaxed) {
            usize::MAX
        } else {
            1
        }
    }

    fn par_split_at(self, index: usize) -> (Self, Self) {
        let front = BridgeSource {
            shared: self.shared,
            len: index,
            last: false,
        };
        let back = BridgeSource {
            shared: self.shared,
            len: self.len - index,
            last: self.last,
        };
        (front, back)
    }
}

impl<'a, I: Iterator> IntoIterator for BridgeSource<'a, I> {
    type Item = I::Item;
    type IntoIter = BridgePiece<'a, I>;

    fn into_iter(self) -> BridgePiece<'a, I> {
        BridgePiece {
            shared: self.shared,
            left: self.len,
            last: self.last,
            state: PieceState::NotStarted,
        }
    }
}

/// Where a [`BridgePiece`] is in its life.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum PieceState {
    /// No item asked for yet.
    NotStarted,
    /// Taking items; registered in [`RUNNING_PIECES`].
    Running,
    /// Takes no more items: it ended, or it started inside a running piece of its bridge.
    Done,
}

/// The items of one piece of a bridge (see the module docs).
pub struct BridgePiece<'a, I> {
    shared: &'a SharedIter<I>,
    /// How many more items the piece may take, unless it is the last.
    left: usize,
    last: bool,
    state: PieceState,
}

/// A piece running on this thread (see the module docs).
struct RunningPiece {
    /// The bridge's [`SharedIter::id`].
    bridge: usize,
    /// Set by a last piece that started inside this one and took nothing.
    inherits_last: bool,
}

thread_local! {
    /// The bridge pieces running on this thread, innermost last (at most one per bridge).
    static RUNNING_PIECES: RefCell<Vec<RunningPiece>> = const { RefCell::new(Vec::new()) };
}

impl<I> BridgePiece<'_, I> {
    /// Registers the piece as running on this thread, unless a piece of its bridge already
    /// runs here: then it hands its being last to that piece and takes nothing.
    fn start(&mut self) {
        let bridge = self.shared.id();
        let nested = RUNNING_PIECES.with_borrow_mut(|running| {
            if let Some(outer) = running.iter_mut().find(|p| p.bridge == bridge) {
                outer.inherits_last |= self.last;
                return true;
            }
            running.push(RunningPiece {
                bridge,
                inherits_last: false,
            });
            false
        });
        self.state = if nested {
            PieceState::Done
        } else {
            PieceState::Running
        };
    }

    /// Unregisters the running piece; returns whether a last piece handed it its place.
    fn stop(&mut self) -> bool {
        debug_assert_eq!(self.state, PieceState::Running);
        self.state = PieceState::Done;
        let bridge = self.shared.id();
        RUNNING_PIECES.with_borrow_mut(|running| {
            let at = running
                .iter()
                .rposition(|p| p.bridge == bridge)
                .expect("a running bridge piece is registered on its thread");
            running.remove(at).inherits_last
        })
    }

    /// True if a last piece that started inside this one handed it its place.
    fn inherits_last(&self) -> bool {
        let bridge = self.shared.id();
        RUNNING_PIECES.with_borrow(|running| {
            running
                .iter()
                .any(|p| p.bridge == bridge && p.inherits_last)
        })
    }
}

impl<I: Iterator> Iterator for BridgePiece<'_, I> {
    type Item = I::Item;

    fn next(&mut self) -> Option<I::Item> {
        match self.state {
            PieceState::Running => {}
            PieceState::NotStarted => {
                self.start();
                if self.state == PieceState::Done {
                    return None;
                }
            }
            PieceState::Done => return None,
        }
        if self.left == 0 && !self.last {
            self.last = self.inherits_last();
            if !self.last {
                self.stop();
                return None;
            }
        }
        let Some(item) = self.shared.next() else {
            self.stop();
            return None;
        };
        self.left = self.left.saturating_sub(1);
        Some(item)
    }
}

impl<I> Drop for BridgePiece<'_, I> {
    fn drop(&mut self) {
        if self.state == PieceState::Running {
            // Ended early: a search or `take_any` stopped the loop, a `find_first` found its
            // hit here, or an item panicked. Whatever a last piece inside this one handed
            // over is not needed then: the items left no longer matter to the loop.
            self.stop();
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    fn running_pieces() -> usize {
        RUNNING_PIECES.with_borrow(Vec::len)
    }

    /// The whole loop's source over `shared`.
    fn whole<I: Iterator>(shared: &SharedIter<I>) -> BridgeSource<'_, I> {
        BridgeSource {
            shared,
            len: NOMINAL_LEN,
            last: true,
        }
    }

    #[test]
    fn a_piece_takes_its_length_and_the_last_piece_the_rest() {
        let shared = SharedIter::new(0..10u32);
        let root = whole(&shared);
        let (front, back) = root.par_split_at(3);
        let (middle, back) = back.par_split_at(2);
        assert_eq!(front.into_iter().collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(middle.into_iter().collect::<Vec<_>>(), [3, 4]);
        assert_eq!(back.into_iter().collect::<Vec<_>>(), [5, 6, 7, 8, 9]);
        assert_eq!(running_pieces(), 0);
        // Ended: dropped, never asked again.
        assert!(shared.iter.lock().unwrap().is_none());
    }

    #[test]
    fn a_last_piece_inside_a_running_piece_hands_over_its_place() {
        let shared = SharedIter::new(0..10u32);
        let root = whole(&shared);
        let (front, back) = root.par_split_at(2);
        let (middle, back) = back.par_split_at(2);
        let mut outer = front.into_iter();
        assert_eq!(outer.next(), Some(0));
        // Pieces that start while `outer` runs on this thread take nothing (they could wait
        // on a lock `outer` holds)...
        assert_eq!(middle.into_iter().count(), 0);
        assert_eq!(back.into_iter().count(), 0);
        // ...and the last one's items are taken by `outer`, past its own length.
        assert_eq!(outer.collect::<Vec<_>>(), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
        assert_eq!(running_pieces(), 0);
    }

    #[test]
    fn a_piece_dropped_early_is_unregistered() {
        let shared = SharedIter::new(0..10u32);
        let root = whole(&shared);
        let (front, back) = root.par_split_at(5);
        let mut piece = front.into_iter();
        assert_eq!(piece.next(), Some(0));
        assert_eq!(running_pieces(), 1);
        drop(piece);
        assert_eq!(running_pieces(), 0);
        // A later piece is not taken for one inside it.
        assert_eq!(
            back.into_iter().collect::<Vec<_>>(),
            [1, 2, 3, 4, 5, 6, 7, 8, 9]
        );
    }
}
