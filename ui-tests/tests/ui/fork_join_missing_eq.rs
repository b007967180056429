// A binding arm whose `=` is missing or mistyped: the parse error alone, no "cannot find
// value" for the arm's name.
fn g() -> u32 { 1 }

fn missing() {
    blitz::fork_join!(a g(), b = g());
    println!("{}", a + b);
}

fn mistyped() {
    blitz::fork_join!(a := g(), b = g());
    println!("{}", a + b);
}

fn missing_in_last_arm() {
    blitz::fork_join!(a = g(), b g());
    println!("{}", a + b);
}

fn main() {
    missing();
    mistyped();
    missing_in_last_arm();
}
