// A `?` inside a statement that could not fork anyway (it uses the result of the one before):
// the error says the fn has no fork point, not that the `?` is misplaced.
#[blitz::parallel]
fn parse_all(s: &[&str]) -> Result<Vec<i32>, std::num::ParseIntError> {
    if s.len() == 1 {
        return Ok(vec![s[0].parse()?]);
    }
    let (l, r) = s.split_at(s.len() / 2);
    let mut a = parse_all(l)?;
    a.extend(parse_all(r)?);
    Ok(a)
}

fn main() {}
