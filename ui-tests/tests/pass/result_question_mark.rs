#[derive(Debug, PartialEq)]
struct TooDeep(u32);

#[blitz::parallel]
fn nodes(depth: u32, limit: u32) -> Result<u64, TooDeep> {
    if depth > limit {
        return Err(TooDeep(depth));
    }
    if depth == 0 {
        return Ok(1);
    }
    Ok(1 + nodes(depth - 1, limit)? + nodes(depth - 1, limit)?)
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    assert_eq!(pool.install(|| nodes(10, 20)), Ok(2047));
    assert_eq!(pool.install(|| nodes(30, 20)), Err(TooDeep(30)));
}
