// An arm that names what an earlier arm binds: the arms run at the same time, so it would
// see the value from before the macro, not the earlier arm's result.
fn main() {
    let a = 1;
    blitz::fork_join!(a = a + 1, b = a * 10);
    println!("{a} {b}");
}
