//! `UntilFlag`: a parallel iterator that stops yielding once a shared flag is raised, so that
//! a consumer can end early what the adaptors before it would otherwise go on computing
//! (`collect` into a `Result` or an `Option` stops at a failure, as rayon's does).
//!
//! Each piece looks at the flag before pulling each item (one relaxed load); a piece started
//! after the flag went up yields nothing. Not indexed: it may yield fewer items than its
//! source.
//!
//! With `raise_on_unwind`, a piece also raises the flag if a panic unwinds through it (in the
//! adaptors before it or the consumer after it): `panic_fuse`.

use std::sync::atomic::{AtomicBool, Ordering};

use super::adaptors::forward_source;
use super::{ParallelIterator, ProducerCallback};
use crate::loops::ParallelSource;

/// The items of `base` until `flag` is raised.
pub(super) struct UntilFlag<'a, I> {
    pub(super) base: I,
    pub(super) flag: &'a AtomicBool,
    /// Raise `flag` when a piece is dropped by a panic's unwinding.
    pub(super) raise_on_unwind: bool,
}

impl<I: ParallelIterator> ParallelIterator for UntilFlag<'_, I> {
    type Item = I::Item;

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        return self.base.with_producer(Callback {
            callback,
            flag: self.flag,
            raise_on_unwind: self.raise_on_unwind,
        });

        struct Callback<'a, CB> {
            callback: CB,
            flag: &'a AtomicBool,
            raise_on_unwind: bool,
        }

        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<'_, CB> {
            type Output = CB::Output;

            fn call<P>(self, base: P) -> CB::Output
            where
                P: ParallelSource + IntoIterator<Item = T>,
            {
                self.callback.call(UntilFlagProducer {
                    base,
                    flag: self.flag,
                    raise_on_unwind: self.raise_on_unwind,
                })
            }
        }
    }
}

struct UntilFlagProducer<'a, P> {
    base: P,
    flag: &'a AtomicBool,
    raise_on_unwind: bool,
}

forward_source!(UntilFlagProducer<'a, P> { flag, raise_on_unwind } where P: ParallelSource);

impl<'a, P: IntoIterator> IntoIterator for UntilFlagProducer<'a, P> {
    type Item = P::Item;
    type IntoIter = UntilFlagIter<'a, P::IntoIter>;

    fn into_iter(self) -> Self::IntoIter {
        UntilFlagIter {
            items: self.base.into_iter(),
            flag: self.flag,
            // A piece that starts while its thread already unwinds (an iterator run from a
            // `Drop` during a panic) learns nothing from `panicking()` at its end.
            raise_on_unwind: self.raise_on_unwind && !std::thread::panicking(),
        }
    }
}

pub(super) struct UntilFlagIter<'a, It> {
    items: It,
    flag: &'a AtomicBool,
    raise_on_unwind: bool,
}

impl<It: Iterator> Iterator for UntilFlagIter<'_, It> {
    type Item = It::Item;

    #[inline]
    fn next(&mut self) -> Option<It::Item> {
        // Relaxed: a hint to stop early; what was yielded before it is kept either way.
        if self.flag.load(Ordering::Relaxed) {
            return None;
        }
        self.items.next()
    }
}

impl<It> Drop for UntilFlagIter<'_, It> {
    fn drop(&mut self) {
        if self.raise_on_unwind && std::thread::panicking() {
            // Relaxed: a hint, as in `next`; the panic itself reaches the caller through the
            // join that runs this piece.
            self.flag.store(true, Ordering::Relaxed);
        }
    }
}
