//! Locals that hold a `&mut` without saying so: children bound by a `match` on a `&mut`
//! parameter, by `as_mut().unwrap()`, by a `match` on `as_mut_slice()`, by `next()` on a
//! `chunks_mut` iterator. A later call whose argument reads what an earlier call changes
//! through one (`number(l, ..); number(r, last(l) + 1)`) must see the change, as the
//! sequential fn does: the calls run in order. Each shape is checked against the fn written
//! without the attribute, on one worker and on two. Two calls that each bind a `&mut` of their
//! own under the same name (`Some(t)` in two `match`es) still fork.

use blitz_ui_tests::{Rendezvous, pools};

enum Tree {
    Leaf(usize),
    Node(Box<Tree>, Box<Tree>),
}

impl Tree {
    fn full(depth: u32) -> Tree {
        if depth == 0 {
            Tree::Leaf(0)
        } else {
            Tree::Node(
                Box::new(Tree::full(depth - 1)),
                Box::new(Tree::full(depth - 1)),
            )
        }
    }

    fn ids(&self, out: &mut Vec<usize>) {
        match self {
            Tree::Leaf(id) => out.push(*id),
            Tree::Node(l, r) => {
                l.ids(out);
                r.ids(out);
            }
        }
    }
}

fn last(t: &Tree) -> usize {
    match t {
        Tree::Leaf(id) => *id,
        Tree::Node(_, r) => last(r),
    }
}

/// Children bound by a `match` on the `&mut` parameter.
#[blitz::parallel]
fn number(t: &mut Tree, start: usize) {
    match t {
        Tree::Leaf(id) => *id = start,
        Tree::Node(l, r) => {
            number(l, start);
            number(r, last(l) + 1);
        }
    }
}

struct Node {
    id: usize,
    hits: u64,
    left: Option<Box<Node>>,
    right: Option<Box<Node>>,
    kids: Vec<Node>,
}

impl Node {
    fn full(depth: u32) -> Node {
        let child = || (depth > 0).then(|| Box::new(Node::full(depth - 1)));
        Node {
            id: 0,
            hits: 0,
            left: child(),
            right: child(),
            kids: if depth == 0 {
                Vec::new()
            } else {
                vec![Node::full(depth - 1), Node::full(depth - 1)]
            },
        }
    }

    fn last_id(&self) -> usize {
        self.right.as_ref().map_or(self.id, |r| r.last_id())
    }

    fn left_ids(&self, out: &mut Vec<usize>) {
        match (&self.left, &self.right) {
            (Some(l), Some(r)) => {
                l.left_ids(out);
                r.left_ids(out);
            }
            _ => out.push(self.id),
        }
    }

    /// Children bound by `as_mut().unwrap()`.
    #[blitz::parallel]
    fn number(&mut self, start: usize) {
        if self.left.is_none() {
            self.id = start;
            return;
        }
        let l = self.left.as_mut().unwrap();
        let r = self.right.as_mut().unwrap();
        l.number(start);
        r.number(l.last_id() + 1);
    }

    fn total(&self) -> u64 {
        self.hits + self.kids.iter().map(Node::total).sum::<u64>()
    }

    /// Operands whose children come from a `match` on `as_mut_slice()`: the second call's
    /// argument reads what the first one changed.
    #[blitz::parallel]
    fn visit(&mut self, k: u64) -> u64 {
        self.hits += k;
        match self.kids.as_mut_slice() {
            [l, r] => self.hits + l.visit(k) + r.visit(l.total() % 7),
            _ => self.hits,
        }
    }

    fn visit_serial(&mut self, k: u64) -> u64 {
        self.hits += k;
        match self.kids.as_mut_slice() {
            [l, r] => {
                let a = l.visit_serial(k);
                let t = l.total() % 7;
                self.hits + a + r.visit_serial(t)
            }
            _ => self.hits,
        }
    }
}

/// Halves taken with `next().unwrap()` from `chunks_mut`.
#[blitz::parallel]
fn fill(v: &mut [u32], start: u32) {
    if v.len() == 1 {
        v[0] = start;
        return;
    }
    let mut halves = v.chunks_mut(v.len().div_ceil(2));
    let a = halves.next().unwrap();
    let b = halves.next().unwrap();
    fill(a, start);
    fill(b, a[a.len() - 1] + 1);
}

#[test]
fn a_call_reading_what_an_earlier_call_changed_through_a_local_sees_the_change() {
    for pool in pools() {
        let mut t = Tree::full(6);
        pool.install(|| number(&mut t, 1));
        let mut ids = Vec::new();
        t.ids(&mut ids);
        assert_eq!(ids, (1..=64).collect::<Vec<_>>());

        let mut n = Node::full(6);
        pool.install(|| n.number(1));
        let mut ids = Vec::new();
        n.left_ids(&mut ids);
        assert_eq!(ids, (1..=64).collect::<Vec<_>>());

        let (mut par, mut seq) = (Node::full(5), Node::full(5));
        assert_eq!(pool.install(|| par.visit(5)), seq.visit_serial(5));

        let mut v = vec![0u32; 37];
        pool.install(|| fill(&mut v, 1));
        assert_eq!(v, (1..=37).collect::<Vec<_>>());
    }
}

struct Pair {
    left: Option<Box<Pair>>,
    right: Option<Box<Pair>>,
    value: u64,
}

impl Pair {
    fn full(depth: u32, next: &mut u64) -> Pair {
        *next += 1;
        let value = *next;
        let mut child = || (depth > 0).then(|| Box::new(Pair::full(depth - 1, next)));
        let (left, right) = (child(), child());
        Pair { left, right, value }
    }

    /// Each statement binds its own `t`, `&mut` under default binding modes.
    #[blitz::parallel]
    fn bump_sum(&mut self, k: u64, rv: &Rendezvous) -> u64 {
        self.value += k;
        if self.left.is_none() {
            rv.leaf();
        }
        let l = match &mut self.left {
            Some(t) => t.bump_sum(k, rv),
            None => 0,
        };
        let r = match &mut self.right {
            Some(t) => t.bump_sum(k, rv),
            None => 0,
        };
        l + r + self.value
    }
}

#[test]
fn calls_on_locals_of_the_same_name_bound_apart_still_fork() {
    let [_, pool] = pools();
    let mut next = 0;
    let mut tree = Pair::full(6, &mut next);
    let rv = Rendezvous::new(2);
    let sum = pool.install(|| tree.bump_sum(1, &rv));
    assert_eq!(sum, next * (next + 1) / 2 + next);
    assert!(rv.all_arrived(), "the two `match`es did not fork");
}
