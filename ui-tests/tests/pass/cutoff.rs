#[blitz::parallel(cutoff = n < 15)]
fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib(n - 1) + fib(n - 2)
}

struct Counter;

impl Counter {
    #[blitz::parallel(cutoff = depth < 3)]
    fn leaves(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        self.leaves(depth - 1) + self.leaves(depth - 1)
    }
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    assert_eq!(pool.install(|| fib(25)), 75025);
    assert_eq!(pool.install(|| Counter.leaves(12)), 4096);
}
