fn main() {
    let total = 0u64;
    blitz::par_for!(i in 0..100u64, reduce(+: total) => total += i);
    println!("{total}");
}
