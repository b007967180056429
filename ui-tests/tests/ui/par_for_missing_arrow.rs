fn main() {
    let mut v = vec![0u64; 100];
    blitz::par_for!(x in &mut v { *x += 1 });
}
