fn main() {
    let x = blitz::fork_join!(crate = blitz);
    let _ = x;
}
