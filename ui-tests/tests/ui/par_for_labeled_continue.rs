fn main() {
    'rows: for r in 0..4u32 {
        blitz::par_for!(c in 0..4u32 => {
            if c == r {
                continue 'rows;
            }
            println!("{r} {c}");
        });
    }
}
