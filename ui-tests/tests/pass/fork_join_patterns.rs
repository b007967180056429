struct Point {
    x: i32,
    y: i32,
}

fn pair() -> (u8, u8) {
    (1, 2)
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install(|| {
        blitz::fork_join!(
            (a, b) = pair(),
            Point { x, y } = Point { x: 3, y: 4 },
            mut c: u64 = 5,
            _ = 6,
            [d, e] = [7, 8],
        );
        c += 1;
        assert_eq!((a, b, x, y, c, d, e), (1, 2, 3, 4, 6, 7, 8));
        let (s, t) = blitz::fork_join![String::from("s"), vec![1, 2, 3].len()];
        assert_eq!((s.as_str(), t), ("s", 3));
        let u = blitz::fork_join! { 1u8, 2u16 };
        assert_eq!(u, (1, 2));
    });
}
