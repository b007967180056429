//! A `#[parallel]` fn whose recursive calls are in a `par_for!` body runs as written: the loop
//! already shares them, and the fn may fork elsewhere too.

struct Dir {
    bytes: u64,
    kids: Vec<Dir>,
}

impl Dir {
    /// Only a `par_for!` recursion: no fork point of its own, and no error.
    #[blitz::parallel]
    fn total(&self) -> u64 {
        let mut s = self.bytes;
        blitz::par_for!(k in &self.kids, reduce(+: s) => s += k.total());
        s
    }
}

/// A fork point and a `par_for!` recursion in one fn.
#[blitz::parallel]
fn sum(v: &[u64]) -> u64 {
    if v.len() <= 4 {
        return v.iter().sum();
    }
    if v.len() % 2 == 0 {
        let (l, r) = v.split_at(v.len() / 2);
        return sum(l) + sum(r);
    }
    let mut s = 0;
    blitz::par_for!(c in v.chunks(v.len() / 3 + 1), reduce(+: s) => s += sum(c));
    s
}

fn tree(depth: u32) -> Dir {
    Dir {
        bytes: 1,
        kids: if depth == 0 { Vec::new() } else { (0..4).map(|_| tree(depth - 1)).collect() },
    }
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install(|| {
        assert_eq!(tree(5).total(), (0..=5).map(|d| 4u64.pow(d)).sum::<u64>());
        let v: Vec<u64> = (0..10_007).collect();
        assert_eq!(sum(&v), v.iter().sum::<u64>());
    });
}
