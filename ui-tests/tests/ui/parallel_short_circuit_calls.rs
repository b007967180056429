// The only recursive calls are the sides of `&&`: the right one runs only if the left one is
// true, so they cannot fork. The error says so, on the `&&` expression.
#[blitz::parallel]
fn all_even(v: &[u64]) -> bool {
    if v.len() <= 1 {
        return v.iter().all(|x| x % 2 == 0);
    }
    let (l, r) = v.split_at(v.len() / 2);
    all_even(l) && all_even(r)
}

fn main() {
    println!("{}", all_even(&[2, 4, 6]));
}
