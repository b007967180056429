//! The macros' generated code raises no lint that the same code without them would not:
//! CI's clippy step (`-D warnings`) compiles this file with the lints below denied, and the
//! tests check that the code still computes what it should.
#![deny(
    unused_variables,
    unused_mut,
    unused_braces,
    clippy::used_underscore_binding,
    clippy::redundant_slicing,
    clippy::let_unit_value,
    clippy::shadow_unrelated
)]

struct Tree {
    kids: Vec<Tree>,
}

impl Tree {
    fn new(depth: u32) -> Tree {
        let kids = if depth == 0 {
            Vec::new()
        } else {
            vec![Tree::new(depth - 1), Tree::new(depth - 1)]
        };
        Tree { kids }
    }

    /// A lint level on a method reaches its body (which lives in a copy beside it).
    #[allow(unused_variables)]
    #[blitz::parallel]
    fn count(&self) -> usize {
        let unused = 1;
        match self.kids.as_slice() {
            [a, b] => 1 + a.count() + b.count(),
            _ => 1,
        }
    }

    /// An expectation, too: fulfilled by the body, not reported unfulfilled by the wrapper.
    #[expect(unused_variables)]
    #[blitz::parallel]
    fn leaves(&self) -> usize {
        let unused = 1;
        match self.kids.as_slice() {
            [a, b] => a.leaves() + b.leaves(),
            _ => 1,
        }
    }

    /// A parameter named `_tag` is passed on by the wrapper without counting as a use.
    #[blitz::parallel]
    fn depth(&self, _tag: u32) -> u32 {
        match self.kids.as_slice() {
            [a, b] => 1 + a.depth(0).max(b.depth(0)),
            _ => 0,
        }
    }
}

#[blitz::parallel]
fn depth_sum(n: u32, _tag: u32) -> u32 {
    if n == 0 {
        return 1;
    }
    depth_sum(n - 1, 0) + depth_sum(n - 1, 0)
}

/// A `cutoff` on a fn whose body is one expression: the serial branch holds the body's
/// statements, not its braces as the tail of another block (`unused_braces`, which rustc
/// raises only for a block on one line: hence the skip).
#[rustfmt::skip]
#[blitz::parallel(cutoff = n < 8)]
fn fib_cut(n: u64) -> u64 { match n { 0 | 1 => n, _ => fib_cut(n - 1) + fib_cut(n - 2) } }

/// A call taken out of a statement that uses an earlier result: its result's name is the
/// macro's, used once, with no `mut`.
#[blitz::parallel]
fn dependent_sum(n: u32) -> u32 {
    if n == 0 {
        return 1;
    }
    let a = dependent_sum(n - 1);
    let a = a + dependent_sum(n - 1);
    a
}

/// `v.chunks(k)` on a slice is not rewritten to a redundant `&v[..]`.
fn chunk_max(v: &[u8]) -> usize {
    let mut m = 0usize;
    blitz::par_for!(c in v.chunks(16), reduce(max: m) => m = m.max(c.len()));
    m
}

/// A reduce clause names the body's accumulator after its target, on purpose: no
/// `clippy::shadow_unrelated` from the runtime source's pieces or an iterator chain's fold.
fn sum_twice(v: &[u64]) -> (u64, u64) {
    let mut total = 0u64;
    blitz::par_for!(x in v, reduce(+: total) => total += *x);
    let mut doubled = 0u64;
    blitz::par_for!(x in v.iter().map(|x| x * 2), reduce(+: doubled) => doubled += x);
    (total, doubled)
}

/// `v.chunks_mut(k)` on a `&mut [T]` binding that is not itself `mut`.
fn fill_chunks(v: &mut [u8]) {
    blitz::par_for!(c in v.chunks_mut(16) => c.fill(1));
}

/// A `fork_join!` arm bound to `_` whose value is `()` (no `let _ = ()` for
/// `clippy::let_unit_value`), beside one bound to a name.
fn count_and_note(v: &[u8], log: &std::sync::Mutex<Vec<usize>>) -> usize {
    blitz::fork_join!(n = v.len(), _ = log.lock().unwrap().push(v.len()));
    n
}

#[test]
fn code_under_denied_lints_computes_what_it_should() {
    let pool = blitz::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    pool.install(|| {
        let tree = Tree::new(8);
        assert_eq!(tree.count(), (1 << 9) - 1);
        assert_eq!(tree.leaves(), 1 << 8);
        assert_eq!(tree.depth(7), 8);
        assert_eq!(depth_sum(10, 3), 1 << 10);
        assert_eq!(dependent_sum(10), 1 << 10);
        assert_eq!(fib_cut(20), 6765);
        let mut v = vec![0u8; 1000];
        assert_eq!(chunk_max(&v), 16);
        let w: Vec<u64> = (0..1000).collect();
        assert_eq!(sum_twice(&w), (499_500, 999_000));
        fill_chunks(&mut v);
        assert!(v.iter().all(|&x| x == 1));
        let log = std::sync::Mutex::new(Vec::new());
        assert_eq!(count_and_note(&v, &log), 1000);
        assert_eq!(*log.lock().unwrap(), [1000]);
    });
}
