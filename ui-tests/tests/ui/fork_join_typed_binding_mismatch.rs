fn main() {
    blitz::fork_join!(a: u32 = "x".len(), b = 2u32);
    println!("{a} {b}");
}
