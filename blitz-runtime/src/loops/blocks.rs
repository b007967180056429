//! Sources that run in blocks, one after another (`by_uniform_blocks`,
//! `by_exponential_blocks`): each block is a loop of its own, shared among the workers, and the
//! next one starts when it is done. A search whose answer is settled (a `find_first` that found
//! its hit in a block) skips every block after it at once.

use super::ParallelSource;
use super::engine::{Stop, drive_on};
use crate::registry::Worker;

/// A search's stop, for a block that starts at `by` in the whole source.
struct ShiftedStop<'s, S> {
    stop: &'s S,
    by: usize,
}

impl<S: Stop> Stop for ShiftedStop<'_, S> {
    const MAY_SKIP: bool = S::MAY_SKIP;
    const FROM_BACK: bool = S::FROM_BACK;

    #[inline]
    fn skip(&self, offset: usize, len: usize) -> bool {
        self.stop.skip(self.by.saturating_add(offset), len)
    }
}

/// [`drive`](super::drive) for a source that runs in blocks: the first `first` items, then
/// blocks each `growth` times as long as the one before, each driven as a loop of its own. A
/// source too long to count its items runs as one: its blocks would never end.
#[allow(clippy::too_many_arguments)]
pub(super) fn drive_in_blocks<P, T, L, C, S>(
    worker: &Worker,
    source: P,
    first: usize,
    growth: usize,
    grain: usize,
    stop: &S,
    leaf: &L,
    combine: &C,
) -> T
where
    P: ParallelSource,
    T: Send,
    L: Fn(P, usize) -> T + Sync,
    C: Fn(T, T) -> T + Sync,
    S: Stop,
{
    if source.par_len() == usize::MAX {
        return drive_on(worker, source, grain, stop, leaf, combine);
    }
    let mut size = first.max(1);
    let mut offset = 0;
    let mut rest = source;
    let mut done: Option<T> = None;
    loop {
        let len = rest.par_len();
        // The last block, or a rest that the search no longer needs: one loop (which skips
        // what the search does not need at once).
        let last = len <= size || (S::MAY_SKIP && stop.skip(offset, len));
        let (block, tail) = if last {
            (rest, None)
        } else {
            let (block, tail) = rest.par_split_at(size);
            (block, Some(tail))
        };
        let block_len = block.par_len();
        let shifted = ShiftedStop { stop, by: offset };
        let at = offset;
        let result = drive_on(
            worker,
            block,
            grain,
            &shifted,
            &|piece, piece_offset| leaf(piece, at + piece_offset),
            combine,
        );
        done = Some(match done {
            Some(done) => combine(done, result),
            None => result,
        });
        let Some(tail) = tail else {
            break;
        };
        rest = tail;
        offset += block_len;
        size = size.saturating_mul(growth.max(1));
    }
    // The loop ran at least one block.
    done.expect("a source runs at least one block")
}
