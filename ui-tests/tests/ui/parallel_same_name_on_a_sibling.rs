// `v.len()` is `Vec::len`, but a macro cannot see types: a same-named call on a binding, forked
// beside recursive calls, is taken for one. The fix is `blitz::no_fork!(v.len())`. (Outside a
// fork, or on a field of `self`, such a call stays as written and compiles.)
enum Bag {
    Leaf,
    Node(Vec<u8>, Box<Bag>, Box<Bag>),
}

impl Bag {
    #[blitz::parallel]
    fn len(&self) -> usize {
        match self {
            Bag::Node(v, a, b) => v.len() + a.len() + b.len(),
            Bag::Leaf => 0,
        }
    }
}

fn main() {
    assert_eq!(Bag::Leaf.len(), 0);
}
