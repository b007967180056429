#[blitz::parallel]
fn fib(n: u64) -> u64 {
    fib(if n < 2 { return n } else { n - 1 }) + fib(n - 2)
}

fn main() {}
