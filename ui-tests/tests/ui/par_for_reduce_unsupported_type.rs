fn main() {
    let mut all = String::new();
    blitz::par_for!(i in 0..10u32, reduce(+: all) => all.push_str(&i.to_string()));
    println!("{all}");
}
