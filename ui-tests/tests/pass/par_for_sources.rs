// The method-call sources of `par_for!`: `.iter()`, `.iter_mut()`, `.chunks(k)`, `.chunks_mut(k)`,
// `.iter().enumerate()`, `.iter_mut().enumerate()`, and inclusive ranges.
fn self_ref(v: &mut Vec<u64>) -> &mut Vec<u64> {
    v
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install(|| {
        let mut v: Vec<u64> = (0..1000).collect();

        let mut total = 0u64;
        blitz::par_for!(x in v.iter(), reduce(+: total) => total += x);
        assert_eq!(total, 499_500);
        blitz::par_for!(x in v.iter_mut() => *x += 1);
        blitz::par_for!(x in self_ref(&mut v).iter_mut() => *x -= 1);
        assert_eq!(v[999], 999);
        total = 0;
        blitz::par_for!(c in v.chunks(7), reduce(+: total) => total += c.iter().sum::<u64>());
        assert_eq!(total, 499_500);

        blitz::par_for!(c in v.chunks_mut(10) => {
            let first = c[0];
            for x in c.iter_mut() {
                *x = first;
            }
        });
        assert!(v.iter().enumerate().all(|(i, &x)| x == (i as u64 / 10) * 10));

        let mut bad = 0usize;
        blitz::par_for!((i, x) in v.iter().enumerate(), reduce(+: bad) => {
            if *x != (i as u64 / 10) * 10 {
                bad += 1;
            }
        });
        assert_eq!(bad, 0);

        blitz::par_for!((i, x) in v.iter_mut().enumerate() => *x = i as u64 * 2);
        assert!(v.iter().enumerate().all(|(i, &x)| x == i as u64 * 2));

        let slice: &mut [u64] = &mut v;
        blitz::par_for!(c in slice.chunks_mut(3), grain = 2 => c[0] = 0);
        assert_eq!(v[3], 0);

        let mut sum = 0u32;
        blitz::par_for!(i in 1..=100u32, reduce(+: sum) => sum += i);
        assert_eq!(sum, 5050);
        let mut top = 0u8;
        blitz::par_for!(i in 0..=u8::MAX, reduce(max: top) => top = top.max(i));
        assert_eq!(top, 255);

        // `char` ranges, as in a `for` loop.
        let mut letters = 0u32;
        blitz::par_for!(c in 'a'..='z', reduce(+: letters) => letters += c as u32);
        assert_eq!(letters, ('a'..='z').map(|c| c as u32).sum::<u32>());
        let mut count = 0usize;
        blitz::par_for!(c in '\u{D000}'..'\u{F000}', reduce(+: count) => count += c.len_utf8());
        assert_eq!(count, ('\u{D000}'..'\u{F000}').map(char::len_utf8).sum::<usize>());
    });
}
