use std::ops::Add;

#[blitz::parallel]
fn fold<'a, T>(v: &'a [T], zero: T, leaf: &(impl Fn(&T) -> T + Sync)) -> T
where
    T: Add<Output = T> + Copy + Send + Sync + 'a,
{
    match v {
        [] => zero,
        [x] => leaf(x),
        _ => {
            let (l, r) = v.split_at(v.len() / 2);
            fold(l, zero, leaf) + fold(r, zero, leaf)
        }
    }
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let v: Vec<u64> = (1..=100).collect();
    assert_eq!(pool.install(|| fold(&v, 0, &|x| x * 2)), 10_100);
    let f: Vec<f64> = vec![0.5; 64];
    assert_eq!(pool.install(|| fold(&f, 0.0, &|x| *x)), 32.0);
}
