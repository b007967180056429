fn main() {
    let mut v = vec![1u64, 2, 3];
    let (a, b) = blitz::fork_join!(v.pop(), v.pop());
    println!("{a:?} {b:?}");
}
