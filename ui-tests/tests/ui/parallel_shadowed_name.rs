// A local binding with the fn's name: its calls would be taken for recursion.
#[blitz::parallel]
fn size(v: &[u32]) -> usize {
    if v.len() <= 2 {
        let size = |x: &[u32]| x.len() * 10;
        return size(&v[..1]) + size(&v[1..]);
    }
    let (l, r) = v.split_at(v.len() / 2);
    size(l) + size(r)
}

fn main() {
    let _ = size(&[1, 2, 3]);
}
