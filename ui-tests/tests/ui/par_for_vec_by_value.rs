fn main() {
    let v = vec![1u64, 2, 3];
    blitz::par_for!(x in v => println!("{x}"));
}
