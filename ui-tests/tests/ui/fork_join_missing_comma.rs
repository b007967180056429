// A missing comma between two arms: the parse error alone, no "cannot find value" per name.
fn g() -> u32 { 1 }
fn h() -> u32 { 2 }
fn main() {
    blitz::fork_join!(a = g() b = h());
    println!("{}", a + b);
}
