// A missing comma in a `fork_join!` inside `#[parallel]`: the parse error alone, no "found no
// fork point".
#[blitz::parallel]
fn f(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    blitz::fork_join!(a = f(n - 1) b = f(n - 2));
    a + b
}
fn main() {
    println!("{}", f(10));
}
