// Beside rustc's own errors for an attribute on an expression, the attribute's error says
// where it goes, and nothing else follows.
fn main() {
    let f = #[blitz::parallel]
    |n: u64| n + 1;
    println!("{}", f(1));
}
