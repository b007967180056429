#[blitz::parallel]
fn fib(n: u64) -> u64 {
    'done: {
        fib(if n < 2 { break 'done n } else { n - 1 }) + fib(n - 2)
    }
}

fn main() {}
