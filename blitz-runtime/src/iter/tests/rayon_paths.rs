//! rayon's paths of the iterator types (`rayon::str::Lines`, `rayon::collections::hash_map::Iter`,
//! ...) name what blitz's methods return, so code that spells them (in a struct field, a
//! return type) compiles.

use super::on_pools;
use crate::ThreadPoolBuilder;
use crate::iter::prelude::*;

/// rayon's names of the iterator types name what the methods return, so code that spells them
/// (in a struct field, a return type) compiles.
#[test]
fn rayon_type_names_name_the_iterators() {
    fn lines(s: &str) -> crate::str::Lines<'_> {
        s.par_lines()
    }
    fn words(s: &str) -> crate::str::SplitWhitespace<'_> {
        s.par_split_whitespace()
    }
    fn fields(s: &str) -> crate::str::Split<'_, char> {
        s.par_split(',')
    }
    fn bytes(s: &str) -> crate::str::Bytes<'_> {
        s.par_bytes()
    }
    type IsZero = fn(&u32) -> bool;
    fn runs(v: &[u32]) -> crate::slice::Split<'_, u32, IsZero> {
        v.par_split(|x| *x == 0)
    }
    fn runs_mut(v: &mut [u32]) -> crate::slice::SplitMut<'_, u32, IsZero> {
        v.par_split_mut(|x| *x == 0)
    }
    fn drained(v: &mut Vec<u32>) -> crate::vec::Drain<'_, u32> {
        v.par_drain(1..)
    }
    fn pairs(
        a: &[u32],
    ) -> crate::iter::ZipEq<crate::iter::Iter<'_, u32>, crate::iter::Iter<'_, u32>> {
        a.par_iter().zip_eq(a)
    }
    let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install(|| {
        assert_eq!(lines("a\nb\nc").count(), 3);
        assert_eq!(words("a b  c").count(), 3);
        assert_eq!(fields("1,2,3").count(), 3);
        assert_eq!(bytes("abc").map(u64::from).sum::<u64>(), 294);
        let mut v = vec![1, 0, 2, 3, 0, 4];
        assert_eq!(runs(&v).count(), 3);
        runs_mut(&mut v).for_each(|run| run.iter_mut().for_each(|x| *x *= 2));
        assert_eq!(v, [2, 0, 4, 6, 0, 8]);
        assert_eq!(drained(&mut v).count(), 5);
        assert_eq!(pairs(&[1, 2, 3]).map(|(a, b)| a * b).sum::<u32>(), 14);
    });
}

#[test]
fn rayon_module_paths_name_the_iterators_of_the_collections() {
    use std::collections::{
        BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque,
    };

    use crate::collections::{
        binary_heap, btree_map, btree_set, hash_map, hash_set, linked_list, vec_deque,
    };

    on_pools(|| {
        let n = 1000u64;
        let expected: u64 = (0..n).sum();
        let range: crate::range::Iter<u64> = (0..n).into_par_iter();
        let inclusive: crate::range_inclusive::Iter<u64> = (0..=n - 1).into_par_iter();
        assert_eq!(
            (range.sum::<u64>(), inclusive.sum::<u64>()),
            (expected, expected)
        );
        let array: crate::array::IntoIter<u64, 3> = [1, 2, 3].into_par_iter();
        assert_eq!(array.collect::<Vec<_>>(), [1, 2, 3]);

        let mut option = Some(7u64);
        let by_ref: crate::option::Iter<'_, u64> = option.par_iter();
        assert_eq!(by_ref.copied().sum::<u64>(), 7);
        let by_mut: crate::option::IterMut<'_, u64> = option.par_iter_mut();
        by_mut.for_each(|x| *x += 1);
        let by_value: crate::option::IntoIter<u64> = option.into_par_iter();
        assert_eq!(by_value.collect::<Vec<_>>(), [8]);
        let mut result: Result<u64, ()> = Ok(5);
        let by_ref: crate::result::Iter<'_, u64> = result.par_iter();
        assert_eq!(by_ref.count(), 1);
        let by_mut: crate::result::IterMut<'_, u64> = result.par_iter_mut();
        by_mut.for_each(|x| *x *= 3);
        let by_value: crate::result::IntoIter<u64> = result.into_par_iter();
        assert_eq!(by_value.sum::<u64>(), 15);

        let mut text = String::from("abcdef");
        let drained: crate::string::Drain<'_> = text.par_drain(1..4);
        assert_eq!(drained.collect::<String>(), "bcd");
        assert_eq!(text, "aef");

        let mut heap: BinaryHeap<u64> = (0..n).collect();
        let iter: binary_heap::Iter<'_, u64> = heap.par_iter();
        assert_eq!(iter.sum::<u64>(), expected);
        let drain: binary_heap::Drain<'_, u64> = heap.par_drain();
        assert_eq!(drain.sum::<u64>(), expected);
        let into: binary_heap::IntoIter<u64> = BinaryHeap::from(vec![1, 2]).into_par_iter();
        assert_eq!(into.sum::<u64>(), 3);

        let mut tree: BTreeMap<u64, u64> = (0..n).map(|k| (k, k)).collect();
        let iter_mut: btree_map::IterMut<'_, u64, u64> = tree.par_iter_mut();
        iter_mut.for_each(|(k, v)| *v += k);
        let iter: btree_map::Iter<'_, u64, u64> = tree.par_iter();
        assert_eq!(iter.map(|(_, v)| v).sum::<u64>(), 2 * expected);
        let into: btree_map::IntoIter<u64, u64> = tree.into_par_iter();
        assert_eq!(into.map(|(k, _)| k).sum::<u64>(), expected);
        let set: BTreeSet<u64> = (0..n).collect();
        let iter: btree_set::Iter<'_, u64> = set.par_iter();
        assert_eq!(iter.sum::<u64>(), expected);
        let into: btree_set::IntoIter<u64> = set.into_par_iter();
        assert_eq!(into.min(), Some(0));

        let mut map: HashMap<u64, u64> = (0..n).map(|k| (k, 1)).collect();
        let iter_mut: hash_map::IterMut<'_, u64, u64> = map.par_iter_mut();
        iter_mut.for_each(|(_, v)| *v = 2);
        let iter: hash_map::Iter<'_, u64, u64> = map.par_iter();
        assert_eq!(iter.map(|(_, v)| v).sum::<u64>(), 2 * n);
        let drain: hash_map::Drain<'_, u64, u64> = map.par_drain();
        assert_eq!(drain.map(|(k, _)| k).sum::<u64>(), expected);
        let into: hash_map::IntoIter<u64, u64> = HashMap::from([(1, 2)]).into_par_iter();
        assert_eq!(into.collect::<Vec<_>>(), [(1, 2)]);
        let mut set: HashSet<u64> = (0..n).collect();
        let iter: hash_set::Iter<'_, u64> = set.par_iter();
        assert_eq!(iter.sum::<u64>(), expected);
        let drain: hash_set::Drain<'_, u64> = set.par_drain();
        assert_eq!(drain.count() as u64, n);
        let into: hash_set::IntoIter<u64> = HashSet::from([4]).into_par_iter();
        assert_eq!(into.sum::<u64>(), 4);

        let mut list: LinkedList<u64> = (0..n).collect();
        let iter_mut: linked_list::IterMut<'_, u64> = list.par_iter_mut();
        iter_mut.for_each(|x| *x += 1);
        let iter: linked_list::Iter<'_, u64> = list.par_iter();
        assert_eq!(iter.sum::<u64>(), expected + n);
        let into: linked_list::IntoIter<u64> = list.into_par_iter();
        assert_eq!(into.count() as u64, n);

        let mut deque: VecDeque<u64> = (0..n).collect();
        deque.rotate_left(17);
        let iter_mut: vec_deque::IterMut<'_, u64> = deque.par_iter_mut();
        iter_mut.for_each(|x| *x *= 2);
        let iter: vec_deque::Iter<'_, u64> = deque.par_iter();
        assert_eq!(iter.sum::<u64>(), 2 * expected);
        let drain: vec_deque::Drain<'_, u64> = deque.par_drain(..10);
        assert_eq!(
            drain.collect::<Vec<_>>(),
            (17..27).map(|x| 2 * x).collect::<Vec<_>>()
        );
        let into: vec_deque::IntoIter<u64> = deque.into_par_iter();
        assert_eq!(into.count() as u64, n - 10);
    });
}
