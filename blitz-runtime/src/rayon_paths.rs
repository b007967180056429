//! rayon's module paths (`rayon::slice`, `rayon::collections::hash_map`, ...) for the traits
//! and iterator types that have them there, so that code naming a type by its rayon path
//! moves over with its `use`. Each type is an alias of the iterator Blitz returns, which is
//! often a more general one: the collections that cannot be split by index hand out a
//! [`VecIntoIter`](crate::iter::VecIntoIter) of their items, gathered first (see the impls of
//! [`IntoParallelIterator`](crate::iter::IntoParallelIterator)).

/// Parallel slices under rayon's module path (`rayon::slice`): the traits and the iterator
/// types of [`ParallelSlice`](crate::iter::ParallelSlice) and
/// [`ParallelSliceMut`](crate::iter::ParallelSliceMut), also in [`iter`](crate::iter) and the
/// prelude. The iterator types are also here under rayon's names (`Chunks` for `ParChunks`,
/// ...).
pub mod slice {
    pub use crate::iter::{
        ChunkByCut, Iter, IterMut, ParArrayWindows, ParChunks, ParChunksExact, ParChunksExactMut,
        ParChunksMut, ParRChunks, ParRChunksExact, ParRChunksExactMut, ParRChunksMut, ParWindows,
        ParallelSlice, ParallelSliceMut, SliceCut, SliceParts, SlicePartsMut, SplitCut,
        SplitInclusiveCut,
    };

    /// rayon's name for [`ParChunks`].
    pub type Chunks<'data, T> = ParChunks<'data, T>;
    /// rayon's name for [`ParChunksMut`].
    pub type ChunksMut<'data, T> = ParChunksMut<'data, T>;
    /// rayon's name for [`ParChunksExact`].
    pub type ChunksExact<'data, T> = ParChunksExact<'data, T>;
    /// rayon's name for [`ParChunksExactMut`].
    pub type ChunksExactMut<'data, T> = ParChunksExactMut<'data, T>;
    /// rayon's name for [`ParRChunks`].
    pub type RChunks<'data, T> = ParRChunks<'data, T>;
    /// rayon's name for [`ParRChunksMut`].
    pub type RChunksMut<'data, T> = ParRChunksMut<'data, T>;
    /// rayon's name for [`ParRChunksExact`].
    pub type RChunksExact<'data, T> = ParRChunksExact<'data, T>;
    /// rayon's name for [`ParRChunksExactMut`].
    pub type RChunksExactMut<'data, T> = ParRChunksExactMut<'data, T>;
    /// rayon's name for [`ParWindows`].
    pub type Windows<'data, T> = ParWindows<'data, T>;
    /// rayon's name for [`ParArrayWindows`].
    pub type ArrayWindows<'data, T, const N: usize> = ParArrayWindows<'data, T, N>;
    /// rayon's name for the iterator of `par_split`.
    pub type Split<'data, T, P> = SliceParts<'data, T, SplitCut<P>>;
    /// rayon's name for the iterator of `par_split_mut`.
    pub type SplitMut<'data, T, P> = SlicePartsMut<'data, T, SplitCut<P>>;
    /// rayon's name for the iterator of `par_split_inclusive`.
    pub type SplitInclusive<'data, T, P> = SliceParts<'data, T, SplitInclusiveCut<P>>;
    /// rayon's name for the iterator of `par_split_inclusive_mut`.
    pub type SplitInclusiveMut<'data, T, P> = SlicePartsMut<'data, T, SplitInclusiveCut<P>>;
    /// rayon's name for the iterator of `par_chunk_by`.
    pub type ChunkBy<'data, T, P> = SliceParts<'data, T, ChunkByCut<P>>;
    /// rayon's name for the iterator of `par_chunk_by_mut`.
    pub type ChunkByMut<'data, T, P> = SlicePartsMut<'data, T, ChunkByCut<P>>;
}

/// The parallel iterators of a `Vec` under rayon's module path (`rayon::vec`).
pub mod vec {
    /// rayon's name for [`VecIntoIter`](crate::iter::VecIntoIter): `vec.into_par_iter()`.
    pub type IntoIter<T> = crate::iter::VecIntoIter<T>;
    /// rayon's name for the iterator of `vec.par_drain(..)`, which takes the drained items
    /// out first: a [`VecIntoIter`](crate::iter::VecIntoIter).
    pub type Drain<'data, T> = crate::iter::VecIntoIter<T>;
}

/// Parallel string methods under rayon's module path (`rayon::str`): the
/// [`ParallelString`](crate::iter::ParallelString) trait, also in [`iter`](crate::iter) and
/// the prelude, and its iterators under rayon's names.
pub mod str {
    pub use crate::iter::ParallelString;
    use crate::iter::{
        AsciiWhitespaceKind, CharIndicesKind, CharsKind, Copied, EncodeUtf16Kind, Iter, LinesKind,
        MatchIndicesKind, MatchesKind, SplitKind, StrParts, WhitespaceKind,
    };

    /// rayon's name for the iterator of `par_chars`.
    pub type Chars<'ch> = StrParts<'ch, CharsKind>;
    /// rayon's name for the iterator of `par_char_indices`.
    pub type CharIndices<'ch> = StrParts<'ch, CharIndicesKind>;
    /// rayon's name for the iterator of `par_bytes`.
    pub type Bytes<'ch> = Copied<Iter<'ch, u8>>;
    /// rayon's name for the iterator of `par_encode_utf16`.
    pub type EncodeUtf16<'ch> = StrParts<'ch, EncodeUtf16Kind>;
    /// rayon's name for the iterator of `par_lines`.
    pub type Lines<'ch> = StrParts<'ch, LinesKind>;
    /// rayon's name for the iterator of `par_split_whitespace`.
    pub type SplitWhitespace<'ch> = StrParts<'ch, WhitespaceKind>;
    /// rayon's name for the iterator of `par_split_ascii_whitespace`.
    pub type SplitAsciiWhitespace<'ch> = StrParts<'ch, AsciiWhitespaceKind>;
    /// rayon's name for the iterator of `par_split`.
    pub type Split<'ch, P> = StrParts<'ch, SplitKind<P>>;
    /// rayon's name for the iterator of `par_split_terminator`.
    pub type SplitTerminator<'ch, P> = StrParts<'ch, SplitKind<P>>;
    /// rayon's name for the iterator of `par_split_inclusive`.
    pub type SplitInclusive<'ch, P> = StrParts<'ch, SplitKind<P>>;
    /// rayon's name for the iterator of `par_matches`.
    pub type Matches<'ch, P> = StrParts<'ch, MatchesKind<P>>;
    /// rayon's name for the iterator of `par_match_indices`.
    pub type MatchIndices<'ch, P> = StrParts<'ch, MatchIndicesKind<P>>;
}

/// The parallel iterator of `String::par_drain` under rayon's module path (`rayon::string`).
pub mod string {
    /// rayon's name for the iterator of `string.par_drain(..)`: the drained chars, taken out
    /// first.
    pub type Drain<'data> = crate::iter::VecIntoIter<char>;
}

/// The parallel iterator of an array by value under rayon's module path (`rayon::array`).
pub mod array {
    /// rayon's name for the iterator of `[T; N]::into_par_iter()`.
    pub type IntoIter<T, const N: usize> = crate::iter::VecIntoIter<T>;
}

/// The parallel iterators of `Option` under rayon's module path (`rayon::option`): the
/// option's item, if any, gathered into a [`VecIntoIter`](crate::iter::VecIntoIter).
pub mod option {
    /// rayon's name for the iterator of `option.into_par_iter()`.
    pub type IntoIter<T> = crate::iter::VecIntoIter<T>;
    /// rayon's name for the iterator of `option.par_iter()`.
    pub type Iter<'a, T> = crate::iter::VecIntoIter<&'a T>;
    /// rayon's name for the iterator of `option.par_iter_mut()`.
    pub type IterMut<'a, T> = crate::iter::VecIntoIter<&'a mut T>;
}

/// The parallel iterators of `Result` under rayon's module path (`rayon::result`): the `Ok`
/// value, if any, gathered into a [`VecIntoIter`](crate::iter::VecIntoIter).
pub mod result {
    /// rayon's name for the iterator of `result.into_par_iter()`.
    pub type IntoIter<T> = crate::iter::VecIntoIter<T>;
    /// rayon's name for the iterator of `result.par_iter()`.
    pub type Iter<'a, T> = crate::iter::VecIntoIter<&'a T>;
    /// rayon's name for the iterator of `result.par_iter_mut()`.
    pub type IterMut<'a, T> = crate::iter::VecIntoIter<&'a mut T>;
}

/// The parallel iterator of an integer `Range` under rayon's module path (`rayon::range`).
pub mod range {
    /// rayon's name for the iterator of `(a..b).into_par_iter()` over an integer type (a
    /// `Range<char>` yields another type here).
    pub type Iter<T> = crate::iter::RangeIter<std::ops::Range<T>>;
}

/// The parallel iterator of an integer `RangeInclusive` under rayon's module path
/// (`rayon::range_inclusive`).
pub mod range_inclusive {
    /// rayon's name for the iterator of `(a..=b).into_par_iter()` over an integer type (a
    /// `RangeInclusive<char>` yields another type here).
    pub type Iter<T> = crate::iter::RangeIter<std::ops::RangeInclusive<T>>;
}

/// The parallel iterators of the standard collections under rayon's module path
/// (`rayon::collections`). Only `VecDeque` and `BinaryHeap` (by reference) are split in place;
/// the others gather their items, or references to them, into a
/// [`VecIntoIter`](crate::iter::VecIntoIter) first.
pub mod collections {
    /// `BinaryHeap`'s parallel iterators under rayon's names.
    pub mod binary_heap {
        /// The iterator of `heap.into_par_iter()`.
        pub type IntoIter<T> = crate::iter::VecIntoIter<T>;
        /// The iterator of `heap.par_iter()`: the heap's slice, in its internal order.
        pub type Iter<'a, T> = crate::iter::Iter<'a, T>;
        /// The iterator of `heap.par_drain()`.
        pub type Drain<'a, T> = crate::iter::VecIntoIter<T>;
    }

    /// `BTreeMap`'s parallel iterators under rayon's names.
    pub mod btree_map {
        /// The iterator of `map.into_par_iter()`.
        pub type IntoIter<K, V> = crate::iter::VecIntoIter<(K, V)>;
        /// The iterator of `map.par_iter()`.
        pub type Iter<'a, K, V> = crate::iter::VecIntoIter<(&'a K, &'a V)>;
        /// The iterator of `map.par_iter_mut()`.
        pub type IterMut<'a, K, V> = crate::iter::VecIntoIter<(&'a K, &'a mut V)>;
    }

    /// `BTreeSet`'s parallel iterators under rayon's names.
    pub mod btree_set {
        /// The iterator of `set.into_par_iter()`.
        pub type IntoIter<T> = crate::iter::VecIntoIter<T>;
        /// The iterator of `set.par_iter()`.
        pub type Iter<'a, T> = crate::iter::VecIntoIter<&'a T>;
    }

    /// `HashMap`'s parallel iterators under rayon's names.
    pub mod hash_map {
        /// The iterator of `map.into_par_iter()`.
        pub type IntoIter<K, V> = crate::iter::VecIntoIter<(K, V)>;
        /// The iterator of `map.par_iter()`.
        pub type Iter<'a, K, V> = crate::iter::VecIntoIter<(&'a K, &'a V)>;
        /// The iterator of `map.par_iter_mut()`.
        pub type IterMut<'a, K, V> = crate::iter::VecIntoIter<(&'a K, &'a mut V)>;
        /// The iterator of `map.par_drain()`.
        pub type Drain<'a, K, V> = crate::iter::VecIntoIter<(K, V)>;
    }

    /// `HashSet`'s parallel iterators under rayon's names.
    pub mod hash_set {
        /// The iterator of `set.into_par_iter()`.
        pub type IntoIter<T> = crate::iter::VecIntoIter<T>;
        /// The iterator of `set.par_iter()`.
        pub type Iter<'a, T> = crate::iter::VecIntoIter<&'a T>;
        /// The iterator of `set.par_drain()`.
        pub type Drain<'a, T> = crate::iter::VecIntoIter<T>;
    }

    /// `LinkedList`'s parallel iterators under rayon's names.
    pub mod linked_list {
        /// The iterator of `list.into_par_iter()`.
        pub type IntoIter<T> = crate::iter::VecIntoIter<T>;
        /// The iterator of `list.par_iter()`.
        pub type Iter<'a, T> = crate::iter::VecIntoIter<&'a T>;
        /// The iterator of `list.par_iter_mut()`.
        pub type IterMut<'a, T> = crate::iter::VecIntoIter<&'a mut T>;
    }

    /// `VecDeque`'s parallel iterators under rayon's names.
    pub mod vec_deque {
        use crate::iter::Chain;

        /// The iterator of `deque.into_par_iter()`.
        pub type IntoIter<T> = crate::iter::VecIntoIter<T>;
        /// The iterator of `deque.par_iter()`: its two slices, chained.
        pub type Iter<'a, T> = Chain<crate::iter::Iter<'a, T>, crate::iter::Iter<'a, T>>;
        /// The iterator of `deque.par_iter_mut()`: its two slices, chained.
        pub type IterMut<'a, T> = Chain<crate::iter::IterMut<'a, T>, crate::iter::IterMut<'a, T>>;
        /// The iterator of `deque.par_drain(..)`.
        pub type Drain<'a, T> = crate::iter::VecIntoIter<T>;
    }
}
