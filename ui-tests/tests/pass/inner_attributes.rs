//! An inner attribute at the top of an annotated body applies to the fn, as it does without
//! the attribute: the crate denies unused variables, the body allows them.
#![deny(unused_variables)]

#[blitz::parallel]
fn fib(n: u64) -> u64 {
    #![allow(unused_variables)]
    let unused = 1;
    if n < 2 {
        return n;
    }
    fib(n - 1) + fib(n - 2)
}

struct Tree(Vec<Tree>);

impl Tree {
    #[blitz::parallel]
    fn size(&self) -> usize {
        #![allow(unused_variables)]
        let unused = 1;
        match &self.0[..] {
            [] => 1,
            [l, r] => 1 + l.size() + r.size(),
            _ => unreachable!("binary"),
        }
    }
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install(|| {
        assert_eq!(fib(20), 6765);
        let t = Tree(vec![Tree(vec![Tree(vec![]), Tree(vec![])]), Tree(vec![])]);
        assert_eq!(t.size(), 5);
    });
}
