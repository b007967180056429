// A statement with an attribute stays as written, outside any fork: with no other fork point,
// the error points at it.
#[blitz::parallel]
fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    #[allow(unused_parens)]
    let a = (fib(n - 1));
    let b = fib(n - 2);
    a + b
}

fn main() {
    let _ = fib(10);
}
