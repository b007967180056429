// A macro between the recursive calls: `#[parallel]` cannot see what it does, so the calls
// keep their order, and the error points at the macro, not at the fn's name.
#[blitz::parallel]
fn sort(v: &mut [u32]) {
    if v.len() < 2 {
        return;
    }
    let (l, r) = v.split_at_mut(v.len() / 2);
    sort(l);
    debug_assert!(l.windows(2).all(|w| w[0] <= w[1]));
    sort(r);
    v.sort_unstable();
}

fn main() {
    let mut v = vec![3, 1, 2];
    sort(&mut v);
}
