fn main() {
    blitz::fork_join!(let a = 1u32, let b = 2u32);
    println!("{a} {b}");
}
