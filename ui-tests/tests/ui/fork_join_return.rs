fn check(a: u64, b: u64) -> u64 {
    let (x, y) = blitz::fork_join!(if a == 0 { return 0 } else { a * 2 }, b * 2);
    x + y
}

fn main() {
    println!("{}", check(1, 2));
}
