fn main() {
    for i in 0..10u64 {
        let (a, b) = blitz::fork_join!(i * 2, if i % 2 == 0 { continue } else { i });
        println!("{a} {b}");
    }
}
