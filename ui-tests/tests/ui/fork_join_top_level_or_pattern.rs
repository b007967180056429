// As in a `let`, an or-pattern binding needs parentheses; no "cannot find value" follows.
fn main() {
    let r: Result<u32, u32> = Err(4);
    blitz::fork_join!(Ok(x) | Err(x) = r, z = 8u8);
    println!("{x} {z}");
}
