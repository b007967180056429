#[blitz::parallel]
fn fib(n: u64) -> u64 {
    use self::fib as g;
    if n < 2 {
        return n;
    }
    g(n - 1) + g(n - 2)
}

fn main() {
    println!("{}", fib(10));
}
