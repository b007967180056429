#[blitz::parallel]
fn bump(v: &mut Vec<u64>, depth: u32) -> u64 {
    if depth == 0 {
        v.push(1);
        return 1;
    }
    bump(&mut *v, depth - 1) + bump(&mut *v, depth - 1)
}

fn main() {}
