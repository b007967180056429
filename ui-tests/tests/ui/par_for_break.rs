fn main() {
    blitz::par_for!(i in 0..100u32 => {
        if i == 50 {
            break;
        }
        println!("{i}");
    });
}
