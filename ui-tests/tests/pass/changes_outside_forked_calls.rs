//! Changes that a fork would reorder keep their statements or operands in order: a method
//! that changes its receiver (`q.remove(0)`, `extra.pop()`, `out.extend(..)` in a closure)
//! while another branch reads or changes it, and an operand left of the forked calls that a
//! branch changes afterwards.

struct Tree {
    val: u64,
    left: Option<Box<Tree>>,
    right: Option<Box<Tree>>,
}

impl Tree {
    /// Two statements extend one local through closures: valid sequentially, and run so.
    #[blitz::parallel]
    fn leaves(&self) -> Vec<u64> {
        let mut out = vec![self.val];
        self.left.iter().for_each(|l| out.extend(l.leaves()));
        self.right.iter().for_each(|r| out.extend(r.leaves()));
        out
    }
}

#[blitz::parallel]
fn remove_operand(n: u64, x: u64) -> u64 {
    if n == 0 {
        return x;
    }
    let mut q: Vec<u64> = (1..=5).map(|i| i * n).collect();
    remove_operand(n - 1, q[0]) * 1000 + remove_operand(n - 1, q.remove(0))
}

#[blitz::parallel]
fn remove_statement(n: u64, x: u64) -> u64 {
    if n == 0 {
        return x;
    }
    let mut q: Vec<u64> = (1..=5).map(|i| i * n).collect();
    let a = remove_statement(n - 1, q[0]);
    let b = remove_statement(n - 1, q.remove(0));
    a * 1000 + b
}

#[blitz::parallel]
fn pop_in_operand(n: u64, stack: &[u64]) -> u64 {
    if n < 2 {
        return n;
    }
    let mut extra = stack.to_vec();
    let a = pop_in_operand(n - 1, stack) + extra.pop().unwrap_or(0);
    let b = pop_in_operand(n - 2, stack) + extra.pop().unwrap_or(0);
    a + b
}

#[blitz::parallel]
fn left_read(n: u64, k: u64) -> u64 {
    if n == 0 {
        return k;
    }
    let mut x = 10 * n;
    x + left_read(n - 1, 0) + {
        x += 1;
        left_read(n - 1, x)
    }
}

fn main() {
    let leaf = |val| Some(Box::new(Tree { val, left: None, right: None }));
    let tree = Tree {
        val: 1,
        left: leaf(2),
        right: leaf(3),
    };
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install(|| {
        assert_eq!(tree.leaves(), vec![1, 2, 3]);
        assert_eq!(remove_operand(1, 0), 1001);
        assert_eq!(remove_statement(1, 0), 1001);
        assert_eq!(pop_in_operand(10, &[1, 2, 3, 4]), 671);
        assert_eq!(left_read(3, 0), 154);
    });
}
