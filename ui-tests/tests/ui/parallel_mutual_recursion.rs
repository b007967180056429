#[blitz::parallel]
fn even(n: u64) -> u64 { if n < 2 { return n; } odd(n - 1) + odd(n - 2) }
#[blitz::parallel]
fn odd(n: u64) -> u64 { if n < 2 { return 1; } even(n - 1) + even(n - 2) }
fn main() { println!("{}", even(10)); }
