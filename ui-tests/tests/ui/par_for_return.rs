fn first_big(v: &[u64]) -> Option<u64> {
    blitz::par_for!(x in v => {
        if *x > 10 {
            return Some(*x);
        }
    });
    None
}

fn main() {
    println!("{:?}", first_big(&[1, 20]));
}
