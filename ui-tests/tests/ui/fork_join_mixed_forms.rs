fn main() {
    blitz::fork_join!(a = 1 + 1, 2 + 2);
}
