fn main() {
    let mut h = 0u64;
    blitz::par_for!(i in 0..100u64 => h = h.wrapping_add(i));
    println!("{h}");
}
