fn main() {
    for i in 0..10u64 {
        blitz::fork_join!(if i == 5 { break } else { i }, i + 1);
    }
}
