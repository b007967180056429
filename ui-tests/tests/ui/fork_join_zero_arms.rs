fn main() {
    let () = blitz::fork_join!();
}
