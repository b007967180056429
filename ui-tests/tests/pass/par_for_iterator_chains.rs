// `par_for!` over chains of `std` iterator methods: each becomes the same chain of parallel
// iterator methods. Checked against the sequential loops, on a 2-worker pool and outside one.
use blitz::par_for;

fn check() {
    let n = 20_000usize;
    let a: Vec<u32> = (0..n as u32).map(|x| x.wrapping_mul(2_654_435_761) % 1000).collect();
    let b: Vec<u32> = (0..n as u32).map(|x| x % 7).collect();

    let mut out = vec![0u32; n];
    par_for!((o, (x, y)) in out.iter_mut().zip(a.iter().zip(&b)) => *o = x * y);
    assert!(out.iter().zip(a.iter().zip(&b)).all(|(o, (x, y))| *o == x * y));

    let mut dot = 0u64;
    par_for!((x, y) in a.iter().zip(b.iter()), reduce(+: dot) => dot += u64::from(x * y));
    assert_eq!(dot, a.iter().zip(&b).map(|(x, y)| u64::from(x * y)).sum::<u64>());

    // `continue` and several reductions over a reversed, stepped range.
    let (mut top, mut count) = (0usize, 0usize);
    par_for!(i in (0..n).rev().step_by(3), reduce(max: top), reduce(+: count) => {
        if i % 2 == 0 {
            continue;
        }
        top = top.max(i);
        count += 1;
    });
    let odd = || (0..n).rev().step_by(3).filter(|i| i % 2 == 1);
    assert_eq!((top, count), (odd().max().unwrap(), odd().count()));

    let mut widest = 0u32;
    par_for!(w in a.windows(3), grain = 64, reduce(max: widest) => {
        widest = widest.max(w.iter().max().unwrap() - w.iter().min().unwrap());
    });
    assert_eq!(widest, a.windows(3).map(|w| w.iter().max().unwrap() - w.iter().min().unwrap()).max().unwrap());

    let mut whole = 0usize;
    par_for!(c in a.chunks_exact(7), reduce(+: whole) => whole += c.len());
    assert_eq!(whole, n / 7 * 7);

    let text = "one two\nthree wörds here\n\nlast";
    let (mut letters, mut line_bytes) = (0usize, 0usize);
    par_for!(c in text.chars().filter(|c| c.is_alphabetic()), reduce(+: letters) => {
        letters += c.len_utf8();
    });
    par_for!(l in text.lines(), reduce(+: line_bytes) => line_bytes += l.len());
    assert_eq!(letters, text.chars().filter(|c| c.is_alphabetic()).map(char::len_utf8).sum());
    assert_eq!(line_bytes, text.lines().map(str::len).sum());

    let mut evens = 0u64;
    par_for!(x in a.iter().map(|x| x * 2).filter(|x| x % 3 == 0), reduce(+: evens) => {
        evens += u64::from(x);
    });
    assert_eq!(evens, a.iter().map(|x| x * 2).filter(|x| x % 3 == 0).map(u64::from).sum::<u64>());

    par_for!((i, (o, x)) in out.iter_mut().zip(&a).enumerate().skip(1).take(100) => {
        *o = x + i as u32;
    });
    assert!((1..101).all(|i| out[i] == a[i] + i as u32));
    assert_eq!(out[0], a[0] * b[0]);

    let mut owned_total = 0u64;
    par_for!(s in a.clone().into_iter().map(u64::from), reduce(+: owned_total) => owned_total += s);
    assert_eq!(owned_total, a.iter().map(|&x| u64::from(x)).sum());
}

/// A chain whose source is a value built by a splitter or a filter (`collect`, `next`): the
/// parallel chain starts at its `iter()`, so positions are fine after it.
fn positions_after_a_collected_value() {
    let s = "alpha beta gamma";
    let mut u = 0usize;
    blitz::par_for!(
        (i, w) in s.split(' ').collect::<Vec<_>>().iter().enumerate(),
        reduce(+: u) => u += i * w.len()
    );
    assert_eq!(u, 4 + 2 * 5);
    let mut a = 0u64;
    blitz::par_for!(
        (i, b) in s.lines().next().unwrap_or("").bytes().enumerate(),
        reduce(+: a) => a += i as u64 * u64::from(b)
    );
    let want: u64 = s.bytes().enumerate().map(|(i, b)| i as u64 * u64::from(b)).sum();
    assert_eq!(a, want);
}

fn main() {
    positions_after_a_collected_value();
    check();
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install(check);
}
