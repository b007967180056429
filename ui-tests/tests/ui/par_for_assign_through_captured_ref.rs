fn main() {
    let v = vec![1u64, 2, 3];
    let mut total = 0u64;
    let counter = &mut total;
    blitz::par_for!(x in &v => *counter += x);
    println!("{total}");
}
