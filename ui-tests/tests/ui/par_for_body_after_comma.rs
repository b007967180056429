fn main() {
    let mut v = vec![1u32, 2, 3];
    blitz::par_for!(x in &mut v, { *x += 1 });
    println!("{v:?}");
}
