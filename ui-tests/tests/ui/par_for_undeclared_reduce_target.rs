// A reduce target that was never declared: one error, at the target.
fn main() {
    blitz::par_for!(x in 0..4u32, reduce(+: total) => total += x);
}
