// A wrong-arity call beside calls that do fork: only rustc's arity error, on that call.
#[blitz::parallel]
fn tri(n: u64) -> u64 {
    if n < 3 {
        return n;
    }
    tri(n - 1) + tri(n - 2) + tri()
}

fn main() {
    println!("{}", tri(10));
}
