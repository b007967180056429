// The error is the only diagnostic: the labels the dropped arms jumped to stay used.
fn main() {
    let v = 'blk: {
        let t = blitz::fork_join!(if true { break 'blk 5u32 } else { 1u32 }, 2u32);
        t.0 + t.1
    };
    'rows: for r in 0..4u32 {
        blitz::fork_join!(a = { continue 'rows }, b = r);
        println!("{a} {b} {v}");
    }
}
