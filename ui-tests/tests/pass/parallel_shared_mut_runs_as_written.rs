// Both calls reborrow the same `&mut`: they are not independent, so `#[parallel]` leaves them
// as written (one after the other) instead of forking them into a borrow error.
#[blitz::parallel]
fn bump(v: &mut Vec<u64>, depth: u32) -> u64 {
    if depth == 0 {
        v.push(1);
        return 1;
    }
    bump(&mut *v, depth - 1) + bump(&mut *v, depth - 1)
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let mut v = Vec::new();
    assert_eq!(pool.install(|| bump(&mut v, 10)), 1024);
    assert_eq!(v.len(), 1024);
}
