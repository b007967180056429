// Input that ends in the middle of an expression: reported at its last token, not on the
// whole macro call.
fn main() {
    let mut s = 0u64;
    blitz::par_for!(i in 0..10u64, reduce(+: s) => s += );
    blitz::fork_join!(a = 1, b = );
    println!("{s} {a} {b}");
}
