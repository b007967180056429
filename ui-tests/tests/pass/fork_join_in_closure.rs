//! Recursive calls in a `fork_join!` inside a closure: the closure is not a fork point of the
//! annotated fn, so the fn runs as written, and the `fork_join!` forks on its own.

#[blitz::parallel]
fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let both = |k: u64| {
        let (a, b) = blitz::fork_join!(fib(k - 1), fib(k - 2));
        a + b
    };
    both(n)
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    assert_eq!(pool.install(|| fib(20)), 6765);
    assert_eq!(fib(15), 610);
}
