trait Count {
    fn count(&self, depth: u32) -> u64;
}

struct Branching(u32);

impl Count for Branching {
    #[blitz::parallel]
    fn count(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        match self.0 {
            2 => self.count(depth - 1) + self.count(depth - 1),
            _ => (self.count(depth - 1), self.count(depth - 1), self.count(depth - 1)).0 * 3,
        }
    }
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    assert_eq!(pool.install(|| Branching(2).count(10)), 1024);
    assert_eq!(pool.install(|| Branching(3).count(6)), 729);
}
