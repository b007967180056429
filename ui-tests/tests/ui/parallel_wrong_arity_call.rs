// A recursive call with the wrong number of arguments gets rustc's own error, which counts the
// fn's real parameters (not the context the fast copy takes), and nothing else.
#[blitz::parallel]
fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib(n - 1) + fib(n - 2, 3)
}

fn main() {
    println!("{}", fib(10));
}
