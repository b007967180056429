//! The splitting engine: how every parallel loop and parallel iterator runs.
//!
//! [`drive`] takes a [`ParallelSource`], a `leaf` that runs one piece sequentially and a
//! `combine` that joins the results of two adjacent pieces in order. It works in two phases:
//!
//! 1. **Probe.** The worker that runs the loop (a caller outside every pool enters the global
//!    pool first, so that every item runs on a worker, as in rayon) first runs a few pieces
//!    from the front of the source itself, each up to 256 times as many items as everything
//!    before it (4 times for the first few, see [`EARLY_SAMPLE`]), and reads the clock between
//!    them. A loop that finishes within [`SHARE_AFTER`] is not shared: sharing it would cost
//!    more (waking a peer) than it could save. When a peer is awake and idle, sharing costs
//!    only its steal, and the limit is [`SHARE_WITH_HUNGRY_PEER`]. That is the
//!    "sequential below a threshold" of the reference design, with the threshold measured in
//!    time instead of items, so a loop over 64 expensive items is shared after the first one
//!    while a loop over 4,000 additions is not shared at all. A loop whose first few items
//!    took [`SHARE_AFTER`] has expensive items; its site is remembered (`history`), and
//!    its next runs skip the probe and are shared at once, until a run finds its items cheap.
//! 2. **Split.** What is left is cut by the adaptive [`Splitter`] and forked with
//!    [`Worker::join`], each closure getting the worker that runs it (no lookups, no
//!    allocation per split). A fork whose second half is estimated, at the rate the probe
//!    measured, to run [`LONG_HALF`] or more is published at once (`Worker::join_published`)
//!    instead of waiting for a request.
//!
//! A [`Stop`] lets searches skip pieces whose answer is already known: every fork and every
//! probe step asks it first, and a skipped piece runs `leaf` on its empty front (so the
//! engine needs no "empty result" of its own, and a source that owns its items drops them).
//!
//! Offsets: `leaf` gets the index of its piece's first item in the whole source, which is
//! what ordered searches and in-place collection need.

use super::ParallelSource;
use super::history::{Remembered, SITES, Site, SiteTable};
use super::splitter::Splitter;
use crate::join::timestamp;
use crate::registry::Worker;

/// How long (in [`timestamp`] units: x86-64 TSC cycles, nanoseconds elsewhere) a loop runs on
/// its caller alone before the rest of it is shared: about the cost of waking a sleeping
/// peer. Shared with the join's notion of a long first closure.
const SHARE_AFTER: u64 = crate::join::LONG_FIRST_CLOSURE;

/// Tests of the parallel paths set this so that small inputs are shared too (after the
/// probe's first step), instead of running on the caller within `SHARE_AFTER`.
#[cfg(test)]
pub(crate) static ALWAYS_SHARE: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// The probe's time limit: `limit`, or 0 in tests that set `ALWAYS_SHARE`.
#[inline(always)]
fn share_after(limit: u64) -> u64 {
    #[cfg(test)]
    if ALWAYS_SHARE.load(std::sync::atomic::Ordering::Relaxed) {
        return 0;
    }
    limit
}

/// How long (in [`timestamp`] units) the second half of a loop's fork must be estimated to
/// run for the fork to be published at once, not kept private until a peer asks: the time
/// past which a loop is worth sharing at all ([`SHARE_AFTER`]). A publication costs a deque
/// push and a fenced pop, plus a wake-up if a peer sleeps, a few percent of such a half at
/// most. A private half waits for a request, and a worker answers requests only at its fork
/// and join points, never inside a leaf: at the end of a loop of long items, the peers that
/// ran out first sat idle while the last pieces stayed private behind their owners' leaves.
/// Measured with 512 items that sleep 400 us, on 32 workers: 9.0-9.1 ms before, 8.81-8.85 ms
/// after (rayon, which publishes every fork, 8.79-8.86 ms).
const LONG_HALF: u64 = SHARE_AFTER;

/// How many items of a loop run for `ticks` at the rate measured so far (`items` in
/// `elapsed` ticks), rounded up; `usize::MAX` if nothing was measured.
fn items_lasting(ticks: u64, items: usize, elapsed: u64) -> usize {
    if elapsed == 0 {
        return usize::MAX;
    }
    let lasting = (u128::from(ticks) * items as u128).div_ceil(u128::from(elapsed));
    usize::try_from(lasting).unwrap_or(usize::MAX)
}

/// Each probe step runs at most this many times the items run before it, once
/// [`EARLY_SAMPLE`] steps' worth of items have run.
const PROBE_GROWTH: usize = 256;

/// Until this many minimal steps' worth of items have run, a probe step runs at most
/// [`EARLY_GROWTH`] times the items before it: steps of 1, 3 and 12 items where the
/// minimum is one. A first item is a poor sample: one that a `filter` rejects (or a
/// triangular loop's item 0) costs nothing, and at `PROBE_GROWTH` the next step then ran the
/// next 255 items on the caller alone. Measured with 768 items of which a filter keeps two in
/// three, each sleeping 400 us, on 64 workers: one worker ran alone for the first 68 ms.
const EARLY_SAMPLE: usize = 16;

/// See [`EARLY_SAMPLE`].
const EARLY_GROWTH: usize = 4;

/// A site's items are expensive (see `history`) when this many minimal steps' worth of them
/// took [`SHARE_AFTER`]: the first two probe steps, each item about a quarter of the limit or
/// more.
const EXPENSIVE_STEPS: usize = EARLY_GROWTH;

/// [`SHARE_AFTER`] when a peer is awake and idle: about the cost of its steal and of sending
/// the result back (a microsecond or two), so a loop of a few thousand additions still stays
/// on its caller, and one of expensive items is shared after its first item.
const SHARE_WITH_HUNGRY_PEER: u64 = SHARE_AFTER / 16;

/// A loop is remembered as short (see `history`) if the probe expects it to take at most
/// `1 / SHORT_LOOP` of its limit.
const SHORT_LOOP: u64 = 4;

/// A loop is remembered as short (see `history`) only if it has at least this many minimal
/// steps' worth of items. In a shorter one the early steps are most of the loop, so skipping
/// them saves little, and such loops are often a recursion's loops over a node's few children,
/// whose items (subtrees) cost wildly different amounts from one run to the next: a remembered
/// run would send the items between its first and its last few to the caller unchecked.
const SHORT_LOOP_MIN_STEPS: usize = 4 * EARLY_SAMPLE;

/// A run of a loop remembered as short skips the probe's early steps if it has at most this
/// many times the remembered length (at the remembered rate, it then takes at most half the
/// limit), and at least the remembered length over this.
const SHORT_LOOP_GROWTH: usize = 2;

/// A run of a loop remembered as short is shared if its first item and its sample take
/// `1 / SHORT_ITEM` of the limit or more: its items cost more than last time.
const SHORT_ITEM: u64 = 16;

/// See `probe`: probe steps end on multiples of this many items.
const ALIGN_ITEMS: usize = 16;

/// Decides which pieces of a search need not run.
pub(crate) trait Stop: Sync {
    /// False if [`skip`](Stop::skip) never says yes: leaves then run whole, not in blocks.
    const MAY_SKIP: bool = true;

    /// True if a hit late in a piece lets the items before it be skipped (searches for the
    /// last hit): a leaf then runs its blocks from the back.
    const FROM_BACK: bool = false;

    /// True if the piece of `len` items starting at `offset` can be skipped.
    fn skip(&self, offset: usize, len: usize) -> bool;
}

/// Every piece runs.
pub(crate) struct NeverStop;

impl Stop for NeverStop {
    const MAY_SKIP: bool = false;

    #[inline(always)]
    fn skip(&self, _offset: usize, _len: usize) -> bool {
        false
    }
}

/// The bounds a loop's pieces must respect: `grain` (and the source's own minimum) below, the
/// source's maximum above.
fn splitter_for<P: ParallelSource>(source: &P, num_threads: usize, grain: usize) -> Splitter {
    Splitter::with_bounds(
        num_threads,
        grain.max(source.par_min_len()),
        source.par_max_len(),
    )
}

/// Runs `leaf` over pieces of `source` covering it in order, and folds their results with
/// `combine` (left piece first). `grain` is the minimum piece length (`0`: none). See the
/// module docs.
pub(crate) fn drive<P, T, L, C, S>(source: P, grain: usize, stop: &S, leaf: &L, combine: &C) -> T
where
    P: ParallelSource,
    T: Send,
    L: Fn(P, usize) -> T + Sync,
    C: Fn(T, T) -> T + Sync,
    S: Stop,
{
    let Some(worker) = Worker::current() else {
        // From outside every pool, the whole loop runs on a worker of the global pool, its
        // probe too: every item runs on a pool thread, as in rayon, so `current_thread_index`
        // is `Some` and the thread-locals a start handler set are there. A loop short enough
        // to stay on its caller pays the round trip into the pool; a caller that runs many
        // short loops enters the pool once (`install`) and runs them inside.
        return crate::join::with_worker(|_| drive(source, grain, stop, leaf, combine));
    };
    match source.par_blocks() {
        Some((first, growth)) => super::blocks::drive_in_blocks(
            worker, source, first, growth, grain, stop, leaf, combine,
        ),
        None => drive_on(worker, source, grain, stop, leaf, combine),
    }
}

/// [`drive`] on `worker`, the source as one (whatever its blocks).
pub(super) fn drive_on<P, T, L, C, S>(
    worker: &Worker,
    source: P,
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
    let len = source.par_len();
    if !splitter_for(&source, 1, grain).may_split(len) {
        return leaf(source, 0);
    }
    if len == usize::MAX {
        // As many items as a length can count, or more (a 128-bit range): the loop cannot run
        // to its end, only a search can stop it, so there is nothing to probe. A probe would
        // also cut the front off and move every middle after it: a hit just past the true
        // middle, at the front of the first half a peer takes, would end up at the back of a
        // piece that never gets there. Split at once, every fork published.
        let publish_len = min_step(&source, grain);
        let rest = Rest {
            source,
            offset: 0,
            publish_len,
        };
        return share(worker, rest, grain, stop, leaf, combine);
    }
    let site = Site::of(run_leaf::<P, T, L> as fn(&L, P, usize) -> T as usize);
    let short_before = match SITES.recall(site) {
        Remembered::ExpensiveItems => {
            return share_at_once(worker, source, grain, site, stop, leaf, combine);
        }
        // Within a factor of the remembered length: at the remembered rate, at most half the
        // limit, and long enough for a sample after the first item.
        Remembered::ShortLoop { len: short } => {
            len <= short.saturating_mul(SHORT_LOOP_GROWTH)
                && len.saturating_mul(SHORT_LOOP_GROWTH) >= short
        }
        Remembered::Nothing => false,
    };
    // With a peer awake and looking for work, sharing costs a steal, not a wake-up.
    let hungry_peer = worker.has_idle_awake_peer();
    let (limit, short_before) = if hungry_peer {
        // A short loop was remembered against the full limit.
        (SHARE_WITH_HUNGRY_PEER, false)
    } else {
        (SHARE_AFTER, short_before)
    };
    let memory = (&SITES, site);
    match probe(
        source,
        grain,
        share_after(limit),
        memory,
        short_before,
        stop,
        leaf,
        combine,
    ) {
        Probed::Done(done) => done,
        Probed::Rest(done, rest) => {
            let rest = share(worker, rest, grain, stop, leaf, combine);
            combine(done, rest)
        }
        Probed::Sampled {
            done,
            front,
            sample,
            tail,
        } => {
            // The step's front, then its sample's result, then the tail: in order.
            let front = share(worker, front, grain, stop, leaf, combine);
            let done = combine(combine(done, front), sample);
            match tail {
                Some(tail) => combine(done, share(worker, tail, grain, stop, leaf, combine)),
                None => done,
            }
        }
    }
}

/// Phase 2 of [`drive`] for what the probe left: split and fork it on `worker`. The loop is
/// known to be worth sharing, so its first forks are published at once, one per idle peer,
/// rather than one per request; so is every fork whose second half is estimated to run
/// [`LONG_HALF`] or more.
fn share<P, T, L, C, S>(
    worker: &Worker,
    rest: Rest<P>,
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
    worker.arm_eager_share();
    let splitter =
        splitter_for(&rest.source, worker.num_threads(), grain).publishing_from(rest.publish_len);
    split(
        worker,
        rest.source,
        rest.offset,
        splitter,
        false,
        stop,
        leaf,
        combine,
    )
}

/// The fewest items a probe step runs: the grain, or the source's own minimum piece.
fn min_step<P: ParallelSource>(source: &P, grain: usize) -> usize {
    grain.max(source.par_min_len()).max(1)
}

/// [`drive`] for a site whose items were found expensive (see `history`): no probe, the
/// whole source is split and shared at once. The caller runs the leftmost piece itself and
/// times it: if its items turn out cheaper than those that marked the site, the mark is
/// cleared and the next run probes again.
fn share_at_once<P, T, L, C, S>(
    worker: &Worker,
    source: P,
    grain: usize,
    site: Site,
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
    // The probe steps that marked the site had this many items.
    let step_min = min_step(&source, grain);
    let marked_step = step_min.saturating_mul(EXPENSIVE_STEPS) as u128;
    let timed_leaf = |piece: P, offset: usize| {
        if offset != 0 {
            return leaf(piece, offset);
        }
        let items = piece.par_len() as u128;
        let started = timestamp();
        let result = leaf(piece, offset);
        let elapsed = u128::from(timestamp().wrapping_sub(started));
        // Cheap if a probe step would not have reached the limit at this rate.
        if items > 0 && elapsed * marked_step < u128::from(SHARE_AFTER) * items {
            SITES.forget(site);
        }
        result
    };
    let rest = Rest {
        source,
        offset: 0,
        // Each piece of the marked step's length took `SHARE_AFTER` (= `LONG_HALF`) or more,
        // so one minimal step's worth of items took a quarter of it: publishing such a half
        // (tens of nanoseconds) costs under 1% of it, and a half kept private waits for its
        // owner's next fork or join, which a long item puts off. (With halves of fewer than
        // the marked step's items kept private, 64 items of 10 ms on 64 workers took two
        // items' time: the last ones waited behind their owners' first.)
        publish_len: step_min,
    };
    share(worker, rest, grain, stop, &timed_leaf, combine)
}

/// What phase 1 of [`drive`] leaves for phase 2.
struct Rest<P> {
    /// The items not run yet.
    source: P,
    /// The index of its first item in the whole source.
    offset: usize,
    /// The half length from which its forks are published (see [`LONG_HALF`]).
    publish_len: usize,
}

/// What phase 1 of [`drive`] did.
enum Probed<P, T> {
    /// It ran the whole loop.
    Done(T),
    /// It ran the front of the loop (the result) and leaves the rest to share.
    Rest(T, Rest<P>),
    /// A step's sample (see [`STEP_SAMPLE`]) took the time left: `done` ran before the step,
    /// `sample` is the result of the step's last items, `front` the rest of the step, and
    /// `tail` what comes after it.
    Sampled {
        done: T,
        front: Rest<P>,
        sample: T,
        tail: Option<Rest<P>>,
    },
}

/// A probe step after the early ones (see [`EARLY_SAMPLE`]; after the first one at a site
/// remembered as a short loop, see `history`) first runs its last `STEP_SAMPLE` minimal steps'
/// worth of items, and only then the rest of the step if the limit has not passed. The items
/// run so far set the step's length, and they may say nothing of the items ahead: 16 items
/// that a filter rejects, then items of 400 us, made a step of the next 496 items, which the
/// caller then ran alone (every worker idle, 232 ms where rayon took 5 on 64 workers). A sample from the step's far end catches a loop whose
/// items cost more further on, for the price of one more leaf call per long step.
const STEP_SAMPLE: usize = EARLY_GROWTH;

/// Phase 1 of [`drive`]: runs pieces from the front of `source` on the caller until it is
/// done or `limit` (in [`timestamp`] units) has passed. Returns the result so far and what is
/// left, if anything. In `memory`'s table, marks its site as having expensive items if the
/// first [`EXPENSIVE_STEPS`] minimal steps' worth of items took [`SHARE_AFTER`], and remembers
/// it as a short loop if it ran whole in a fraction of the limit (see `history`).
///
/// `short_before`: the site was remembered as a short loop of about this length. After its
/// first item, the rest then runs as one step, without the early steps and without a clock
/// read between: its sample's read times the first item too, and if the two take
/// [`SHORT_ITEM`] of the limit, the rest is shared.
#[allow(clippy::too_many_arguments)]
fn probe<P, T, L, C, S>(
    source: P,
    grain: usize,
    limit: u64,
    (sites, site): (&SiteTable, Site),
    short_before: bool,
    stop: &S,
    leaf: &L,
    combine: &C,
) -> Probed<P, T>
where
    P: ParallelSource,
    L: Fn(P, usize) -> T,
    C: Fn(T, T) -> T,
    S: Stop,
{
    let share_after = limit;
    let started = timestamp();
    let total = source.par_len();
    let step_min = min_step(&source, grain);
    let step_max = source.par_max_len().max(step_min);
    let mut done: Option<T> = None;
    let mut offset = 0;
    let mut step = step_min;
    let mut rest = source;
    // One call site for `leaf` (see `run_leaf`).
    loop {
        let len = rest.par_len();
        let (piece, tail) = if stop.skip(offset, len) {
            let (empty, skipped) = split_at_checked(rest, 0);
            drop(skipped);
            (empty, None)
        } else {
            // A tail shorter than the minimum piece goes with this step: no piece (but a
            // source too short as a whole) may be shorter than the grain.
            if len - step.min(len) < step_min {
                step = len;
            }
            let (piece, tail) = split_front(rest, step);
            (piece, (tail.par_len() > 0).then_some(tail))
        };
        let sample_len = step_min.saturating_mul(STEP_SAMPLE);
        let early_end = if short_before {
            step_min
        } else {
            step_min.saturating_mul(EARLY_SAMPLE)
        };
        let (piece, sampled) =
            if offset >= early_end && piece.par_len() >= sample_len.saturating_mul(2) {
                // A long step: its last items first (see `STEP_SAMPLE`).
                let front_len = piece.par_len() - sample_len;
                let (front, sample) = split_at_checked(piece, front_len);
                let sample = run_leaf(leaf, sample, offset.saturating_add(front_len));
                let elapsed = timestamp().wrapping_sub(started);
                if elapsed >= share_after || (short_before && elapsed >= share_after / SHORT_ITEM) {
                    if short_before {
                        sites.forget(site);
                    }
                    let ran = offset.saturating_add(sample_len);
                    let publish_len = items_lasting(LONG_HALF, ran, elapsed);
                    let after = offset.saturating_add(front_len).saturating_add(sample_len);
                    return Probed::Sampled {
                        done: done.expect("a long step comes after the early ones"),
                        front: Rest {
                            source: front,
                            offset,
                            publish_len,
                        },
                        sample,
                        tail: tail.map(|source| Rest {
                            source,
                            offset: after,
                            publish_len,
                        }),
                    };
                }
                (front, Some(sample))
            } else {
                (piece, None)
            };
        let result = run_leaf(leaf, piece, offset);
        let result = match sampled {
            Some(sample) => combine(result, sample),
            None => result,
        };
        done = Some(match done {
            Some(done) => combine(done, result),
            None => result,
        });
        let Some(tail) = tail else {
            break;
        };
        // Saturating: a source longer than `usize::MAX` items has offsets past it.
        offset = offset.saturating_add(step);
        rest = tail;
        if short_before && offset == step_min {
            // A short loop last time: the rest in one step, its last items first, whose clock
            // read times the first item too.
            step = step_max;
            continue;
        }
        let elapsed = timestamp().wrapping_sub(started);
        if short_before && elapsed >= share_after {
            // Not a short loop this time. (Before a mark of expensive items, which replaces
            // it.)
            sites.forget(site);
        }
        if offset <= step_min.saturating_mul(EXPENSIVE_STEPS) && elapsed >= SHARE_AFTER {
            // The first few items took the full limit: the next run of this loop is shared at
            // once.
            sites.mark_expensive(site);
        }
        if elapsed >= share_after {
            let rest = Rest {
                source: rest,
                offset,
                publish_len: items_lasting(LONG_HALF, offset, elapsed),
            };
            return Probed::Rest(done.unwrap(), rest);
        }
        step = next_probe_step(offset, elapsed, share_after - elapsed, step_min, step_max);
        let last_step = total.saturating_sub(offset) < step.saturating_add(step_min);
        if last_step
            && !short_before
            && total >= step_min.saturating_mul(SHORT_LOOP_MIN_STEPS)
            && u128::from(elapsed) * total as u128
                <= u128::from(share_after / SHORT_LOOP) * offset as u128
        {
            // The next step ends the loop, which at the rate so far takes a fraction of the
            // limit: the next run can skip the early steps (see `history`).
            sites.remember_short_loop(site, total);
        }
    }
    // `done` is set: the loop body ran at least once.
    Probed::Done(done.unwrap())
}

/// The length of the probe's next step, after `offset` items ran in `elapsed` ticks with
/// `left` ticks of the limit left.
#[inline]
fn next_probe_step(
    offset: usize,
    elapsed: u64,
    left: u64,
    step_min: usize,
    step_max: usize,
) -> usize {
    // As many items as would reach the limit at the rate so far, but no more than
    // `PROBE_GROWTH` (early on `EARLY_GROWTH`) times what ran: later items may cost more
    // than the first ones. (The division, some tens of cycles, is only paid near the
    // limit.)
    let growth = if offset < step_min.saturating_mul(EARLY_SAMPLE) {
        EARLY_GROWTH
    } else {
        PROBE_GROWTH
    };
    let target = if elapsed.saturating_mul(growth as u64) <= left {
        offset.saturating_mul(growth)
    } else {
        // Near the limit: the items that fit in the time left, at the rate so far.
        let fits = u128::from(left) * offset as u128 / u128::from(elapsed.max(1));
        offset.saturating_add(usize::try_from(fits).unwrap_or(usize::MAX))
    };
    // Steps past the first few end on multiples of `ALIGN_ITEMS`: pieces of a slice then
    // start where its first element's alignment repeats, so a leaf's vector loop reads as
    // it would over the whole slice.
    let target = if target < ALIGN_ITEMS {
        target
    } else {
        target
            .checked_next_multiple_of(ALIGN_ITEMS)
            .unwrap_or(usize::MAX)
    };
    target.saturating_sub(offset).clamp(step_min, step_max)
}

/// Runs one piece of the probe. Out of line, so that the leaf's loop is compiled on its own
/// (as the caller's sequential loop would be), not squeezed into the probe's loop.
#[inline(never)]
fn run_leaf<P, T, L: Fn(P, usize) -> T>(leaf: &L, piece: P, offset: usize) -> T {
    leaf(piece, offset)
}

/// Splits off the first `len` items (all of them if there are fewer).
fn split_front<P: ParallelSource>(source: P, len: usize) -> (P, P) {
    let at = len.min(source.par_len());
    split_at_checked(source, at)
}

/// `source.par_split_at(at)` (`at <= source.par_len()`), checked: the pieces must hold `at`
/// and the rest of the items. The offsets the engine hands to leaves are computed from these
/// lengths, and in-place collection writes at those offsets; `ParallelSource` is a safe trait,
/// so a wrong implementation must panic here rather than make two pieces overlap.
///
/// A source with more than `usize::MAX` items (`0..=u64::MAX`, a long `u128` range) reports
/// `usize::MAX`, so its rest may report anything from `usize::MAX - at` up. Its offsets
/// saturate at `usize::MAX` (see `split`), where no in-place collection can write.
fn split_at_checked<P: ParallelSource>(source: P, at: usize) -> (P, P) {
    let len = source.par_len();
    let (left, right) = source.par_split_at(at);
    let (left_len, right_len) = (left.par_len(), right.par_len());
    let rest_fits = right_len == len - at || (len == usize::MAX && right_len >= len - at);
    assert!(
        left_len == at && rest_fits,
        "blitz: a parallel source of {len} items split at {at} into pieces of {left_len} and \
         {right_len} items (`par_split_at` and `par_len` disagree)"
    );
    (left, right)
}

/// The result of a skipped piece: `leaf` on its empty front; the rest is dropped.
fn skip<P, T, L>(source: P, offset: usize, leaf: &L) -> T
where
    P: ParallelSource,
    L: Fn(P, usize) -> T,
{
    let (empty, _dropped) = split_at_checked(source, 0);
    leaf(empty, offset)
}

/// Phase 2 of [`drive`]: the recursive adaptive split. `stolen`: this piece was just taken
/// by another worker than the one that forked it.
#[allow(clippy::too_many_arguments)]
fn split<P, T, L, C, S>(
    worker: &Worker,
    source: P,
    offset: usize,
    mut splitter: Splitter,
    stolen: bool,
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
    let len = source.par_len();
    if stop.skip(offset, len) {
        return skip(source, offset, leaf);
    }
    // The source's minimum is read again: a source may raise it as it runs (a `par_bridge`
    // whose iterator has ended). For every other source it is the splitter's own, or lower.
    if len / 2 < source.par_min_len() || !splitter.try_split(len, stolen) {
        if S::MAY_SKIP {
            return leaf_in_blocks(source, offset, splitter.min_len(), stop, leaf, combine);
        }
        return leaf(source, offset);
    }
    let (left, right, mid) = if len == usize::MAX {
        // Perhaps more items than `usize::MAX` (a long `u128` range): halved by the source
        // itself, whose lengths saturate (so do the offsets past `usize::MAX`).
        let (left, right) = source.par_split_half();
        let mid = left.par_len();
        (left, right, mid)
    } else {
        let mid = len / 2;
        let (left, right) = split_at_checked(source, mid);
        (left, right, mid)
    };
    let forker = worker.index();
    let left = |w: &Worker| split(w, left, offset, splitter, false, stop, leaf, combine);
    let right = |w: &Worker| {
        let stolen = w.index() != forker;
        let offset = offset.saturating_add(mid);
        split(w, right, offset, splitter, stolen, stop, leaf, combine)
    };
    let (a, b) = if splitter.publishes(len) {
        worker.join_published(left, right)
    } else {
        worker.join(left, right)
    };
    combine(a, b)
}

/// How long (in [`timestamp`] units) one block of a search's leaf should run: how late a
/// leaf may notice that another piece settled the answer.
const BLOCK_TICKS: u64 = SHARE_AFTER / 4;

/// A search's leaf: `leaf` on blocks of `source`, asking `stop` before each whether the rest
/// still matters. A leaf's own search loop asks too, but only between the items it yields:
/// below a `filter` that rejects a long stretch, it would not ask until the stretch ends.
/// Blocks are of the source's items, so they end on time whatever the adaptors do; they start
/// at `min_len` items (the grain) and grow or shrink to last about [`BLOCK_TICKS`]. Results
/// are combined in source order, whichever end runs first.
fn leaf_in_blocks<P, T, L, C, S>(
    source: P,
    offset: usize,
    min_len: usize,
    stop: &S,
    leaf: &L,
    combine: &C,
) -> T
where
    P: ParallelSource,
    L: Fn(P, usize) -> T,
    C: Fn(T, T) -> T,
    S: Stop,
{
    // A length that may be saturated cannot be cut from the back.
    let from_back = S::FROM_BACK && source.par_len() != usize::MAX;
    let min_len = min_len.max(1);
    let mut block = min_len;
    let mut rest = source;
    let mut rest_offset = offset;
    let mut done: Option<T> = None;
    // `done` holds the results of the blocks run so far, which lie after `rest` when running
    // from the back and before it otherwise.
    let add = |done: Option<T>, result: T| match done {
        None => result,
        Some(done) if from_back => combine(result, done),
        Some(done) => combine(done, result),
    };
    loop {
        let len = rest.par_len();
        if stop.skip(rest_offset, len) {
            return add(done, skip(rest, rest_offset, leaf));
        }
        // A remainder shorter than the minimum goes with this block. The source's own minimum
        // is read again at each block: a source may stop being worth cutting (a bridge whose
        // iterator ended, with a nominal length of 2^55 items left), and its rest then runs
        // as one block instead of as ever more empty ones.
        let min_len = min_len.max(rest.par_min_len());
        if len - block.min(len) < min_len {
            block = len;
        }
        let (piece, piece_offset, tail) = if from_back {
            let (tail, piece) = split_at_checked(rest, len - block);
            (piece, rest_offset.saturating_add(len - block), tail)
        } else {
            let (piece, tail) = split_front(rest, block);
            (piece, rest_offset, tail)
        };
        let started = timestamp();
        let result = leaf(piece, piece_offset);
        let elapsed = timestamp().wrapping_sub(started);
        done = Some(add(done, result));
        if block == len {
            return done.unwrap();
        }
        if !from_back {
            rest_offset = rest_offset.saturating_add(block);
        }
        rest = tail;
        block = if elapsed < BLOCK_TICKS / 4 {
            block.saturating_mul(4)
        } else if elapsed < BLOCK_TICKS / 2 {
            block.saturating_mul(2)
        } else if elapsed > BLOCK_TICKS.saturating_mul(2) {
            (block / 2).max(min_len)
        } else {
            block
        };
    }
}

#[cfg(all(test, not(loom)))]
mod tests;
