// A const parameter named like a type in scope: inside the fn the parameter is what `N` means
// in a const position, and the copies `#[parallel]` generates must name it that way too.

#[allow(dead_code)]
struct N;

#[blitz::parallel]
fn rows_sum<const N: usize>(rows: &[[u32; N]]) -> u64 {
    if rows.len() <= 1 {
        return rows.iter().flatten().map(|&x| u64::from(x)).sum();
    }
    let (a, b) = rows.split_at(rows.len() / 2);
    rows_sum(a) + rows_sum(b)
}

fn main() {
    let rows: Vec<[u32; 3]> = (0..100u32).map(|i| [i, 2 * i, 3 * i]).collect();
    let want: u64 = rows.iter().flatten().map(|&x| u64::from(x)).sum();
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    assert_eq!(pool.install(|| rows_sum(&rows)), want);
    assert_eq!(rows_sum::<3>(&rows), want);
}
