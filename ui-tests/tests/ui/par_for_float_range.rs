fn main() {
    let mut s = 0.0f64;
    blitz::par_for!(x in 0.0..1.0, reduce(+: s) => s += x);
    println!("{s}");
}
