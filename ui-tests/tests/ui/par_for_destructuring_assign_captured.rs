// A destructuring assignment to captured variables in a `par_for!` body: one error, on the
// first captured name, with the `reduce` advice.
fn main() {
    let v: Vec<u64> = (1..=10).collect();
    let (mut total, mut last) = (0u64, 0u64);
    blitz::par_for!(x in &v => {
        (total, last) = (total + x, *x);
    });
    println!("{total} {last}");
}
