//! A `&mut` local (from `split_at_mut`) passed to two recursive calls keeps them in order,
//! while calls on different halves still fork; a shared slice passed to both calls forks.

#[blitz::parallel]
fn add_into(src: &[u64], dst: &mut [u64]) {
    if src.len() <= 2 { for (d, s) in dst.iter_mut().zip(src) { *d += s; } return; }
    let (s1, s2) = src.split_at(src.len() / 2);
    let (d1, d2) = dst.split_at_mut(dst.len() / 2);
    add_into(s1, d1);
    add_into(s1, d1);
    add_into(s2, d2);
}
fn add_into_seq(src: &[u64], dst: &mut [u64]) {
    if src.len() <= 2 { for (d, s) in dst.iter_mut().zip(src) { *d += s; } return; }
    let (s1, s2) = src.split_at(src.len() / 2);
    let (d1, d2) = dst.split_at_mut(dst.len() / 2);
    add_into_seq(s1, d1);
    add_into_seq(s1, d1);
    add_into_seq(s2, d2);
}
/// A shared slice passed to both calls still forks.
#[blitz::parallel]
fn count(v: &[u64], lo: usize, hi: usize) -> u64 {
    if hi - lo <= 2 { return v[lo..hi].iter().sum(); }
    let m = (lo + hi) / 2;
    count(v, lo, m) + count(v, m, hi)
}
fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install(|| {
        let s: Vec<u64> = (0..1000).collect();
        let mut d = vec![0u64; 1000];
        let mut e = vec![0u64; 1000];
        add_into(&s, &mut d);
        add_into_seq(&s, &mut e);
        assert_eq!(d, e);
        assert_eq!(count(&s, 0, 1000), s.iter().sum::<u64>());
    });
}
