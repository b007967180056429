// A forked `let` whose type does not match its call's: one error, at the call, though the
// statement is in every arm of the fork.
#[blitz::parallel]
fn f(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let x: u32 = f(n - 1);
    let y = f(n - 2);
    x as u64 + y
}

fn main() {
    println!("{}", f(10));
}
