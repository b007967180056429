// Recursive calls are recognized by the fn's plain name: a path such as `crate::fib` may name
// another fn of the same name. The error points at the path and says what to write.
#[blitz::parallel]
fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    crate::fib(n - 1) + self::fib(n - 2)
}

fn main() {
    println!("{}", fib(10));
}
