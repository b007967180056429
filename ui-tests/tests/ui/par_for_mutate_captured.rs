fn main() {
    let mut total = 0u64;
    blitz::par_for!(i in 0..100u64 => total += i);
    println!("{total}");
}
