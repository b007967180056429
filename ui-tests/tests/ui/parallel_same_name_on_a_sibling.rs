// `v.len()` is `Vec::len`, but a macro cannot see types: a same-named call on a binding, forked
// beside recursive calls, is taken for one. In a `&self` or `&mut self` method the type checker
// sorts them out (a probe); in one that takes `self` by value or by a smart pointer the call
// is redirected to the fast copy, which `Vec` lacks. The fix is `blitz::no_fork!(v.len())`.
enum Bag {
    Leaf,
    Node(Vec<u8>, Box<Bag>, Box<Bag>),
}

impl Bag {
    #[blitz::parallel]
    fn len(self: Box<Self>) -> usize {
        match *self {
            Bag::Node(v, a, b) => v.len() + a.len() + b.len(),
            Bag::Leaf => 0,
        }
    }
}

fn main() {
    assert_eq!(Box::new(Bag::Leaf).len(), 0);
}
