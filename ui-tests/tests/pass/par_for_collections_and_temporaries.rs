//! `par_for!` over `iter()` of collections that are not slices, and over sources holding
//! temporaries, with and without a `reduce` clause.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

fn make() -> Vec<u64> {
    (0..100).collect()
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install(|| {
        let mut dq: VecDeque<u32> = (0..100).collect();
        let mut s = 0u32;
        blitz::par_for!(x in dq.iter(), reduce(+: s) => s += x);
        assert_eq!(s, 4950);
        blitz::par_for!(x in dq.iter_mut() => *x += 1);
        assert_eq!(dq.iter().sum::<u32>(), 5050);
        let mut s = 0usize;
        blitz::par_for!((i, x) in dq.iter().enumerate(), reduce(+: s) => s += i * (*x as usize));
        assert_eq!(s, (0..100usize).map(|i| i * (i + 1)).sum::<usize>());

        let hm: HashMap<u32, u32> = (0..100).map(|i| (i, i * 2)).collect();
        let mut s = 0u32;
        blitz::par_for!((k, v) in hm.iter(), reduce(+: s) => s += k + v);
        assert_eq!(s, 3 * 4950);
        let bm: BTreeMap<u32, u32> = (0..100).map(|i| (i, i)).collect();
        let mut s = 0u32;
        blitz::par_for!((_k, v) in bm.iter(), reduce(+: s) => s += v);
        assert_eq!(s, 4950);
        let hs: HashSet<u32> = (0..100).collect();
        let mut s = 0u32;
        blitz::par_for!(x in hs.iter(), reduce(+: s) => s += x);
        assert_eq!(s, 4950);

        let mut v: Vec<u64> = (0..1000).collect();
        blitz::par_for!((i, x) in v.iter_mut().enumerate() => {
            if i % 2 == 0 {
                continue;
            }
            *x = 0;
        });
        assert_eq!(v.iter().sum::<u64>(), (0..1000).step_by(2).sum::<u64>());

        let mut total = 0u64;
        blitz::par_for!(x in &make(), reduce(+: total) => total += *x);
        assert_eq!(total, 4950);
        let mut total = 0u64;
        blitz::par_for!(x in make().iter().map(|x| x * 2), reduce(+: total) => total += x);
        assert_eq!(total, 9900);
        blitz::par_for!(x in make().iter().map(|x| x * 2) => assert!(x % 2 == 0));
    });
}
