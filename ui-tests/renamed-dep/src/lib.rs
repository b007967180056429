//! The three macros through a dependency renamed to `par`: the generated code must find the
//! facade as `::par` by reading this crate's Cargo.toml.

/// `#[parallel]` on a free fn.
#[par::parallel]
pub fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib(n - 1) + fib(n - 2)
}

/// `#[parallel]` with a cutoff, on a method.
pub struct Grid(pub Vec<u32>);

impl Grid {
    /// Sums `self.0[lo..hi]` by halving.
    #[par::parallel(cutoff = hi - lo <= 64)]
    pub fn sum(&self, lo: usize, hi: usize) -> u64 {
        if hi - lo <= 16 {
            return self.0[lo..hi].iter().map(|&c| u64::from(c)).sum();
        }
        let mid = (lo + hi) / 2;
        self.sum(lo, mid) + self.sum(mid, hi)
    }
}

/// `fork_join!` in both forms.
pub fn both(n: u64) -> (u64, u64, u64) {
    par::fork_join!(a = fib(n), b = fib(n + 1));
    let (c, _) = par::fork_join!(fib(n + 2), ());
    (a, b, c)
}

/// `par_for!` with a reduction, and over a `&mut` slice.
pub fn doubled_sum(v: &mut [u64]) -> u64 {
    par::par_for!(x in &mut *v => *x *= 2);
    let mut total = 0;
    par::par_for!(x in &*v, reduce(+: total) => total += *x);
    total
}
