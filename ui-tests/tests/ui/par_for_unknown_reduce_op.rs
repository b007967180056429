fn main() {
    let mut diff = 0i64;
    blitz::par_for!(i in 0..100i64, reduce(-: diff) => diff -= i);
    println!("{diff}");
}
