#[track_caller]
#[blitz::parallel]
fn sum(v: &[u64]) -> u64 {
    if v.len() == 1 {
        assert!(v[0] != 0, "zero element");
        return v[0];
    }
    let (l, r) = v.split_at(v.len() / 2);
    sum(l) + sum(r)
}

#[blitz::parallel]
#[track_caller]
fn count(v: &[u64]) -> usize {
    if v.len() <= 1 {
        return v.len();
    }
    let (l, r) = v.split_at(v.len() / 2);
    count(l) + count(r)
}

fn main() {
    println!("{} {}", sum(&[1, 2]), count(&[1, 2]));
}
