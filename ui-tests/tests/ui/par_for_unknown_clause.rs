fn main() {
    blitz::par_for!(i in 0..100u64, chunk = 8 => println!("{i}"));
}
