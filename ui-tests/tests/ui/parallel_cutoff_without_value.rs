#[blitz::parallel(cutoff)]
fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib(n - 1) + fib(n - 2)
}

fn main() {
    assert_eq!(fib(10), 55);
}
