// The tail uses the first call's result, and its own call comes after a `?` that may return
// before it: the call cannot join the first one, and the error says why.
fn check(x: u64) -> Result<u64, String> {
    Ok(x)
}

#[blitz::parallel]
fn f(n: u64) -> Result<u64, String> {
    if n < 2 {
        return Ok(n);
    }
    let a = f(n - 1)?;
    Ok(check(a)? + f(n - 2)?)
}

fn main() {
    println!("{:?}", f(10));
}
