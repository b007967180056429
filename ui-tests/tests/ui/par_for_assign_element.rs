fn main() {
    let n = 100usize;
    let mut out = vec![0u64; n];
    blitz::par_for!(i in 0..n => out[i] = (i * i) as u64);
}
