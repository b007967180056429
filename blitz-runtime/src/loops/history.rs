//! The probe's memory: which loop sites have expensive items, and which ran as short loops.
//!
//! The probe (see `engine`) runs a loop's first items on its caller before it shares the rest, so
//! that a short loop never touches the pool. A loop site usually runs many times (every frame,
//! every iteration of an outer loop, every level of a recursion), and what its last run found
//! is a good guess for the next one, so the engine remembers one of two things per site here.
//!
//! **Expensive items.** When the probe's first few items (its first two steps) take longer than
//! the share limit, the loop paid for its probe with those items' time, during which every other
//! worker had nothing to do: on a pool of `P` workers running `n` such items, `P / n` of the
//! loop's ideal time. The next runs of such a site are shared at once, without a probe, as rayon
//! shares every loop. A run without a probe times its first piece, which the caller runs itself;
//! if that piece turns out cheap per item, the mark is cleared, and the site is probed again from
//! its next run on. A wrong mark costs one run a share that a probe would have avoided; a missing
//! mark costs one probe step, as without this table.
//!
//! **A short loop.** When a probe ran the whole loop on its caller, well within the limit, the
//! site is remembered with the loop's length (if it is not a handful of items, see
//! `engine::SHORT_LOOP_MIN_STEPS`). The next run of between half and twice that length skips
//! the probe's cautious early steps (see `engine::EARLY_SAMPLE`), which exist for loops whose
//! first items say nothing of the rest: after its first item it runs the rest as one step, that
//! step's last items first (see `engine::STEP_SAMPLE`), with one clock read after them. For a
//! loop of a few thousand additions those early steps were three clock reads and two leaf calls
//! of a few items each, about a tenth of its time. A run that has to share forgets the record.
//! A wrong record costs one run the early steps' caution: its first and last items are still
//! timed.
//!
//! A site is the instantiation of the engine's leaf call for the loop's closure type (each
//! closure has its own type), identified by that function's code address. The table is
//! direct-mapped: each slot holds one site's record, tagged with the low half of its address, and
//! a site recorded later in the same slot evicts it (which costs the evicted site one probe step).
//! Relaxed atomics throughout: the table is a hint, and a stale read costs one run its best
//! schedule, never a wrong result.

use std::sync::atomic::{AtomicU64, Ordering};

/// Slots in the table: loop sites that can be remembered at once.
const SLOTS: usize = 64;

/// The process's table (see the module docs).
pub(crate) static SITES: SiteTable = SiteTable::new();

/// A loop site (see the module docs). Never 0: it is a function's address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Site(usize);

impl Site {
    /// The site of the function at `leaf_call`, the engine's leaf call instantiated for one
    /// loop.
    pub(crate) fn of(leaf_call: usize) -> Site {
        debug_assert!(leaf_call != 0);
        Site(leaf_call)
    }

    /// The site's tag in its slot: the low half of its address, which tells apart any two
    /// functions of a binary smaller than 4 GiB. `None` for the one address in 2^32 whose tag
    /// would read as an empty slot: such a site is never remembered.
    fn tag(self) -> Option<u64> {
        let tag = self.0 as u64 & u64::from(u32::MAX);
        (tag != 0).then_some(tag << 32)
    }
}

/// What the table remembers of a site.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Remembered {
    /// Nothing: probe the loop.
    Nothing,
    /// Its items were found expensive and not found cheap since: share at once.
    ExpensiveItems,
    /// A run of `len` items ran whole on its caller, well within the probe's limit.
    ShortLoop { len: usize },
}

/// A slot's record below its tag: expensive items.
const EXPENSIVE: u64 = 0;

/// The records, one per slot: a site's tag in the high half and what is remembered of it in the
/// low half ([`EXPENSIVE`], or a short loop's length, at least 1 and at most `u32::MAX`); or 0.
pub(crate) struct SiteTable {
    slots: [AtomicU64; SLOTS],
}

impl SiteTable {
    pub(crate) const fn new() -> Self {
        SiteTable {
            slots: [const { AtomicU64::new(0) }; SLOTS],
        }
    }

    fn slot(&self, site: Site) -> &AtomicU64 {
        // Code addresses share their low bits (alignment) and their high bits (the same
        // binary): mix the middle ones.
        let mixed = (site.0 >> 4) ^ (site.0 >> 10) ^ (site.0 >> 16);
        &self.slots[mixed % SLOTS]
    }

    /// What is remembered of `site`.
    #[inline]
    pub(crate) fn recall(&self, site: Site) -> Remembered {
        let Some(tag) = site.tag() else {
            return Remembered::Nothing;
        };
        // Relaxed: a hint (module docs).
        let record = self.slot(site).load(Ordering::Relaxed);
        if record & !u64::from(u32::MAX) != tag {
            return Remembered::Nothing;
        }
        match record & u64::from(u32::MAX) {
            EXPENSIVE => Remembered::ExpensiveItems,
            len => Remembered::ShortLoop { len: len as usize },
        }
    }

    /// The probe's first few items took longer than the share limit.
    #[cold]
    pub(crate) fn mark_expensive(&self, site: Site) {
        if let Some(tag) = site.tag() {
            // Relaxed: a hint (module docs). Evicts whatever site held the slot.
            self.slot(site).store(tag | EXPENSIVE, Ordering::Relaxed);
        }
    }

    /// A loop of `len` items ran whole on its caller, well within the probe's limit.
    #[inline]
    pub(crate) fn remember_short_loop(&self, site: Site, len: usize) {
        let Some(tag) = site.tag() else {
            return;
        };
        let record = tag | (len.clamp(1, u32::MAX as usize) as u64);
        let slot = self.slot(site);
        // Relaxed: a hint (module docs). Written only when it changes, so that workers running
        // the same short loop over and over keep the slot's line shared.
        if slot.load(Ordering::Relaxed) != record {
            slot.store(record, Ordering::Relaxed);
        }
    }

    /// Forgets what is remembered of `site`: a run without a probe found its items cheap, or
    /// a run of a loop remembered as short had to share. Only the site's own record is cleared,
    /// not that of a site that evicted it meanwhile.
    #[cold]
    pub(crate) fn forget(&self, site: Site) {
        let Some(tag) = site.tag() else {
            return;
        };
        let slot = self.slot(site);
        // Relaxed: a hint (module docs).
        let record = slot.load(Ordering::Relaxed);
        if record & !u64::from(u32::MAX) == tag {
            let _ = slot.compare_exchange(record, 0, Ordering::Relaxed, Ordering::Relaxed);
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn records_are_per_site_and_forgotten_only_by_their_site() {
        use Remembered::*;
        let table = SiteTable::new();
        let a = Site::of(0x7ff0_0000_0010);
        // Another site in the same slot.
        let b = Site::of(a.0 + (1 << 22));
        assert!(std::ptr::eq(table.slot(a), table.slot(b)));
        let c = (1..)
            .map(|i| Site::of(a.0 + 16 * i))
            .find(|&c| !std::ptr::eq(table.slot(c), table.slot(a)))
            .unwrap();
        assert_eq!(table.recall(a), Nothing);
        table.mark_expensive(a);
        table.mark_expensive(c);
        assert_eq!(
            (table.recall(a), table.recall(c)),
            (ExpensiveItems, ExpensiveItems)
        );
        assert_eq!(table.recall(b), Nothing);
        // A colliding site evicts `a`, and `a` cannot clear `b`'s record.
        table.mark_expensive(b);
        assert_eq!(table.recall(a), Nothing);
        table.forget(a);
        assert_eq!(table.recall(b), ExpensiveItems);
        table.forget(b);
        table.mark_expensive(a);
        table.forget(a);
        assert_eq!(table.recall(a), Nothing);
        assert_eq!(table.recall(c), ExpensiveItems, "another slot is untouched");
        // Short loops: the length is kept (within 32 bits), replaced by a later record of the
        // site, evicted by a colliding site's, and forgotten.
        table.remember_short_loop(a, 2000);
        assert_eq!(table.recall(a), ShortLoop { len: 2000 });
        table.remember_short_loop(a, usize::MAX);
        assert_eq!(
            table.recall(a),
            ShortLoop {
                len: u32::MAX as usize
            }
        );
        table.mark_expensive(a);
        assert_eq!(table.recall(a), ExpensiveItems);
        table.remember_short_loop(a, 7);
        table.remember_short_loop(b, 9);
        assert_eq!(
            (table.recall(a), table.recall(b)),
            (Nothing, ShortLoop { len: 9 })
        );
        table.forget(a);
        assert_eq!(table.recall(b), ShortLoop { len: 9 });
        table.forget(b);
        assert_eq!(table.recall(b), Nothing);
        // A site whose tag would read as an empty slot is never remembered.
        let untagged = Site::of(1 << 32);
        table.mark_expensive(untagged);
        table.remember_short_loop(untagged, 5);
        assert_eq!(table.recall(untagged), Nothing);
    }
}
