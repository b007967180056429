struct List {
    next: Option<Box<List>>,
}

impl List {
    #[blitz::parallel]
    fn len(&self) -> usize {
        match &self.next {
            Some(n) => 1 + n.len(),
            None => 1,
        }
    }
}

fn main() {
    let l = List { next: Some(Box::new(List { next: None })) };
    assert_eq!(l.len(), 2);
}
