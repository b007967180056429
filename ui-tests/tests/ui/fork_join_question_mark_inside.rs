fn parse(a: &str, b: &str) -> Result<i32, std::num::ParseIntError> {
    let (x, y) = blitz::fork_join!(a.parse::<i32>()? + 1, b.parse::<i32>());
    Ok(x + y?)
}

fn main() {
    println!("{:?}", parse("1", "2"));
}
