//! The macros through the renamed dependency, in an integration test (where Cargo's
//! environment differs from the library's) and on a started pool.

use blitz_renamed_dep_test::{Grid, both, doubled_sum, fib};

#[par::parallel]
fn count(n: u32) -> u64 {
    if n == 0 {
        return 1;
    }
    count(n - 1) + count(n - 1)
}

#[test]
fn every_macro_expands_through_the_renamed_dependency() {
    let pool = par::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    assert_eq!(pool.install(|| fib(20)), 6765);
    assert_eq!(pool.install(|| both(10)), (55, 89, 144));
    let mut v: Vec<u64> = (0..1000).collect();
    assert_eq!(pool.install(|| doubled_sum(&mut v)), 999_000);
    let grid = Grid((0..1000).collect());
    assert_eq!(pool.install(|| grid.sum(0, 1000)), 499_500);
    assert_eq!(pool.install(|| count(12)), 1 << 12);
    let (mut hi, total) = (0u64, 0u64);
    par::par_for!(i in 0..100u64, reduce(max: hi) => hi = hi.max(i));
    par::fork_join!(x = total + 1, y = hi * 2);
    assert_eq!((x, y), (1, 198));
}
