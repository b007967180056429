// An argument the forks cannot share (`&Rc<_>` is not `Send`): the error points at the
// parameter, where the fn hands it to a worker, and at the forked call.
use std::rc::Rc;

struct Node {
    val: u64,
    kids: Vec<Rc<Node>>,
}

#[blitz::parallel]
fn total(n: &Rc<Node>) -> u64 {
    match n.kids.as_slice() {
        [a, b] => n.val + total(a) + total(b),
        _ => n.val,
    }
}

fn main() {
    let leaf = Rc::new(Node { val: 1, kids: vec![] });
    println!("{}", total(&leaf));
}
