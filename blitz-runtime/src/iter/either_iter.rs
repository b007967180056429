//! [`Either`] of two parallel iterators with the same items is one, as in rayon: a function
//! can return one of two iterator chains without boxing.

use super::{Either, IndexedParallelIterator, ParallelIterator, ProducerCallback};

impl<L, R> ParallelIterator for Either<L, R>
where
    L: ParallelIterator,
    R: ParallelIterator<Item = L::Item>,
{
    type Item = L::Item;

    fn with_producer<CB: ProducerCallback<L::Item>>(self, callback: CB) -> CB::Output {
        match self {
            Either::Left(left) => left.with_producer(callback),
            Either::Right(right) => right.with_producer(callback),
        }
    }

    fn opt_len(&self) -> Option<usize> {
        match self {
            Either::Left(left) => left.opt_len(),
            Either::Right(right) => right.opt_len(),
        }
    }
}

impl<L, R> IndexedParallelIterator for Either<L, R>
where
    L: IndexedParallelIterator,
    R: IndexedParallelIterator<Item = L::Item>,
{
    fn len(&self) -> usize {
        match self {
            Either::Left(left) => left.len(),
            Either::Right(right) => right.len(),
        }
    }
}
