//! `par_bridge`: a sequential iterator's items, run as a parallel iterator.

use super::{IntoParallelIterator, ParallelIterator, ProducerCallback};

/// Turns a sequential iterator into a parallel one (rayon's `ParallelBridge`), for sources
/// that cannot be split: lines of a reader, directory entries, a channel's messages.
///
/// Blitz's pieces are split by index, so the bridge first takes every item from the iterator
/// on the calling thread, then runs the chain over them in parallel, in the iterator's order.
/// Unlike rayon's bridge, which hands items to workers as the iterator yields them, it
/// therefore needs an iterator that ends, and overlaps no parallel work with the iteration
/// itself. When the items can be produced from an index (a range, a slice), use those
/// sources instead.
///
/// ```
/// use blitz::prelude::*;
/// let text = "3\n1\n4\n1\n5";
/// let total: u32 = text.lines().par_bridge().map(|l| l.parse::<u32>().unwrap()).sum();
/// assert_eq!(total, 14);
/// ```
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
        let items: Vec<I::Item> = self.iter.collect();
        items.into_par_iter().with_producer(callback)
    }
}
