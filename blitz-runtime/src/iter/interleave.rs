//! `interleave` and `interleave_shortest`: the items of two indexed iterators in turn.

use super::pair::{PairCallback, with_producers};
use super::{IndexedParallelIterator, ParallelIterator, ProducerCallback, Take};
use crate::loops::ParallelSource;

/// The iterator of [`IndexedParallelIterator::interleave`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Interleave<A, B> {
    a: A,
    b: B,
}

impl<A, B> Interleave<A, B> {
    pub(super) fn new(a: A, b: B) -> Self {
        Interleave { a, b }
    }
}

impl<A, B> ParallelIterator for Interleave<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator<Item = A::Item>,
{
    type Item = A::Item;

    fn with_producer<CB: ProducerCallback<A::Item>>(self, callback: CB) -> CB::Output {
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
                self.callback.call(InterleaveProducer {
                    a,
                    b,
                    a_first: true,
                })
            }
        }
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<A, B> IndexedParallelIterator for Interleave<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator<Item = A::Item>,
{
    fn len(&self) -> usize {
        self.a
            .len()
            .checked_add(self.b.len())
            .expect("interleave: the two iterators have more than usize::MAX items together")
    }
}

/// A piece of an interleaving: the rest of `a` and of `b`, taken in turn from the side
/// `a_first` names, then whatever is left of the longer one.
struct InterleaveProducer<PA, PB> {
    a: PA,
    b: PB,
    a_first: bool,
}

impl<PA, PB> ParallelSource for InterleaveProducer<PA, PB>
where
    PA: ParallelSource + IntoIterator,
    PB: ParallelSource + IntoIterator<Item = PA::Item>,
{
    fn par_len(&self) -> usize {
        self.a.par_len() + self.b.par_len()
    }

    fn par_split_at(self, index: usize) -> (Self, Self) {
        let (a_len, b_len) = (self.a.par_len(), self.b.par_len());
        let turns = 2 * a_len.min(b_len);
        // How many of the first `index` items come from `a`.
        let from_a = if index <= turns {
            // In turns: the side that goes first gets the odd one out.
            if self.a_first {
                index.div_ceil(2)
            } else {
                index / 2
            }
        } else if a_len <= b_len {
            a_len
        } else {
            index - b_len
        };
        let (a_front, a_back) = self.a.par_split_at(from_a);
        let (b_front, b_back) = self.b.par_split_at(index - from_a);
        let a_first = self.a_first;
        (
            InterleaveProducer {
                a: a_front,
                b: b_front,
                a_first,
            },
            InterleaveProducer {
                a: a_back,
                b: b_back,
                // An odd number of items in turns hands the next turn to the other side.
                a_first: a_first != (index.min(turns) % 2 == 1),
            },
        )
    }

    fn par_min_len(&self) -> usize {
        self.a.par_min_len().max(self.b.par_min_len())
    }

    fn par_max_len(&self) -> usize {
        self.a.par_max_len().min(self.b.par_max_len())
    }
}

impl<PA, PB> IntoIterator for InterleaveProducer<PA, PB>
where
    PA: IntoIterator,
    PB: IntoIterator<Item = PA::Item>,
{
    type Item = PA::Item;
    type IntoIter = InterleaveIter<PA::IntoIter, PB::IntoIter>;

    fn into_iter(self) -> Self::IntoIter {
        InterleaveIter {
            a: self.a.into_iter(),
            b: self.b.into_iter(),
            a_next: self.a_first,
        }
    }
}

/// The sequential side of an interleaving: turns while both sides last, then the rest.
pub(super) struct InterleaveIter<IA, IB> {
    a: IA,
    b: IB,
    a_next: bool,
}

impl<IA, IB> Iterator for InterleaveIter<IA, IB>
where
    IA: Iterator,
    IB: Iterator<Item = IA::Item>,
{
    type Item = IA::Item;

    fn next(&mut self) -> Option<IA::Item> {
        let take_a = self.a_next;
        self.a_next = !take_a;
        if take_a {
            self.a.next().or_else(|| self.b.next())
        } else {
            self.b.next().or_else(|| self.a.next())
        }
    }
}

/// The iterator of [`IndexedParallelIterator::interleave_shortest`]: an [`Interleave`] of the
/// two cut where the turns end (at the first turn whose side has nothing left).
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct InterleaveShortest<A, B> {
    inner: Interleave<Take<A>, Take<B>>,
}

impl<A, B> InterleaveShortest<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator<Item = A::Item>,
{
    pub(super) fn new(a: A, b: B) -> Self {
        let (a_len, b_len) = (a.len(), b.len());
        // `a` goes first: it gets one more turn when it is the longer.
        let (a_take, b_take) = if a_len <= b_len {
            (a_len, a_len)
        } else {
            (b_len + 1, b_len)
        };
        InterleaveShortest {
            inner: Interleave::new(a.take(a_take), b.take(b_take)),
        }
    }
}

impl<A, B> ParallelIterator for InterleaveShortest<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator<Item = A::Item>,
{
    type Item = A::Item;

    fn with_producer<CB: ProducerCallback<A::Item>>(self, callback: CB) -> CB::Output {
        self.inner.with_producer(callback)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.inner.len())
    }
}

impl<A, B> IndexedParallelIterator for InterleaveShortest<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator<Item = A::Item>,
{
    fn len(&self) -> usize {
        self.inner.len()
    }
}
