fn parse_all(v: &[&str]) -> Result<(), std::num::ParseIntError> {
    blitz::par_for!(s in v => {
        let n: u64 = s.parse()?;
        println!("{n}");
    });
    Ok(())
}

fn main() {
    println!("{:?}", parse_all(&["1", "2"]));
}
