// The second call's argument uses the first one's result, so they cannot fork: the error says
// which name ties them, not only that a fork point is missing.
#[blitz::parallel]
fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let a = fib(n - 1);
    fib(n - 2 - a % 2) + a
}

fn main() {
    println!("{}", fib(10));
}
