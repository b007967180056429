fn main() {
    let v = vec![0u64; 100];
    blitz::par_for!(x in v.iter().map(|x| x * 2) => println!("{x}"));
}
