#[blitz::parallel]
fn merge_sort(v: &mut [u32], buf: &mut [u32]) {
    if v.len() <= 8 {
        v.sort();
        return;
    }
    let mid = v.len() / 2;
    let (l, r) = v.split_at_mut(mid);
    let (bl, br) = buf.split_at_mut(mid);
    merge_sort(l, bl);
    merge_sort(r, br);
    merge(v, mid, buf);
}

fn merge(v: &mut [u32], mid: usize, buf: &mut [u32]) {
    let (mut i, mut j) = (0, mid);
    for slot in buf.iter_mut() {
        if j >= v.len() || (i < mid && v[i] <= v[j]) {
            *slot = v[i];
            i += 1;
        } else {
            *slot = v[j];
            j += 1;
        }
    }
    v.copy_from_slice(buf);
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let mut state = 0x9E37_79B9u32;
    let mut v: Vec<u32> = (0..5000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state % 1000
        })
        .collect();
    let mut want = v.clone();
    want.sort();
    let mut buf = vec![0; v.len()];
    pool.install(|| merge_sort(&mut v, &mut buf));
    assert_eq!(v, want);
}
