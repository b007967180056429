//! `collect`, `unzip` and `partition_map`: building collections from parallel iterators.
//!
//! Into a `Vec`, an indexed iterator is written in place: the `Vec` reserves its final length
//! and every piece writes its items at its own offset, so nothing is appended or copied
//! afterwards. Each piece's written items are owned by a [`WrittenRun`] guard until they are
//! merged with their neighbours'; if anything panics, every guard drops the items it holds and
//! the `Vec` keeps its old length. An iterator of unknown length (`filter`, ...) collects each
//! piece into a `Vec` of its own and then moves the pieces into place in parallel.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::ffi::{OsStr, OsString};
use std::hash::{BuildHasher, Hash};
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::ptr;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::Either;
use super::consumers::{Leaf, run};
use super::until_flag::UntilFlag;
use super::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};
use crate::loops::{NeverStop, drive};
use crate::raw::{SendPtr, WrittenRun};

/// A collection that can be built from a parallel iterator (`ParallelIterator::collect`):
/// rayon's `FromParallelIterator`.
///
/// ```
/// use blitz::prelude::*;
/// use std::collections::HashMap;
///
/// let squares: HashMap<u32, u32> = (0..4u32).into_par_iter().map(|x| (x, x * x)).collect();
/// assert_eq!(squares[&3], 9);
/// let text: String = ["par", "allel"].par_iter().copied().collect();
/// assert_eq!(text, "parallel");
/// let all_ok: Result<Vec<u32>, String> = (0..3u32).into_par_iter().map(Ok).collect();
/// assert_eq!(all_ok, Ok(vec![0, 1, 2]));
/// ```
pub trait FromParallelIterator<T: Send>: Sized {
    /// Builds the collection from `iter`'s items, in order.
    fn from_par_iter<I>(iter: I) -> Self
    where
        I: IntoParallelIterator<Item = T>;

    /// Builds the collection from items the runtime has already gathered in order (`unzip`'s
    /// halves): a `Vec` takes them as they are, instead of collecting them again.
    #[doc(hidden)]
    fn from_gathered_vec(items: Vec<T>) -> Self {
        Self::from_par_iter(items)
    }
}

/// The leaf of in-place collection: writes a piece's items at `target + offset`.
struct WriteLeaf<T> {
    target: SendPtr<T>,
    /// The slots reserved at `target`.
    capacity: usize,
}

/// Checks that the piece `[offset, offset + len)` lies within `capacity` reserved slots.
/// The engine's pieces tile the source (it checks every split), but the source's length is
/// its own claim: an indexed iterator whose producer holds more items than its `len` says
/// must panic, not write past the reservation.
fn check_piece(offset: usize, len: usize, capacity: usize) {
    assert!(
        offset <= capacity && len <= capacity - offset,
        "blitz: an indexed parallel iterator yielded more items than its length ({capacity})"
    );
}

impl<T: Send> Leaf<T> for WriteLeaf<T> {
    type Output = WrittenRun<T>;

    fn run<I: Iterator<Item = T>>(&self, items: I, offset: usize, len: usize) -> WrittenRun<T> {
        check_piece(offset, len, self.capacity);
        // SAFETY: `offset + len <= capacity` (checked above), within the reserved spare
        // capacity; no other piece overlaps `[offset, offset + len)` (the engine's pieces
        // tile the source).
        let mut written = WrittenRun::new(unsafe { self.target.add(offset) }.get());
        // `for_each`, not a `for` loop: adaptors such as `chain` and `rev` run their own
        // loops in `fold`, much faster than item by item through `next`.
        items.for_each(|item| {
            assert!(
                written.len() < len,
                "blitz: an indexed parallel iterator yielded more items than its length"
            );
            // SAFETY: slot `written.len() < len` of this piece's range: reserved, not yet
            // written, and written by no other piece.
            unsafe { written.push(item) };
        });
        written
    }
}

/// Appends the items of an indexed iterator to `vec`, written in place.
pub(super) fn append_indexed<I>(iter: I, vec: &mut Vec<I::Item>)
where
    I: IndexedParallelIterator,
{
    append_known_len(iter.len(), iter, vec);
}

/// Appends `len` items (`iter` promises exactly that many) to `vec`, written in place.
fn append_known_len<I: ParallelIterator>(len: usize, iter: I, vec: &mut Vec<I::Item>) {
    vec.reserve(len);
    let spare: &mut [MaybeUninit<I::Item>] = &mut vec.spare_capacity_mut()[..len];
    let target = SendPtr(spare.as_mut_ptr().cast::<I::Item>());
    let leaf = WriteLeaf {
        target,
        capacity: len,
    };
    let written = run(iter, leaf, &NeverStop, WrittenRun::append);
    // Every piece reported in; fewer items than promised is a broken iterator, not UB.
    assert_eq!(
        written.len(),
        len,
        "blitz: an indexed parallel iterator yielded fewer items than its length"
    );
    let added = written.release();
    // SAFETY: the `added` slots after the old length were all written (one `Written` covers
    // them) and their ownership passed to the `Vec` with `release`.
    unsafe { vec.set_len(vec.len() + added) };
}

/// The leaf of collection of unknown length: the piece's items in a `Vec` of their own.
struct PiecesLeaf<T>(PhantomData<fn() -> T>);

impl<T: Send> Leaf<T> for PiecesLeaf<T> {
    type Output = Vec<Vec<T>>;

    fn run<I: Iterator<Item = T>>(&self, items: I, _offset: usize, _len: usize) -> Vec<Vec<T>> {
        as_pieces(items.collect())
    }
}

/// A piece's items as a list of pieces: none if it has no items.
fn as_pieces<T>(piece: Vec<T>) -> Vec<Vec<T>> {
    if piece.is_empty() {
        Vec::new()
    } else {
        vec![piece]
    }
}

/// The items of `iter` as a list of non-empty `Vec`s, in order.
pub(super) fn collect_pieces<I: ParallelIterator>(iter: I) -> Vec<Vec<I::Item>> {
    run(iter, PiecesLeaf(PhantomData), &NeverStop, |mut a, mut b| {
        a.append(&mut b);
        a
    })
}

/// Moves the items of `pieces` to the end of `vec`, the pieces copied in parallel.
fn append_pieces<T: Send>(pieces: Vec<Vec<T>>, vec: &mut Vec<T>) {
    let total: usize = pieces.iter().map(Vec::len).sum();
    if pieces.len() <= 1 {
        // One piece (the loop stayed on its caller): taken as it is into an empty `vec`,
        // else moved with one copy (`extend` from a `Vec` is a `memcpy`).
        if let Some(piece) = pieces.into_iter().next() {
            if vec.is_empty() && piece.capacity() >= vec.capacity() {
                *vec = piece;
            } else {
                vec.extend(piece);
            }
        }
        return;
    }
    vec.reserve(total);
    let mut offsets = Vec::with_capacity(pieces.len());
    let mut next = vec.len();
    for piece in &pieces {
        offsets.push(next);
        next += piece.len();
    }
    let base = SendPtr(vec.as_mut_ptr());
    let mut pieces = pieces;
    let mut moves: Vec<(usize, &mut Vec<T>)> = offsets.into_iter().zip(pieces.iter_mut()).collect();
    drive(
        &mut moves[..],
        1,
        &NeverStop,
        &|moves: &mut [(usize, &mut Vec<T>)], _| {
            for (offset, piece) in moves {
                let offset = *offset;
                // SAFETY: `[offset, offset + piece.len())` lies in the reserved capacity and
                // belongs to this piece alone; the items are moved (the piece's length is set
                // to 0 right after, so they are not dropped twice). Copying cannot panic.
                unsafe {
                    ptr::copy_nonoverlapping(piece.as_ptr(), base.get().add(offset), piece.len());
                    piece.set_len(0);
                }
            }
        },
        &|(), ()| (),
    );
    // SAFETY: all `total` slots after the old length were written by the moves above.
    unsafe { vec.set_len(vec.len() + total) };
}

/// Collects into a `Vec`, in place when the length is known.
fn collect_vec<I: ParallelIterator>(iter: I) -> Vec<I::Item> {
    let mut vec = Vec::new();
    match iter.opt_len() {
        Some(len) => append_known_len(len, iter, &mut vec),
        None => append_pieces(collect_pieces(iter), &mut vec),
    }
    vec
}

/// Collections made from a `Vec` of the items by `From`/`Into`: the `Vec` is collected in
/// parallel (in place when the length is known) and converted.
macro_rules! collect_via_vec {
    ($($collection:ty),*) => {$(
        impl<T: Send> FromParallelIterator<T> for $collection {
            fn from_par_iter<I>(iter: I) -> Self
            where
                I: IntoParallelIterator<Item = T>,
            {
                collect_vec(iter.into_par_iter()).into()
            }

            fn from_gathered_vec(items: Vec<T>) -> Self {
                items.into()
            }
        }
    )*};
}

collect_via_vec!(Vec<T>, VecDeque<T>, Box<[T]>, Rc<[T]>, Arc<[T]>);

/// A `Cow` collects into its owned form (`Cow<str>` from `char`s, `Cow<[T]>` from `T`s).
impl<'a, C, T> FromParallelIterator<T> for Cow<'a, C>
where
    C: ToOwned + ?Sized,
    C::Owned: FromParallelIterator<T>,
    T: Send,
{
    fn from_par_iter<I>(iter: I) -> Self
    where
        I: IntoParallelIterator<Item = T>,
    {
        Cow::Owned(C::Owned::from_par_iter(iter))
    }
}

/// Pairs collect into a pair of collections, as `unzip` does.
impl<A, B, FromA, FromB> FromParallelIterator<(A, B)> for (FromA, FromB)
where
    A: Send,
    B: Send,
    FromA: FromParallelIterator<A>,
    FromB: FromParallelIterator<B>,
{
    fn from_par_iter<I>(iter: I) -> Self
    where
        I: IntoParallelIterator<Item = (A, B)>,
    {
        unzip(iter.into_par_iter())
    }
}

/// `Either`s collect into a pair of collections, the `Left` values and the `Right` ones, as
/// `partition_map` does.
impl<L, R, A, B> FromParallelIterator<Either<L, R>> for (A, B)
where
    L: Send,
    R: Send,
    A: FromParallelIterator<L>,
    B: FromParallelIterator<R>,
{
    fn from_par_iter<I>(iter: I) -> Self
    where
        I: IntoParallelIterator<Item = Either<L, R>>,
    {
        let (left, right) = partition_map_pieces(iter.into_par_iter(), |item| item);
        let (mut left_items, mut right_items) = (Vec::new(), Vec::new());
        append_pieces(left, &mut left_items);
        append_pieces(right, &mut right_items);
        (
            A::from_gathered_vec(left_items),
            B::from_gathered_vec(right_items),
        )
    }
}

/// Collections built sequentially from the pieces' `Vec`s (their insertion is inherently
/// sequential or needs hashing of every item on one thread anyway). The items reach the
/// collection's `FromIterator` with their exact count, so a hash map or set allocates its table
/// once instead of growing it (and rehashing) as it fills.
macro_rules! collect_via_pieces {
    ($(impl<$($lt:lifetime,)? $($param:ident),*> for $collection:ty where [$($bound:tt)*] item $item:ty;)*) => {$(
        impl<$($lt,)? $($param),*> FromParallelIterator<$item> for $collection
        where
            $($bound)*
        {
            fn from_par_iter<I>(iter: I) -> Self
            where
                I: IntoParallelIterator<Item = $item>,
            {
                GatheredItems::new(collect_pieces(iter.into_par_iter())).collect()
            }

            fn from_gathered_vec(items: Vec<$item>) -> Self {
                items.into_iter().collect()
            }
        }
    )*};
}

collect_via_pieces! {
    impl<K, V, S> for HashMap<K, V, S>
        where [K: Eq + Hash + Send, V: Send, S: BuildHasher + Default] item (K, V);
    impl<T, S> for HashSet<T, S> where [T: Eq + Hash + Send, S: BuildHasher + Default] item T;
    impl<K, V> for BTreeMap<K, V> where [K: Ord + Send, V: Send] item (K, V);
    impl<T> for BTreeSet<T> where [T: Ord + Send] item T;
    impl<T> for LinkedList<T> where [T: Send] item T;
    impl<T> for BinaryHeap<T> where [T: Ord + Send] item T;
    impl<'a,> for OsString where [] item &'a OsStr;
    impl<> for OsString where [] item OsString;
    impl<'a,> for OsString where [] item Cow<'a, OsStr>;
}

/// Strings (and boxed ones, as a `String` boxed): each piece extends a `String` of its own in
/// parallel (for `char`s, that is where they are encoded), then the pieces are concatenated
/// into one allocation of the total length. A piece takes its items through `String::extend`, whose loop `std` compiles with
/// the push inlined; a `fold` whose closure pushes got the `String` passed through memory at
/// every item, at several times the cost per `char`.
macro_rules! collect_string {
    ($(impl<$($lt:lifetime)?> item $item:ty;)*) => {$(
        impl<$($lt)?> FromParallelIterator<$item> for String {
            fn from_par_iter<I>(iter: I) -> Self
            where
                I: IntoParallelIterator<Item = $item>,
            {
                let pieces = run(
                    iter.into_par_iter(),
                    StringLeaf,
                    &NeverStop,
                    |mut a: Vec<String>, mut b| {
                        a.append(&mut b);
                        a
                    },
                );
                concat_strings(pieces)
            }

            fn from_gathered_vec(items: Vec<$item>) -> Self {
                items.into_iter().collect()
            }
        }

        impl<$($lt)?> FromParallelIterator<$item> for Box<str> {
            fn from_par_iter<I>(iter: I) -> Self
            where
                I: IntoParallelIterator<Item = $item>,
            {
                String::from_par_iter(iter).into_boxed_str()
            }

            fn from_gathered_vec(items: Vec<$item>) -> Self {
                String::from_gathered_vec(items).into_boxed_str()
            }
        }
    )*};
}

collect_string! {
    impl<> item char;
    impl<'a> item &'a char;
    impl<'a> item &'a str;
    impl<> item String;
    impl<'a> item Cow<'a, str>;
    impl<> item Box<str>;
}

/// The leaf of string collection: the piece's items in a `String` of their own.
struct StringLeaf;

impl<T> Leaf<T> for StringLeaf
where
    String: Extend<T>,
{
    type Output = Vec<String>;

    fn run<I: Iterator<Item = T>>(&self, items: I, _offset: usize, _len: usize) -> Vec<String> {
        let mut piece = String::new();
        piece.extend(items);
        if piece.is_empty() {
            Vec::new()
        } else {
            vec![piece]
        }
    }
}

/// One `String` of `pieces` in order, allocated once.
fn concat_strings(mut pieces: Vec<String>) -> String {
    if pieces.len() <= 1 {
        return pieces.pop().unwrap_or_default();
    }
    let total = pieces.iter().map(String::len).sum();
    let mut joined = String::with_capacity(total);
    for piece in &pieces {
        joined.push_str(piece);
    }
    joined
}

/// The items of gathered pieces in order, with their exact count as the size hint (a
/// `flatten` of the pieces would hint 0, and a hash table would then grow as it fills).
struct GatheredItems<T> {
    pieces: std::vec::IntoIter<Vec<T>>,
    current: std::vec::IntoIter<T>,
    remaining: usize,
}

impl<T> GatheredItems<T> {
    fn new(pieces: Vec<Vec<T>>) -> Self {
        GatheredItems {
            remaining: pieces.iter().map(Vec::len).sum(),
            pieces: pieces.into_iter(),
            current: Vec::new().into_iter(),
        }
    }
}

impl<T> Iterator for GatheredItems<T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        loop {
            if let Some(item) = self.current.next() {
                self.remaining -= 1;
                return Some(item);
            }
            self.current = self.pieces.next()?.into_iter();
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }

    fn fold<B, F: FnMut(B, T) -> B>(self, init: B, mut f: F) -> B {
        let acc = self.current.fold(init, &mut f);
        self.pieces
            .fold(acc, |acc, piece| piece.into_iter().fold(acc, &mut f))
    }
}

impl<T> ExactSizeIterator for GatheredItems<T> {}

impl FromParallelIterator<()> for () {
    fn from_par_iter<I>(iter: I) -> Self
    where
        I: IntoParallelIterator<Item = ()>,
    {
        iter.into_par_iter().for_each(|()| {});
    }
}

impl<C, T, E> FromParallelIterator<Result<T, E>> for Result<C, E>
where
    C: FromParallelIterator<T>,
    T: Send,
    E: Send,
{
    /// Collects the `Ok` values; if some item is an `Err`, returns one of the errors (not
    /// necessarily the first). An error stops the collection early: pieces look at a shared
    /// flag before each item, so the closures before `collect` stop running soon after.
    fn from_par_iter<I>(iter: I) -> Self
    where
        I: IntoParallelIterator<Item = Result<T, E>>,
    {
        let error = Mutex::new(None);
        let failed = AtomicBool::new(false);
        let items = UntilFlag {
            base: iter.into_par_iter(),
            flag: &failed,
            raise_on_unwind: false,
        };
        let collection = items
            .filter_map(|item| match item {
                Ok(value) => Some(value),
                Err(e) => {
                    let mut slot = error.lock().unwrap_or_else(|poison| poison.into_inner());
                    slot.get_or_insert(e);
                    failed.store(true, Ordering::Relaxed);
                    None
                }
            })
            .collect();
        match error
            .into_inner()
            .unwrap_or_else(|poison| poison.into_inner())
        {
            Some(e) => Err(e),
            None => Ok(collection),
        }
    }
}

impl<C, T> FromParallelIterator<Option<T>> for Option<C>
where
    C: FromParallelIterator<T>,
    T: Send,
{
    /// Collects the `Some` values; `None` if some item is `None`, stopping early as the
    /// `Result` collection does.
    fn from_par_iter<I>(iter: I) -> Self
    where
        I: IntoParallelIterator<Item = Option<T>>,
    {
        let result: Result<C, ()> = iter.into_par_iter().map(|item| item.ok_or(())).collect();
        result.ok()
    }
}

/// Appends the `len` pairs of `iter` to `a` and `b`, both written in place.
pub(super) fn append_unzipped<I, A, B>(len: usize, iter: I, a: &mut Vec<A>, b: &mut Vec<B>)
where
    I: ParallelIterator<Item = (A, B)>,
    A: Send,
    B: Send,
{
    a.reserve(len);
    b.reserve(len);
    let target_a = SendPtr(a.spare_capacity_mut().as_mut_ptr().cast::<A>());
    let target_b = SendPtr(b.spare_capacity_mut().as_mut_ptr().cast::<B>());
    let leaf = UnzipLeaf {
        target_a,
        target_b,
        capacity: len,
    };
    let (written_a, written_b) = run(
        iter,
        leaf,
        &NeverStop,
        |(a1, b1): (WrittenRun<A>, WrittenRun<B>), (a2, b2)| (a1.append(a2), b1.append(b2)),
    );
    assert!(
        written_a.len() == len && written_b.len() == len,
        "blitz: an indexed parallel iterator yielded fewer items than its length"
    );
    let (added_a, added_b) = (written_a.release(), written_b.release());
    // SAFETY: the `len` slots after each `Vec`'s length (reserved above) were written, and
    // their ownership handed over by `release`.
    unsafe {
        a.set_len(a.len() + added_a);
        b.set_len(b.len() + added_b);
    }
}

/// `ParallelIterator::unzip`: both halves collected in place when the length is known.
pub(super) fn unzip<I, A, B, FromA, FromB>(iter: I) -> (FromA, FromB)
where
    I: ParallelIterator<Item = (A, B)>,
    A: Send,
    B: Send,
    FromA: FromParallelIterator<A>,
    FromB: FromParallelIterator<B>,
{
    let (a, b): (Vec<A>, Vec<B>) = match iter.opt_len() {
        Some(len) => {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            append_unzipped(len, iter, &mut a, &mut b);
            (a, b)
        }
        None => {
            let pieces = collect_pieces(iter);
            let mut a_pieces = Vec::with_capacity(pieces.len());
            let mut b_pieces = Vec::with_capacity(pieces.len());
            for piece in pieces {
                let (a, b): (Vec<A>, Vec<B>) = piece.into_iter().unzip();
                a_pieces.push(a);
                b_pieces.push(b);
            }
            let (mut a, mut b) = (Vec::new(), Vec::new());
            append_pieces(a_pieces, &mut a);
            append_pieces(b_pieces, &mut b);
            (a, b)
        }
    };
    (FromA::from_gathered_vec(a), FromB::from_gathered_vec(b))
}

/// The leaf of in-place `unzip`.
struct UnzipLeaf<A, B> {
    target_a: SendPtr<A>,
    target_b: SendPtr<B>,
    /// The slots reserved at each target.
    capacity: usize,
}

impl<A: Send, B: Send> Leaf<(A, B)> for UnzipLeaf<A, B> {
    type Output = (WrittenRun<A>, WrittenRun<B>);

    fn run<I: Iterator<Item = (A, B)>>(&self, items: I, offset: usize, len: usize) -> Self::Output {
        check_piece(offset, len, self.capacity);
        // SAFETY: as in `WriteLeaf::run`, for both targets.
        let (start_a, start_b) = unsafe { (self.target_a.add(offset), self.target_b.add(offset)) };
        let mut written_a = WrittenRun::new(start_a.get());
        let mut written_b = WrittenRun::new(start_b.get());
        // `for_each`, as in `WriteLeaf::run`.
        items.for_each(|(a, b)| {
            assert!(
                written_a.len() < len,
                "blitz: an indexed parallel iterator yielded more items than its length"
            );
            // SAFETY: as in `WriteLeaf::run`: slot `written_a.len() < len` of this piece, in
            // both buffers.
            unsafe {
                written_a.push(a);
                written_b.push(b);
            }
        });
        (written_a, written_b)
    }
}

/// The leaf of `partition_map`: a piece's `Left` and `Right` values, each in a `Vec`.
struct PartitionLeaf<P>(P);

impl<T, L, R, P> Leaf<T> for PartitionLeaf<P>
where
    P: Fn(T) -> Either<L, R> + Sync,
    L: Send,
    R: Send,
{
    type Output = (Vec<Vec<L>>, Vec<Vec<R>>);

    fn run<I: Iterator<Item = T>>(&self, items: I, _offset: usize, _len: usize) -> Self::Output {
        let (mut left, mut right) = (Vec::new(), Vec::new());
        for item in items {
            match (self.0)(item) {
                Either::Left(l) => left.push(l),
                Either::Right(r) => right.push(r),
            }
        }
        (as_pieces(left), as_pieces(right))
    }
}

/// `partition_map` into two lists of `Vec`s, in order: each piece sorts its items into two
/// `Vec`s of its own.
pub(super) fn partition_map_pieces<I, P, L, R>(iter: I, predicate: P) -> (Vec<Vec<L>>, Vec<Vec<R>>)
where
    I: ParallelIterator,
    P: Fn(I::Item) -> Either<L, R> + Sync,
    L: Send,
    R: Send,
{
    run(
        iter,
        PartitionLeaf(predicate),
        &NeverStop,
        |(mut l1, mut r1): (Vec<Vec<L>>, Vec<Vec<R>>), (mut l2, mut r2)| {
            l1.append(&mut l2);
            r1.append(&mut r2);
            (l1, r1)
        },
    )
}

/// Extends a collection with the items of a parallel iterator, in order: rayon's
/// `ParallelExtend`, for every collection that `Extend`s (`Vec`, `String`, the maps and sets).
///
/// The items are collected in parallel into a `Vec` (written in place when the iterator is
/// indexed), which the collection then takes in one sequential `extend`.
///
/// ```
/// use blitz::prelude::*;
/// let mut v = vec![0u32];
/// v.par_extend((1..4u32).into_par_iter().map(|i| i * 10));
/// assert_eq!(v, [0, 10, 20, 30]);
/// ```
///
/// Implemented for the standard collections (and pairs of them, and `String` from `char`s
/// and strings); a type of a program's own can implement it too:
///
/// ```
/// use blitz::prelude::*;
///
/// /// A running total that items can be added to in parallel.
/// struct Total(u64);
///
/// impl ParallelExtend<u64> for Total {
///     fn par_extend<I>(&mut self, iter: I)
///     where
///         I: IntoParallelIterator<Item = u64>,
///     {
///         self.0 += iter.into_par_iter().sum::<u64>();
///     }
/// }
///
/// let mut total = Total(1);
/// total.par_extend((1..=10u64).into_par_iter());
/// assert_eq!(total.0, 56);
/// ```
pub trait ParallelExtend<T: Send> {
    /// Adds the items of `iter`.
    fn par_extend<I>(&mut self, iter: I)
    where
        I: IntoParallelIterator<Item = T>;

    /// Adds items the runtime has already gathered into `Vec`s, in order (`partition`'s
    /// pieces): for a collection that `Extend`s, one sequential `extend` per piece, without
    /// collecting the items again in parallel first.
    #[doc(hidden)]
    fn par_extend_gathered(&mut self, pieces: Vec<Vec<T>>) {
        self.par_extend(pieces.into_par_iter().flatten());
    }
}

/// `par_extend` of a collection that `Extend`s: the items gathered into one `Vec` in
/// parallel, then one sequential `extend`.
fn extend_gathered<T: Send, C: Extend<T>, I: IntoParallelIterator<Item = T>>(
    target: &mut C,
    iter: I,
) {
    let iter = iter.into_par_iter();
    match iter.opt_len() {
        Some(len) => {
            let mut items = Vec::new();
            append_known_len(len, iter, &mut items);
            target.extend(items);
        }
        None => {
            // One piece (a loop that stayed on its caller) goes to the target as it is;
            // several are gathered into one `Vec` in parallel first, so that the target sees
            // one `extend` of known length.
            let mut pieces = collect_pieces(iter);
            if pieces.len() == 1 {
                target.extend(pieces.pop().expect("one piece"));
            } else {
                let mut items = Vec::new();
                append_pieces(pieces, &mut items);
                target.extend(items);
            }
        }
    }
}

/// `ParallelExtend` for the standard collections, each for the items its `Extend` takes. Not
/// one impl for every `C: Extend<T>`: that would keep a program from implementing
/// `ParallelExtend` for a type of its own (rustc must assume `std` may one day implement
/// `Extend` for it), which rayon programs do.
macro_rules! extend_via_extend {
    ($(impl<$($lt:lifetime,)? $($param:ident),*> for $target:ty
        where [$($bound:tt)*] item $item:ty;)*) => {$(
        impl<$($lt,)? $($param),*> ParallelExtend<$item> for $target
        where
            $($bound)*
        {
            fn par_extend<I>(&mut self, iter: I)
            where
                I: IntoParallelIterator<Item = $item>,
            {
                extend_gathered(self, iter);
            }

            fn par_extend_gathered(&mut self, pieces: Vec<Vec<$item>>) {
                for piece in pieces {
                    self.extend(piece);
                }
            }
        }
    )*};
}

/// A `Vec` takes the first gathered piece as it is when it has no items of its own (as
/// `unzip` and `partition_map` fill a new one): no copy.
impl<T: Send> ParallelExtend<T> for Vec<T> {
    fn par_extend<I>(&mut self, iter: I)
    where
        I: IntoParallelIterator<Item = T>,
    {
        extend_gathered(self, iter);
    }

    fn par_extend_gathered(&mut self, pieces: Vec<Vec<T>>) {
        for piece in pieces {
            if self.is_empty() && piece.capacity() >= self.capacity() {
                *self = piece;
            } else {
                self.extend(piece);
            }
        }
    }
}

extend_via_extend! {
    impl<'a, T> for Vec<T> where [T: Copy + Send + Sync + 'a] item &'a T;
    impl<T> for VecDeque<T> where [T: Send] item T;
    impl<'a, T> for VecDeque<T> where [T: Copy + Send + Sync + 'a] item &'a T;
    impl<T> for LinkedList<T> where [T: Send] item T;
    impl<'a, T> for LinkedList<T> where [T: Copy + Send + Sync + 'a] item &'a T;
    impl<T> for BinaryHeap<T> where [T: Ord + Send] item T;
    impl<'a, T> for BinaryHeap<T> where [T: Ord + Copy + Send + Sync + 'a] item &'a T;
    impl<T, S> for HashSet<T, S> where [T: Eq + Hash + Send, S: BuildHasher] item T;
    impl<'a, T, S> for HashSet<T, S>
        where [T: Eq + Hash + Copy + Send + Sync + 'a, S: BuildHasher] item &'a T;
    impl<T> for BTreeSet<T> where [T: Ord + Send] item T;
    impl<'a, T> for BTreeSet<T> where [T: Ord + Copy + Send + Sync + 'a] item &'a T;
    impl<K, V, S> for HashMap<K, V, S>
        where [K: Eq + Hash + Send, V: Send, S: BuildHasher] item (K, V);
    impl<'a, K, V, S> for HashMap<K, V, S>
        where [K: Eq + Hash + Copy + Send + Sync + 'a, V: Copy + Send + Sync + 'a, S: BuildHasher]
        item (&'a K, &'a V);
    impl<K, V> for BTreeMap<K, V> where [K: Ord + Send, V: Send] item (K, V);
    impl<'a, K, V> for BTreeMap<K, V>
        where [K: Ord + Copy + Send + Sync + 'a, V: Copy + Send + Sync + 'a] item (&'a K, &'a V);
    impl<> for String where [] item char;
    impl<'a,> for String where [] item &'a char;
    impl<'a,> for String where [] item &'a str;
    impl<> for String where [] item String;
    impl<> for String where [] item Box<str>;
    impl<'a,> for String where [] item Cow<'a, str>;
    impl<'a,> for OsString where [] item &'a OsStr;
    impl<> for OsString where [] item OsString;
    impl<'a,> for OsString where [] item Cow<'a, OsStr>;
    impl<> for () where [] item ();
}

/// A pair of collections, each extended with its half of every pair (as `std`'s `Extend`),
/// in order.
impl<A, B, EA, EB> ParallelExtend<(A, B)> for (EA, EB)
where
    A: Send,
    B: Send,
    EA: Send + ParallelExtend<A>,
    EB: Send + ParallelExtend<B>,
{
    fn par_extend<I>(&mut self, iter: I)
    where
        I: IntoParallelIterator<Item = (A, B)>,
    {
        let (a, b): (Vec<A>, Vec<B>) = unzip(iter.into_par_iter());
        self.0.par_extend_gathered(vec![a]);
        self.1.par_extend_gathered(vec![b]);
    }
}

/// A pair of collections, the first extended with the `Left` values and the second with the
/// `Right` ones, in order (as `partition_map` collects).
///
/// ```
/// use blitz::prelude::*;
/// use blitz::iter::Either;
/// let mut pair = (vec![0u32], String::new());
/// pair.par_extend((1..6u32).into_par_iter().map(|i| {
///     if i % 2 == 0 { Either::Left(i) } else { Either::Right(char::from(b'a' + i as u8)) }
/// }));
/// assert_eq!(pair, (vec![0, 2, 4], String::from("bdf")));
/// ```
impl<L, R, A, B> ParallelExtend<Either<L, R>> for (A, B)
where
    L: Send,
    R: Send,
    A: Send + ParallelExtend<L>,
    B: Send + ParallelExtend<R>,
{
    fn par_extend<I>(&mut self, iter: I)
    where
        I: IntoParallelIterator<Item = Either<L, R>>,
    {
        let (left, right) = partition_map_pieces(iter.into_par_iter(), |item| item);
        self.0.par_extend_gathered(left);
        self.1.par_extend_gathered(right);
    }
}

/// An `Either` of two collections extends the one it holds.
///
/// ```
/// use blitz::prelude::*;
/// use blitz::iter::Either;
/// let mut target: Either<Vec<u32>, std::collections::BTreeSet<u32>> = Either::Right(Default::default());
/// target.par_extend((0..4u32).into_par_iter().map(|i| i % 2));
/// assert_eq!(target, Either::Right([0, 1].into()));
/// ```
impl<L, R, T> ParallelExtend<T> for Either<L, R>
where
    L: ParallelExtend<T>,
    R: ParallelExtend<T>,
    T: Send,
{
    fn par_extend<I>(&mut self, iter: I)
    where
        I: IntoParallelIterator<Item = T>,
    {
        match self {
            Either::Left(collection) => collection.par_extend(iter),
            Either::Right(collection) => collection.par_extend(iter),
        }
    }

    fn par_extend_gathered(&mut self, pieces: Vec<Vec<T>>) {
        match self {
            Either::Left(collection) => collection.par_extend_gathered(pieces),
            Either::Right(collection) => collection.par_extend_gathered(pieces),
        }
    }
}
