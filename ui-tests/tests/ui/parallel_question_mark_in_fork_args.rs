fn parse(s: &str) -> Result<u64, std::num::ParseIntError> {
    s.parse()
}

#[blitz::parallel]
fn total(s: &[&str]) -> Result<u64, std::num::ParseIntError> {
    if s.len() < 2 {
        return s.iter().map(|x| parse(x)).sum();
    }
    Ok(total(&s[..parse(s[0])? as usize])? + total(&s[1..])?)
}

fn main() {}
