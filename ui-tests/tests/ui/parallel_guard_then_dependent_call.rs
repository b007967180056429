// Alpha-beta: the later call needs the first one's result (and a guard between them may
// return). The error names the result the later call uses.
#[blitz::parallel]
fn negamax(depth: u32, pos: u64, alpha: i64, beta: i64) -> i64 {
    if depth == 0 {
        return (pos % 17) as i64 - 8;
    }
    let (l, r) = (pos * 2, pos * 2 + 1);
    let v = -negamax(depth - 1, l, -beta, -alpha);
    if v >= beta {
        return v;
    }
    v.max(-negamax(depth - 1, r, -beta, -alpha.max(v)))
}

fn main() {
    println!("{}", negamax(6, 1, -100, 100));
}
