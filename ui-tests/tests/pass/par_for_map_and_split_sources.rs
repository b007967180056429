//! `par_for!` over a map's `keys()`, `values()` and `values_mut()`, and over the slice and
//! string splitters (`split`, `matches`, `rchunks_exact`), as their parallel counterparts.

use std::collections::{BTreeMap, HashMap};
fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install(|| {
        let mut m: HashMap<u32, u64> = (0..1000).map(|i| (i, i as u64 * 3)).collect();
        let mut s = 0u64;
        blitz::par_for!(v in m.values(), reduce(+: s) => s += v);
        assert_eq!(s, m.values().sum::<u64>());
        let mut k = 0u64;
        blitz::par_for!(key in m.keys(), reduce(+: k) => k += u64::from(*key));
        assert_eq!(k, 999 * 1000 / 2);
        blitz::par_for!(v in m.values_mut() => *v += 1);
        assert_eq!(m.values().sum::<u64>(), s + 1000);
        let b: BTreeMap<u32, u64> = m.iter().map(|(k, v)| (*k, *v)).collect();
        let mut bs = 0u64;
        blitz::par_for!(v in b.values().map(|v| v * 2), reduce(+: bs) => bs += v);
        assert_eq!(bs, 2 * (s + 1000));
        let text = "a,bb,ccc,dddd";
        let mut n = 0usize;
        blitz::par_for!(w in text.split(','), reduce(+: n) => n += w.len());
        assert_eq!(n, 10);
        let mut cnt = 0usize;
        blitz::par_for!(w in text.matches('c'), reduce(+: cnt) => cnt += w.len());
        assert_eq!(cnt, 3);
        let v: Vec<u32> = (0..100).collect();
        let mut parts = 0usize;
        blitz::par_for!(p in v.split(|x| x % 10 == 0), reduce(+: parts) => parts += usize::from(!p.is_empty()));
        assert_eq!(parts, 10);
        let mut rc = 0usize;
        blitz::par_for!(c in v.rchunks_exact(7), reduce(+: rc) => rc += c.len());
        assert_eq!(rc, 98);
    });
}
