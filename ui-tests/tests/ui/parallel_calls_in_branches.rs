// A binary search: the recursive calls are in the two branches of an `if`, and only one runs.
#[blitz::parallel]
fn search(v: &[u64], x: u64) -> bool {
    if v.len() <= 1 {
        return v.first() == Some(&x);
    }
    let mid = v.len() / 2;
    if x < v[mid] {
        search(&v[..mid], x)
    } else {
        search(&v[mid..], x)
    }
}

fn main() {
    println!("{}", search(&[1, 2, 3], 2));
}
