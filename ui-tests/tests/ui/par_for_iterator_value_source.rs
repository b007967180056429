// An iterator held in a variable is not a source the loop can split: one error, at the
// source, with and without a reduction.
fn main() {
    let v = vec![1u32, 2, 3];
    let it = v.iter().map(|x| x * 2);
    let mut n = 0u32;
    blitz::par_for!(x in it, reduce(+: n) => n += x);
    let open = 0u32..;
    blitz::par_for!(i in open => println!("{i}"));
    println!("{n}");
}
