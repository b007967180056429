//! The probe's memory: which loop sites have expensive items.
//!
//! The probe (see `engine`) runs a loop's first items on its caller before it shares the rest, so
//! that a short loop never touches the pool. When the probe's first few items (its first two steps)
//! take longer than the share limit, the items are expensive, and the loop paid for its probe with
//! those items' time during which every other worker had nothing to do: on a pool of `P` workers
//! running `n` such items, `P / n` of the loop's ideal time. A loop site usually runs many times
//! (every frame, every iteration of an outer loop, every level of a recursion), so the engine marks
//! such a site here, and the next runs of that site are shared at once, without a probe, as rayon
//! shares every loop. A run without a probe times its first piece, which the caller runs itself; if
//! that piece turns out cheap per item, the mark is cleared, and the site is probed again from its
//! next run on. A wrong mark costs one run a share that a probe would have avoided; a missing mark
//! costs one probe step, as without this table.
//!
//! A site is the instantiation of the engine's leaf call for the loop's closure type (each
//! closure has its own type), identified by that function's code address. The table is
//! direct-mapped: each slot holds the address of the site marked there, and a site marked
//! later in the same slot evicts it (which costs the evicted site one probe step). Relaxed
//! atomics throughout: the table is a hint, and a stale read costs one run its best schedule,
//! never a wrong result.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Slots in the table: loop sites with expensive items that can be remembered at once.
const SLOTS: usize = 64;

/// The process's table (see the module docs).
pub(crate) static EXPENSIVE_SITES: SiteTable = SiteTable::new();

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
}

/// Marked sites: a site's address in its slot, or 0.
pub(crate) struct SiteTable {
    slots: [AtomicUsize; SLOTS],
}

impl SiteTable {
    const fn new() -> Self {
        SiteTable {
            slots: [const { AtomicUsize::new(0) }; SLOTS],
        }
    }

    fn slot(&self, site: Site) -> &AtomicUsize {
        // Code addresses share their low bits (alignment) and their high bits (the same
        // binary): mix the middle ones.
        let mixed = (site.0 >> 4) ^ (site.0 >> 10) ^ (site.0 >> 16);
        &self.slots[mixed % SLOTS]
    }

    /// True if the site's items were found expensive and not found cheap since.
    #[inline]
    pub(crate) fn has_expensive_items(&self, site: Site) -> bool {
        // Relaxed: a hint (module docs).
        self.slot(site).load(Ordering::Relaxed) == site.0
    }

    /// The probe's first few items took longer than the share limit.
    #[cold]
    pub(crate) fn mark_expensive(&self, site: Site) {
        // Relaxed: a hint (module docs). Evicts whatever site held the slot.
        self.slot(site).store(site.0, Ordering::Relaxed);
    }

    /// A run without a probe found the items cheap: probe the next run again.
    #[cold]
    pub(crate) fn mark_cheap(&self, site: Site) {
        // Relaxed: a hint (module docs). Only the site's own mark is cleared, not that of a
        // site that evicted it meanwhile.
        let _ = self
            .slot(site)
            .compare_exchange(site.0, 0, Ordering::Relaxed, Ordering::Relaxed);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn marks_are_per_site_and_cleared_only_by_their_site() {
        let table = SiteTable::new();
        let a = Site::of(0x7ff0_0000_0010);
        // Another site in the same slot.
        let b = Site::of(a.0 + (1 << 22));
        assert!(std::ptr::eq(table.slot(a), table.slot(b)));
        let c = (1..)
            .map(|i| Site::of(a.0 + 16 * i))
            .find(|&c| !std::ptr::eq(table.slot(c), table.slot(a)))
            .unwrap();
        assert!(!table.has_expensive_items(a));
        table.mark_expensive(a);
        table.mark_expensive(c);
        assert!(table.has_expensive_items(a) && table.has_expensive_items(c));
        assert!(!table.has_expensive_items(b));
        // A colliding site evicts `a`, and `a` cannot clear `b`'s mark.
        table.mark_expensive(b);
        assert!(!table.has_expensive_items(a));
        table.mark_cheap(a);
        assert!(table.has_expensive_items(b));
        table.mark_cheap(b);
        table.mark_expensive(a);
        table.mark_cheap(a);
        assert!(!table.has_expensive_items(a));
        assert!(table.has_expensive_items(c), "another slot is untouched");
    }
}
