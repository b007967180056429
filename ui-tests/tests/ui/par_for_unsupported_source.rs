fn main() {
    let v = vec![0u64; 100];
    blitz::par_for!(x in v.iter().peekable() => println!("{x}"));
}
