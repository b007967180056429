// The later call's argument uses the first call's result, past a statement that changes it.
#[blitz::parallel]
fn smallest(v: &[u32], k: usize) -> Vec<u32> {
    if v.len() <= 2 {
        let mut w = v.to_vec();
        w.sort_unstable();
        w.truncate(k);
        return w;
    }
    let (l, r) = v.split_at(v.len() / 2);
    let mut out = smallest(l, k);
    out.dedup();
    let more = smallest(r, k - out.len());
    out.extend(more);
    out
}

fn main() {
    println!("{:?}", smallest(&[5, 3, 1, 4], 2));
}
