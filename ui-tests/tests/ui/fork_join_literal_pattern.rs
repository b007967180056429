fn main() {
    blitz::fork_join!(0 = 1 - 1, b = 2);
}
