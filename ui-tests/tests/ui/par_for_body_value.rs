// A body that makes a value, as a map would: the body of a `for` loop must be `()`, and so
// must `par_for!`'s; the value is not dropped silently.
fn square(x: u64) -> u64 {
    x * x
}

fn main() {
    let v: Vec<u64> = (0..100).collect();
    blitz::par_for!(x in &v => square(*x));
}
