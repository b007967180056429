fn main() {
    let n = 10usize;
    blitz::par_for!(i in ..n => println!("{i}"));
    blitz::par_for!(i in (5..).step_by(2) => println!("{i}"));
}
