fn find(v: &[u64], x: u64) -> Option<usize> {
    v.iter().position(|&y| y == x)
}

fn main() {
    let v = vec![1, 2, 3];
    blitz::fork_join!(Some(i) = find(&v, 2), j = find(&v, 3));
}
