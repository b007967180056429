//! `by_exponential_blocks` and `by_uniform_blocks`: the iterator runs in blocks, one after
//! another, as in rayon. Each block is a loop of its own, shared among the workers; the next
//! starts when it is done, and a search whose answer is settled skips the blocks after it (see
//! `loops::blocks`). So a `find_first` or a `take_any_while` does not run far past its answer,
//! and the items of one block run before those of the next.
//!
//! The engine already runs a loop's front first, growing its pieces, before it shares the rest,
//! and the ordered searches skip every piece after a hit, so blocks are rarely needed for
//! speed; they are for code that relies on their order.

use super::adaptors::forward_source;
use super::{IndexedParallelIterator, ParallelIterator, ParallelSource, ProducerCallback};

/// The exponential blocks' first block: one item per worker, as in rayon.
fn first_exponential_block() -> usize {
    crate::current_num_threads()
}

/// The iterator of [`IndexedParallelIterator::by_exponential_blocks`]: blocks of one item per
/// worker, then twice as many each time.
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct ExponentialBlocks<I> {
    base: I,
}

impl<I> ExponentialBlocks<I> {
    pub(super) fn new(base: I) -> Self {
        ExponentialBlocks { base }
    }
}

/// The iterator of [`IndexedParallelIterator::by_uniform_blocks`]: blocks of `block_size`
/// items.
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct UniformBlocks<I> {
    base: I,
    block_size: usize,
}

impl<I> UniformBlocks<I> {
    pub(super) fn new(base: I, block_size: usize) -> Self {
        UniformBlocks { base, block_size }
    }
}

macro_rules! block_adaptor {
    ($name:ident, |$this:ident| $blocks:expr) => {
        impl<I: IndexedParallelIterator> ParallelIterator for $name<I> {
            type Item = I::Item;

            fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
                let $this = &self;
                let blocks = $blocks;
                self.base.with_producer(BlocksCallback { callback, blocks })
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

block_adaptor!(ExponentialBlocks, |_this| (first_exponential_block(), 2));
block_adaptor!(UniformBlocks, |this| (this.block_size, 1));

/// Hands the consumer the base's source, marked to run in `blocks`.
struct BlocksCallback<CB> {
    callback: CB,
    blocks: (usize, usize),
}

impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for BlocksCallback<CB> {
    type Output = CB::Output;

    fn call<P>(self, base: P) -> CB::Output
    where
        P: ParallelSource + IntoIterator<Item = T>,
    {
        self.callback.call(BlockSource {
            base,
            blocks: self.blocks,
        })
    }
}

/// A source that runs in blocks: its first block's length and the blocks' growth.
struct BlockSource<P> {
    base: P,
    blocks: (usize, usize),
}

forward_source!(BlockSource<P> { blocks } blocks = blocks where P: ParallelSource);

impl<P: IntoIterator> IntoIterator for BlockSource<P> {
    type Item = P::Item;
    type IntoIter = P::IntoIter;

    fn into_iter(self) -> P::IntoIter {
        self.base.into_iter()
    }
}
