trait Count {
    fn count(&self, depth: u32) -> u64;
}

struct Branching(u32);

impl Count for Branching {
    #[blitz::parallel]
    fn count(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        match self.0 {
            2 => self.count(depth - 1) + self.count(depth - 1),
            _ => (self.count(depth - 1), self.count(depth - 1), self.count(depth - 1)).0 * 3,
        }
    }
}

/// A tree whose size recurses through the fully qualified form, as a user writes it to tell
/// the trait's fn from an inherent one of the same name.
enum Tree {
    Leaf,
    Node(Box<Tree>, Box<Tree>),
}

trait Size {
    fn size(&self) -> usize;
}

impl Tree {
    #[allow(dead_code)]
    fn size(&self) -> usize {
        unreachable!("the trait's fn is called")
    }

    fn full(depth: u32) -> Tree {
        match depth {
            0 => Tree::Leaf,
            _ => Tree::Node(Box::new(Tree::full(depth - 1)), Box::new(Tree::full(depth - 1))),
        }
    }
}

impl Size for Tree {
    #[blitz::parallel]
    fn size(&self) -> usize {
        match self {
            Tree::Leaf => 1,
            Tree::Node(l, r) => 1 + <Self as Size>::size(l) + <Tree as Size>::size(r),
        }
    }
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    assert_eq!(pool.install(|| Branching(2).count(10)), 1024);
    assert_eq!(pool.install(|| Branching(3).count(6)), 729);
    assert_eq!(pool.install(|| <Tree as Size>::size(&Tree::full(10))), 2047);
}
