struct Stats {
    total: u64,
}

fn main() {
    let mut stats = Stats { total: 0 };
    blitz::par_for!(i in 0..100u64, reduce(+: stats.total) => total += i);
    println!("{}", stats.total);
}
