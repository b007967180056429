// Assignments whose value borrows from a recursive call's result (`s += &f(x);`,
// `s += f(x).as_str();`) fork: the branch runs the call, the borrow is taken after the join.

#[blitz::parallel]
fn nested(n: u64) -> String {
    if n < 2 {
        return n.to_string();
    }
    let mut s = String::from("(");
    s += &nested(n - 1);
    s += &nested(n - 2);
    s.push(')');
    s
}

#[blitz::parallel]
fn nested_str(n: u64) -> String {
    if n < 2 {
        return n.to_string();
    }
    let mut s = String::from("[");
    s += nested_str(n - 1).as_str();
    s += nested_str(n - 2).trim();
    s.push(']');
    s
}

fn nested_serial(n: u64, open: char, close: char) -> String {
    if n < 2 {
        return n.to_string();
    }
    format!(
        "{open}{}{}{close}",
        nested_serial(n - 1, open, close),
        nested_serial(n - 2, open, close)
    )
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    pool.install(|| {
        for n in [0, 1, 2, 5, 12] {
            assert_eq!(nested(n), nested_serial(n, '(', ')'));
            assert_eq!(nested_str(n), nested_serial(n, '[', ']'));
        }
    });
}
