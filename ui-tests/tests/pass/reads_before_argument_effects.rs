//! Within one forked call, what is evaluated before an argument that changes a local (the
//! receiver's index, the arguments to its left) reads the local as it was, as it does
//! sequentially; in both the operand and the statement form.

fn bump(i: &mut u64) -> u64 {
    *i += 1;
    *i
}

#[blitz::parallel]
fn operand(n: u64, x: u64, y: u64) -> u64 {
    if n == 0 {
        return x * 100 + y;
    }
    let mut i = n;
    operand(n - 1, i, bump(&mut i)) + operand(n - 1, i + 1, 0)
}

fn operand_seq(n: u64, x: u64, y: u64) -> u64 {
    if n == 0 {
        return x * 100 + y;
    }
    let mut i = n;
    operand_seq(n - 1, i, bump(&mut i)) + operand_seq(n - 1, i + 1, 0)
}

#[blitz::parallel]
fn statement(n: u64, pos: u64, tag: u64) -> u64 {
    if n == 0 {
        return pos * 1000 + tag;
    }
    let mut pos = pos;
    let a = statement(n - 1, pos * 2, bump(&mut pos));
    let b = statement(n - 1, 7, 7);
    a + b
}

fn statement_seq(n: u64, pos: u64, tag: u64) -> u64 {
    if n == 0 {
        return pos * 1000 + tag;
    }
    let mut pos = pos;
    let a = statement_seq(n - 1, pos * 2, bump(&mut pos));
    let b = statement_seq(n - 1, 7, 7);
    a + b
}

struct Node {
    kids: Vec<Node>,
    id: u64,
}

impl Node {
    #[blitz::parallel]
    fn walk(&self, k: u64) -> u64 {
        if self.kids.is_empty() {
            return self.id * 10 + k;
        }
        let mut i = 0;
        self.kids[i].walk({
            i += 1;
            i as u64
        }) + self.kids[2].walk(0)
    }
}

/// A `&mut` slice passed next to an argument that calls something is still reborrowed, not
/// moved: the halves are used again after the fork.
#[blitz::parallel]
fn sort(v: &mut [u32], depth: u32) {
    if v.len() < 2 {
        return;
    }
    let (l, r) = v.split_at_mut(v.len() / 2);
    sort(l, depth.saturating_sub(1));
    sort(r, depth.saturating_sub(1));
    let mut merged = l.to_vec();
    merged.extend_from_slice(r);
    merged.sort_unstable();
    v.copy_from_slice(&merged);
}

fn main() {
    let leaf = |id| Node { kids: vec![], id };
    let tree = Node {
        kids: vec![leaf(1), leaf(2), leaf(3)],
        id: 0,
    };
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install(|| {
        assert_eq!(operand(4, 0, 0), operand_seq(4, 0, 0));
        assert_eq!(statement(4, 1, 0), statement_seq(4, 1, 0));
        // Sequentially: kids[0].walk(1) + kids[2].walk(0).
        assert_eq!(tree.walk(0), 11 + 30);
        let mut v: Vec<u32> = (0..500).rev().collect();
        sort(&mut v, 8);
        assert!(v.windows(2).all(|w| w[0] < w[1]));
    });
}
