struct Grid {
    cells: Vec<u32>,
}

impl Grid {
    /// Sums `cells[lo..hi]` by halving.
    #[blitz::parallel]
    pub fn sum(&self, lo: usize, hi: usize) -> u64 {
        if hi - lo <= 16 {
            return self.cells[lo..hi].iter().map(|&c| u64::from(c)).sum();
        }
        let mid = (lo + hi) / 2;
        self.sum(lo, mid) + self.sum(mid, hi)
    }
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let g = Grid { cells: (0..1000).collect() };
    assert_eq!(pool.install(|| g.sum(0, 1000)), 499_500);
}
