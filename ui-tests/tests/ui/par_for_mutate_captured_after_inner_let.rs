fn main() {
    let v: Vec<u64> = (0..100).collect();
    let mut total = 0u64;
    // A `let total` in an inner block that has ended does not make the later `total` a local.
    blitz::par_for!(x in &v => {
        {
            let total = *x * 2;
            assert!(total >= *x);
        }
        total += *x;
    });
    // A `let` of the same name earlier in the body's own block does: this one is fine.
    let mut count = 0u64;
    blitz::par_for!(x in &v, reduce(+: count) => {
        let mut total = *x;
        total += 1;
        count += total;
    });
    println!("{total} {count}");
}
