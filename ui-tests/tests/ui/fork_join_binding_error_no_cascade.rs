// An arm that cannot be forked: one error, at the arm, and none for the names bound after it.
fn check(a: u64) -> u64 {
    blitz::fork_join!(x = if a == 0 { return 0 } else { a }, mut y = a * 2);
    y += 1;
    x + y
}

fn main() {
    println!("{}", check(1));
}
