// A `zip` with an iterator whose last adaptor has no parallel counterpart: one error, on
// that adaptor.
fn main() {
    let pairs: Vec<u32> = (0..1000).collect();
    let names = ["a", "bb", "ccc"];
    let mut s = 0usize;
    blitz::par_for!((p, n) in pairs.iter().zip(names.iter().cycle()), reduce(+: s) => {
        s += *p as usize + n.len();
    });
    println!("{s}");
}
