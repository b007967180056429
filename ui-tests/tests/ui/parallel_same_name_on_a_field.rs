// `self.items.len()` is `Vec::len`, but a macro cannot see types: a same-named call on a place
// is taken for recursion. The fix is `blitz::no_fork!(self.items.len())`.
struct Bag {
    items: Vec<u8>,
    inner: Vec<Bag>,
}

impl Bag {
    #[blitz::parallel]
    fn len(&self) -> usize {
        match self.inner.as_slice() {
            [a, b] => self.items.len() + a.len() + b.len(),
            _ => 0,
        }
    }
}

fn main() {
    let b = Bag { items: vec![1], inner: vec![] };
    assert_eq!(b.len(), 0);
}
