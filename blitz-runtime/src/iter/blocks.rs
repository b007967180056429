//! `by_exponential_blocks` and `by_uniform_blocks`: accepted for code written against rayon,
//! and run as the base iterator.
//!
//! In rayon they cut an indexed iterator into blocks run one after another, so that a search
//! that stops early (`find_first`, `position_first`, `take_any_while`, ...) does not run far
//! past its answer. The loop engine already does what they are for: its caller runs the front
//! of the input first, growing the pieces step by step, before anything is shared, and the
//! ordered searches skip every piece after a hit. So both return their base unchanged in
//! behaviour, wrapped only to keep rayon's types.

use super::{IndexedParallelIterator, ParallelIterator, ProducerCallback};

macro_rules! block_adaptor {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        #[must_use = "parallel iterators do nothing until consumed"]
        pub struct $name<I> {
            base: I,
        }

        impl<I> $name<I> {
            pub(super) fn new(base: I) -> Self {
                $name { base }
            }
        }

        impl<I: IndexedParallelIterator> ParallelIterator for $name<I> {
            type Item = I::Item;

            fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
                self.base.with_producer(callback)
            }

            fn opt_len(&self) -> Option<usize> {
                self.base.opt_len()
            }
        }

        impl<I: IndexedParallelIterator> IndexedParallelIterator for $name<I> {
            fn len(&self) -> usize {
                self.base.len()
            }
        }
    };
}

block_adaptor!(
    /// The iterator of [`IndexedParallelIterator::by_exponential_blocks`]: its base.
    ExponentialBlocks
);

block_adaptor!(
    /// The iterator of [`IndexedParallelIterator::by_uniform_blocks`]: its base.
    UniformBlocks
);
