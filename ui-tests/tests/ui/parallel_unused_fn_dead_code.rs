// An annotated fn or method that nothing calls is reported as unused, as it would be without
// the attribute (here denied, to make it an error).
#![deny(dead_code)]

#[blitz::parallel]
fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib(n - 1) + fib(n - 2)
}

struct Tree {
    kids: Vec<Tree>,
}

impl Tree {
    #[blitz::parallel]
    fn size(&self) -> usize {
        match self.kids.as_slice() {
            [a, b] => 1 + a.size() + b.size(),
            _ => 1,
        }
    }
}

fn main() {
    let t = Tree { kids: Vec::new() };
    assert!(t.kids.is_empty());
}
