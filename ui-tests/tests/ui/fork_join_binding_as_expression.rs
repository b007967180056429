// The binding form is a statement: it binds `a` and `b` in the enclosing block. As an
// expression, rustc reports the `let` it expands to (and the tokens after it), and no
// attribute or other error of the expansion.

fn f() -> u32 {
    1
}

fn main() {
    let t = blitz::fork_join!(a = f(), b = f());
    println!("{t:?}");
}
