// A `use` in the body that imports another fn under the annotated fn's name: the calls name
// the import, not the fn, so they are not recursion.

mod other {
    pub fn fib(n: u64) -> u64 {
        n * 100
    }
}

#[blitz::parallel]
fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    use other::fib;
    fib(n - 1) + fib(n - 2)
}

fn main() {
    assert_eq!(fib(5), 700);
}
