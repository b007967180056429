// The same fn with and without the attribute agrees (serial elision).
#[blitz::parallel]
fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib(n - 1) + fib(n - 2)
}

fn fib_serial(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib_serial(n - 1) + fib_serial(n - 2)
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    for n in 0..25 {
        assert_eq!(pool.install(|| fib(n)), fib_serial(n));
    }
    assert_eq!(fib(20), 6765);
}
