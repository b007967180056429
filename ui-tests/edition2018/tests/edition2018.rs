//! The macros in an edition 2018 crate: forked branches that use different fields of one
//! variable compile, as they do in the sequential code (the generated closures capture
//! disjoint fields apart, as 2021 closures do).

struct Pair {
    a: Vec<u64>,
    b: Vec<u64>,
}

struct Node {
    value: u64,
    left: Option<Box<Node>>,
    right: Option<Box<Node>>,
}

impl Node {
    fn new(depth: u32) -> Node {
        let child = || {
            if depth == 0 {
                None
            } else {
                Some(Box::new(Node::new(depth - 1)))
            }
        };
        Node {
            value: 1,
            left: child(),
            right: child(),
        }
    }

    /// Doubles every value; the two subtrees are different fields of `self`.
    #[blitz::parallel]
    fn double(&mut self) -> u64 {
        self.value *= 2;
        let l = match &mut self.left {
            Some(l) => l.double(),
            None => 0,
        };
        let r = match &mut self.right {
            Some(r) => r.double(),
            None => 0,
        };
        self.value + l + r
    }
}

fn pool() -> blitz::ThreadPool {
    blitz::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap()
}

#[test]
fn fork_join_arms_on_different_fields() {
    let mut p = Pair {
        a: vec![1, 2],
        b: vec![3],
    };
    let (x, y) = pool().install(|| blitz::fork_join!(p.a.pop(), p.b.pop()));
    assert_eq!((x, y), (Some(2), Some(3)));
    assert_eq!((p.a, p.b), (vec![1], vec![]));
}

#[test]
fn parallel_method_on_different_fields() {
    let mut tree = Node::new(10);
    let total = pool().install(|| tree.double());
    assert_eq!(total, 2 * ((1 << 11) - 1));
}
