fn main() {
    let v = vec![1u64, 2, 3];
    let mut s = 0u64;
    blitz::par_for!(x in &v, grain = 4u32, reduce(+: s) => s += x);
    blitz::par_for!(x in v.iter().map(|x| x + 1), grain = 4u32 => assert!(x > 0));
    println!("{s}");
}
