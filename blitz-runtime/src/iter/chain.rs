//! `chain`: the items of one parallel iterator, then those of another.

use super::pair::{PairCallback, with_producers};
use super::{IndexedParallelIterator, ParallelIterator, ProducerCallback};
use crate::loops::ParallelSource;

/// The iterator of [`ParallelIterator::chain`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Chain<A, B> {
    a: A,
    b: B,
}

impl<A, B> Chain<A, B> {
    pub(super) fn new(a: A, b: B) -> Self {
        Chain { a, b }
    }
}

impl<A, B> ParallelIterator for Chain<A, B>
where
    A: ParallelIterator,
    B: ParallelIterator<Item = A::Item>,
{
    type Item = A::Item;

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        return with_producers(self.a, self.b, Callback { callback });

        struct Callback<CB> {
            callback: CB,
        }

        impl<T, CB: ProducerCallback<T>> PairCallback<T, T> for Callback<CB> {
            type Output = CB::Output;

            fn call<PA, PB>(self, a: PA, b: PB) -> CB::Output
            where
                PA: ParallelSource + IntoIterator<Item = T>,
                PB: ParallelSource + IntoIterator<Item = T>,
            {
                self.callback.call(ChainProducer { a, b })
            }
        }
    }

    fn opt_len(&self) -> Option<usize> {
        self.a.opt_len()?.checked_add(self.b.opt_len()?)
    }
}

impl<A, B> IndexedParallelIterator for Chain<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator<Item = A::Item>,
{
    fn len(&self) -> usize {
        self.a
            .len()
            .checked_add(self.b.len())
            .expect("chain: the two iterators have more than usize::MAX items together")
    }
}

/// A piece of a chain: a piece of `a` (possibly empty) followed by a piece of `b` (possibly
/// empty). Source indices run through `a`'s first, so pieces keep the chain's order.
struct ChainProducer<PA, PB> {
    a: PA,
    b: PB,
}

impl<PA, PB> ParallelSource for ChainProducer<PA, PB>
where
    PA: ParallelSource + IntoIterator,
    PB: ParallelSource + IntoIterator<Item = PA::Item>,
{
    /// Saturating: two sources with more than `usize::MAX` items together report
    /// `usize::MAX`, as a source longer than a length can count does (a wrapped sum made a
    /// search over `(0..usize::MAX).chain(0..5)` see 4 items).
    fn par_len(&self) -> usize {
        self.a.par_len().saturating_add(self.b.par_len())
    }

    fn par_split_at(self, index: usize) -> (Self, Self) {
        let a_len = self.a.par_len();
        if index <= a_len {
            let (a_front, a_back) = self.a.par_split_at(index);
            let (b_none, b) = self.b.par_split_at(0);
            (
                ChainProducer {
                    a: a_front,
                    b: b_none,
                },
                ChainProducer { a: a_back, b },
            )
        } else {
            let (b_front, b_back) = self.b.par_split_at(index - a_len);
            let (a, a_none) = self.a.par_split_at(a_len);
            (
                ChainProducer { a, b: b_front },
                ChainProducer {
                    a: a_none,
                    b: b_back,
                },
            )
        }
    }

    fn par_min_len(&self) -> usize {
        self.a.par_min_len().max(self.b.par_min_len())
    }

    /// Halves the side that is too long to count (see `par_len`), which holds most items.
    fn par_split_half(self) -> (Self, Self) {
        if self.a.par_len() == usize::MAX {
            let (a_front, a_back) = self.a.par_split_half();
            let (b_none, b) = self.b.par_split_at(0);
            let front = ChainProducer {
                a: a_front,
                b: b_none,
            };
            (front, ChainProducer { a: a_back, b })
        } else if self.b.par_len() == usize::MAX {
            let (b_front, b_back) = self.b.par_split_half();
            let a_len = self.a.par_len();
            let (a, a_none) = self.a.par_split_at(a_len);
            let back = ChainProducer {
                a: a_none,
                b: b_back,
            };
            (ChainProducer { a, b: b_front }, back)
        } else {
            let mid = self.par_len() / 2;
            self.par_split_at(mid)
        }
    }

    fn par_max_len(&self) -> usize {
        self.a.par_max_len().min(self.b.par_max_len())
    }
}

impl<PA, PB> IntoIterator for ChainProducer<PA, PB>
where
    PA: IntoIterator,
    PB: IntoIterator<Item = PA::Item>,
{
    type Item = PA::Item;
    type IntoIter = std::iter::Chain<PA::IntoIter, PB::IntoIter>;

    fn into_iter(self) -> Self::IntoIter {
        self.a.into_iter().chain(self.b)
    }
}
