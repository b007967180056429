// The recursive calls are inside a macro invocation, which `#[parallel]` does not enter: the
// error points at the macro.
#[blitz::parallel]
fn lengths(n: u64) -> Vec<u64> {
    if n < 2 {
        return vec![n];
    }
    vec![lengths(n - 1).len() as u64, lengths(n - 2).len() as u64]
}

fn main() {
    let _ = lengths(10);
}
