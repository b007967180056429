fn main() {
    let mut any_small = false;
    blitz::par_for!(i in 0..10u32, reduce(min: any_small) => any_small = i < 3);
    println!("{any_small}");
}
