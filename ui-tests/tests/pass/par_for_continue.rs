fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install(|| {
        let mut v: Vec<i64> = (0..10_000).collect();
        blitz::par_for!(x in &mut v => {
            if *x % 3 == 0 {
                continue;
            }
            *x = -*x;
        });
        assert!(v.iter().enumerate().all(|(i, &x)| x == if i % 3 == 0 { i as i64 } else { -(i as i64) }));
        let mut kept = 0usize;
        blitz::par_for!(i in 0..1000usize, reduce(+: kept) => {
            for j in 0..i {
                if j > 3 {
                    break; // an inner loop of the body may break
                }
            }
            if i % 10 != 0 {
                continue;
            }
            kept += 1;
        });
        assert_eq!(kept, 100);
    });
}
