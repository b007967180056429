// A `cutoff` expression cut short: the error points at the value, not the whole attribute.
#[blitz::parallel(cutoff = n <)]
fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib(n - 1) + fib(n - 2)
}

fn main() {
    println!("{}", fib(10));
}
