//! Fns and methods that return `impl Trait` (with or without a `use<..>` bound) fork.

#[blitz::parallel]
fn evens(v: &[u64]) -> impl Iterator<Item = u64> + Send {
    if v.len() <= 4 {
        return v.iter().copied().filter(|x| x % 2 == 0).collect::<Vec<_>>().into_iter();
    }
    let (l, r) = v.split_at(v.len() / 2);
    let mut a: Vec<u64> = evens(l).collect();
    let b: Vec<u64> = evens(r).collect();
    a.extend(b);
    a.into_iter()
}

struct Table {
    v: Vec<u64>,
}

impl Table {
    #[blitz::parallel]
    fn odds(&self, lo: usize, hi: usize) -> impl Iterator<Item = u64> + Send + use<> {
        if hi - lo <= 4 {
            return self.v[lo..hi].iter().copied().filter(|x| x % 2 == 1).collect::<Vec<_>>().into_iter();
        }
        let m = (lo + hi) / 2;
        let mut a: Vec<u64> = self.odds(lo, m).collect();
        let b: Vec<u64> = self.odds(m, hi).collect();
        a.extend(b);
        a.into_iter()
    }
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install(|| {
        let v: Vec<u64> = (0..10_000).collect();
        assert!(evens(&v).eq(v.iter().copied().filter(|x| x % 2 == 0)));
        let t = Table { v: v.clone() };
        assert!(t.odds(0, v.len()).eq(v.iter().copied().filter(|x| x % 2 == 1)));
    });
}
