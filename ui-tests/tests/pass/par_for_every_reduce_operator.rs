fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install(|| {
        let n = 4096u64;
        let (mut sum, mut prod, mut lo, mut hi) = (0u64, 1u64, u64::MAX, 0u64);
        let (mut and, mut or, mut xor) = (!0u64, 0u64, 0u64);
        blitz::par_for!(i in 0..n, grain = 64,
            reduce(+: sum), reduce(*: prod), reduce(min: lo), reduce(max: hi),
            reduce(&: and), reduce(|: or), reduce(^: xor) => {
            sum += i;
            prod *= if i % 512 == 1 { 2 } else { 1 };
            lo = lo.min(i ^ 0x55);
            hi = hi.max(i ^ 0x55);
            and &= i | 0xF0;
            or |= i << 1;
            xor ^= i * 7;
        });
        assert_eq!(sum, (0..n).sum());
        assert_eq!(prod, 1 << 8);
        assert_eq!(lo, (0..n).map(|i| i ^ 0x55).min().unwrap());
        assert_eq!(hi, (0..n).map(|i| i ^ 0x55).max().unwrap());
        assert_eq!(and, (0..n).fold(!0, |a, i| a & (i | 0xF0)));
        assert_eq!(or, (0..n).fold(0, |a, i| a | (i << 1)));
        assert_eq!(xor, (0..n).fold(0, |a, i| a ^ (i * 7)));

        let v: Vec<f32> = (0..1000).map(|i| i as f32).collect();
        let (mut fs, mut fmin) = (0.0f32, f32::INFINITY);
        blitz::par_for!(x in &v, reduce(+: fs), reduce(min: fmin) => {
            fs += *x;
            fmin = fmin.min(*x);
        });
        assert_eq!(fs, 499_500.0);
        assert_eq!(fmin, 0.0);
    });
}
