fn sq(i: u64) -> u64 {
    i * i
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install(|| {
        blitz::fork_join!(
            a = sq(1), b = sq(2), c = sq(3), d = sq(4), e = sq(5), f = sq(6),
            g = sq(7), h = sq(8), i = sq(9), j = sq(10), k = sq(11), l = sq(12)
        );
        assert_eq!(a + b + c + d + e + f + g + h + i + j + k + l, 650);
        let t = blitz::fork_join!(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
        assert_eq!(t, (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12));
    });
}
