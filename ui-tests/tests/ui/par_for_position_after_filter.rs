fn main() {
    let v: Vec<u64> = (0..100).collect();
    let mut total = 0u64;
    blitz::par_for!((i, x) in v.iter().filter(|x| **x > 3).enumerate(), reduce(+: total) => {
        total += *x + i as u64;
    });
    let text = "one two three";
    blitz::par_for!((c, d) in text.chars().zip(text.chars()) => {
        assert_eq!(c, d);
    });
    println!("{total}");
}
