fn work() -> u64 {
    42
}

fn main() {
    blitz::fork_join!(a = work());
}
