//! `#[parallel]` on methods: recursion through any receiver, on a started pool with two or
//! more workers. Each shape checks its result against a sequential version, and the spreading
//! ones check that both workers ran leaves at once (a rendezvous: a leaf waits, bounded, until
//! every worker has run one), which only happens if the recursive calls really fork.

use std::sync::Arc;

use blitz_ui_tests::Rendezvous;

fn pool(n: usize) -> blitz::ThreadPool {
    blitz::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .unwrap()
}

// ---------------------------------------------------------------- an expression enum

enum Expr {
    Num(i64),
    Add(Box<Expr>, Box<Expr>),
    Mul(Box<Expr>, Box<Expr>),
    Neg(Box<Expr>),
    Leaf(i64),
}

impl Expr {
    /// The shape: `l`, `r` are `&Box<Expr>` bindings from a `match` on `self`.
    #[blitz::parallel]
    fn eval(&self, r: &Rendezvous) -> i64 {
        match self {
            Expr::Num(n) => *n,
            Expr::Leaf(n) => {
                r.leaf();
                *n
            }
            Expr::Add(a, b) => a.eval(r) + b.eval(r),
            Expr::Mul(a, b) => a.eval(r).wrapping_mul(b.eval(r)),
            Expr::Neg(e) => -e.eval(r),
        }
    }

    fn eval_serial(&self) -> i64 {
        match self {
            Expr::Num(n) | Expr::Leaf(n) => *n,
            Expr::Add(a, b) => a.eval_serial() + b.eval_serial(),
            Expr::Mul(a, b) => a.eval_serial().wrapping_mul(b.eval_serial()),
            Expr::Neg(e) => -e.eval_serial(),
        }
    }

    fn build(depth: u32, seed: &mut u64) -> Expr {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let pick = (*seed >> 33) % 5;
        if depth == 0 {
            return if pick == 0 {
                Expr::Leaf((*seed >> 40) as i64 % 7)
            } else {
                Expr::Num((*seed >> 40) as i64 % 7)
            };
        }
        let sub = |seed: &mut u64| Box::new(Expr::build(depth - 1, seed));
        match pick {
            0 => Expr::Neg(sub(seed)),
            1 => Expr::Mul(sub(seed), sub(seed)),
            _ => Expr::Add(sub(seed), sub(seed)),
        }
    }
}

#[test]
fn expression_enum_through_box_bindings() {
    let pool = pool(2);
    let mut seed = 11;
    for _ in 0..4 {
        let e = Expr::build(12, &mut seed);
        let r = Rendezvous::new(2);
        assert_eq!(pool.install(|| e.eval(&r)), e.eval_serial());
    }
    // A balanced sum of leaves: both workers must meet in a leaf.
    fn balanced(depth: u32) -> Expr {
        match depth {
            0 => Expr::Leaf(1),
            _ => Expr::Add(Box::new(balanced(depth - 1)), Box::new(balanced(depth - 1))),
        }
    }
    let e = balanced(6);
    let r = Rendezvous::new(2);
    assert_eq!(pool.install(|| e.eval(&r)), 64);
    assert!(
        r.all_arrived(),
        "the two sides of `a.eval() + b.eval()` did not fork"
    );
    // Outside any pool (the global pool), the same result.
    let r = Rendezvous::new(blitz::current_num_threads());
    assert_eq!(e.eval(&r), 64);
}

// ---------------------------------------------------------------- a tree with Option children

struct Node {
    val: u64,
    left: Option<Box<Node>>,
    right: Option<Box<Node>>,
}

impl Node {
    fn full(depth: u32, next: &mut u64) -> Option<Box<Node>> {
        if depth == 0 {
            return None;
        }
        *next += 1;
        let val = *next;
        Some(Box::new(Node {
            val,
            left: Node::full(depth - 1, next),
            right: Node::full(depth - 1, next),
        }))
    }

    /// The shape: consecutive `let`s, each a `match` on an `Option<Box<Self>>`.
    #[blitz::parallel]
    pub fn sum(&self) -> u64 {
        let l = match &self.left {
            Some(l) => l.sum(),
            None => 0,
        };
        let r = match &self.right {
            Some(r) => r.sum(),
            None => 0,
        };
        self.val + l + r
    }

    /// `if let` branches, `as_deref()` and an early return.
    #[blitz::parallel]
    fn height(&self, rv: &Rendezvous) -> u32 {
        if self.left.is_none() && self.right.is_none() {
            rv.leaf();
            return 1;
        }
        let l = if let Some(l) = self.left.as_deref() {
            l.height(rv)
        } else {
            0
        };
        let r = if let Some(r) = &self.right {
            r.height(rv)
        } else {
            0
        };
        1 + l.max(r)
    }

    /// The `map_or` idiom: each operand makes its recursive call through a closure passed to a
    /// call, so the two operands fork as a whole (the calls inside go through the method).
    #[blitz::parallel]
    fn leaves(&self, rv: &Rendezvous) -> u64 {
        if self.left.is_none() && self.right.is_none() {
            rv.leaf();
            return 1;
        }
        self.left.as_ref().map_or(0, |l| l.leaves(rv))
            + self.right.as_ref().map_or(0, |r| r.leaves(rv))
    }

    /// `&mut self`, disjoint children: the borrow checker proves the two forks disjoint.
    #[blitz::parallel]
    fn double(&mut self) {
        self.val *= 2;
        if let Some(l) = &mut self.left {
            l.double();
        }
        if let Some(r) = self.right.as_mut() {
            r.double();
        }
    }

    /// `-> Result` with `?` after each forked call.
    #[blitz::parallel]
    fn checked_sum(&self, limit: u64) -> Result<u64, String> {
        if self.val > limit {
            return Err(format!("{} is over {limit}", self.val));
        }
        let l = match &self.left {
            Some(l) => l.checked_sum(limit),
            None => Ok(0),
        }?;
        let r = match &self.right {
            Some(r) => r.checked_sum(limit),
            None => Ok(0),
        }?;
        Ok(self.val + l + r)
    }

    /// An associated fn without a receiver, called as `Self::` and as `Node::`.
    #[blitz::parallel]
    fn count(node: &Option<Box<Node>>) -> usize {
        match node {
            None => 0,
            Some(n) => 1 + Self::count(&n.left) + Node::count(&n.right),
        }
    }
}

#[test]
fn option_children_mut_self_and_result() {
    let pool = pool(2);
    let mut tree = Node::full(14, &mut 0).unwrap();
    let want: u64 = (1..1u64 << 14).sum();
    assert_eq!(pool.install(|| tree.sum()), want);
    let rv = Rendezvous::new(2);
    assert_eq!(pool.install(|| tree.height(&rv)), 14);
    assert!(rv.all_arrived(), "`if let` branches did not fork");
    let rv = Rendezvous::new(2);
    assert_eq!(pool.install(|| tree.leaves(&rv)), 1 << 13);
    assert!(rv.all_arrived(), "the `map_or` operands did not fork");
    pool.install(|| tree.double());
    assert_eq!(pool.install(|| tree.sum()), 2 * want);
    assert_eq!(pool.install(|| tree.checked_sum(u64::MAX)), Ok(2 * want));
    let err = pool.install(|| tree.checked_sum(1000)).unwrap_err();
    assert!(err.ends_with("is over 1000"), "{err}");
    let root = Some(tree);
    assert_eq!(pool.install(|| Node::count(&root)), (1 << 14) - 1);
}

// ---------------------------------------------------------------- generic impls, lifetimes

struct Tree<T> {
    items: Vec<T>,
}

impl<T: Send + Sync + Copy + Into<u64>> Tree<T> {
    #[blitz::parallel]
    fn total(&self, lo: usize, hi: usize) -> u64 {
        if hi - lo <= 8 {
            return self.items[lo..hi].iter().map(|&x| x.into()).sum();
        }
        let mid = (lo + hi) / 2;
        self.total(lo, mid) + self.total(mid, hi)
    }

    /// Returns a borrow of `self`: the copy keeps the elided lifetime.
    #[blitz::parallel]
    pub fn largest<'a>(&'a self, v: &'a [T]) -> &'a T
    where
        T: Ord,
    {
        if v.len() == 1 {
            return &v[0];
        }
        let (l, r) = v.split_at(v.len() / 2);
        let (a, b) = (self.largest(l), self.largest(r));
        if a >= b { a } else { b }
    }
}

#[test]
fn generic_impl_and_lifetimes() {
    let pool = pool(2);
    let t = Tree {
        items: (0..10_000u32).map(|i| (i * 7919) % 10_007).collect(),
    };
    let want: u64 = t.items.iter().map(|&x| u64::from(x)).sum();
    assert_eq!(pool.install(|| t.total(0, t.items.len())), want);
    assert_eq!(
        pool.install(|| *t.largest(&t.items)),
        *t.items.iter().max().unwrap()
    );
}

// ---------------------------------------------------------------- smart-pointer receivers

struct Shared {
    val: u64,
    kids: Vec<Arc<Shared>>,
}

impl Shared {
    /// Receivers through `Arc` deref and an index.
    #[blitz::parallel]
    fn weight(&self) -> u64 {
        match self.kids.len() {
            0 => self.val,
            1 => self.val + self.kids[0].weight(),
            _ => self.val + self.kids[0].weight() + self.kids[1].weight(),
        }
    }
}

#[test]
fn smart_pointer_receivers() {
    fn shared(depth: u32) -> Arc<Shared> {
        Arc::new(Shared {
            val: u64::from(depth),
            kids: match depth {
                0 => vec![],
                _ => vec![shared(depth - 1), shared(depth - 1)],
            },
        })
    }
    let pool = pool(2);
    let s = shared(12);
    let want: u64 = (0..=12u64).map(|d| d << (12 - d)).sum();
    assert_eq!(pool.install(|| s.weight()), want);
}

// ---------------------------------------------------------------- n-ary trees, same names

struct Dir {
    size: u64,
    children: Vec<Dir>,
}

impl Dir {
    /// A recursive call inside a closure is not a fork point: this runs as written.
    #[blitz::parallel]
    fn total(&self) -> u64 {
        self.size + self.children.iter().map(|c| c.total()).sum::<u64>()
    }

    /// The slice-split idiom forks an n-ary tree: halve the children.
    fn total_split(&self) -> u64 {
        self.size + Dir::sum_of(&self.children)
    }

    #[blitz::parallel]
    fn sum_of(dirs: &[Dir]) -> u64 {
        match dirs {
            [] => 0,
            [d] => d.total_split(),
            _ => {
                let (l, r) = dirs.split_at(dirs.len() / 2);
                Self::sum_of(l) + Self::sum_of(r)
            }
        }
    }

    /// Same-named methods of other types: `iter().skip(2).len()` (not a place) is forked as
    /// written; `self.children.len()` (a place, so it would be redirected) is kept out with
    /// the escape hatch, `no_fork!`.
    #[blitz::parallel]
    fn len(&self) -> usize {
        match self.children.as_slice() {
            [] => 1,
            [a] => 1 + a.len(),
            [a, b, ..] => {
                let direct = blitz::no_fork!(self.children.len());
                direct - 1 + a.len() + b.len() + self.children.iter().skip(2).len()
            }
        }
    }

    fn len_serial(&self) -> usize {
        match self.children.as_slice() {
            [] => 1,
            [a] => 1 + a.len_serial(),
            [a, b, ..] => {
                let direct = self.children.len();
                direct - 1 + a.len_serial() + b.len_serial() + (direct - 2)
            }
        }
    }
}

#[test]
fn n_ary_trees() {
    fn dir(depth: u32, fan: usize) -> Dir {
        Dir {
            size: u64::from(depth) + 1,
            children: match depth {
                0 => vec![],
                _ => (0..fan).map(|_| dir(depth - 1, fan)).collect(),
            },
        }
    }
    let pool = pool(2);
    let d = dir(6, 3);
    let want: u64 = (0..=6u32).map(|k| u64::from(k + 1) * 3u64.pow(6 - k)).sum();
    assert_eq!(pool.install(|| d.total()), want);
    assert_eq!(pool.install(|| d.total_split()), want);
    assert_eq!(pool.install(|| d.len()), d.len_serial());
}

// ---------------------------------------------------------------- trait impls and defaults

/// A default body forks `&self` into two closures, so the trait needs `Sync`.
trait Sized2: Sync {
    fn size2(&self, rv: &Rendezvous) -> usize;

    /// A default body: parallel too.
    #[blitz::parallel]
    fn halves(&self, n: u64) -> u64 {
        if n < 2 {
            return n;
        }
        self.halves(n / 2) + self.halves(n - n / 2)
    }
}

impl Sized2 for Node {
    #[blitz::parallel]
    fn size2(&self, rv: &Rendezvous) -> usize {
        if self.left.is_none() {
            rv.leaf();
        }
        1 + match (&self.left, &self.right) {
            (Some(a), Some(b)) => a.size2(rv) + b.size2(rv),
            _ => 0,
        }
    }
}

#[test]
fn trait_impl_and_default_methods() {
    let pool = pool(2);
    let tree = Node::full(8, &mut 0).unwrap();
    let rv = Rendezvous::new(2);
    assert_eq!(pool.install(|| tree.size2(&rv)), 255);
    assert!(
        rv.all_arrived(),
        "the trait impl's recursive calls did not fork"
    );
    assert_eq!(pool.install(|| tree.halves(1000)), 1000);
}

// ---------------------------------------------------------------- a wide pool

#[test]
fn method_recursion_spreads_to_every_worker() {
    let pool = pool(8);
    let tree = Node::full(9, &mut 0).unwrap();
    let rv = Rendezvous::new(8);
    assert_eq!(pool.install(|| tree.height(&rv)), 9);
    assert!(rv.all_arrived(), "not every worker got a leaf");
}

/// An associated fn with no receiver and no mention of `Self`, recursing through its type's
/// name.
struct Forest {
    kids: Vec<Forest>,
}

impl Forest {
    #[blitz::parallel]
    fn count(t: &Forest) -> u64 {
        match t.kids.as_slice() {
            [a, b] => 1 + Forest::count(a) + Forest::count(b),
            kids => 1 + kids.iter().map(Forest::count).sum::<u64>(),
        }
    }

    fn full(depth: u32) -> Forest {
        let kids = if depth == 0 {
            Vec::new()
        } else {
            vec![Forest::full(depth - 1), Forest::full(depth - 1)]
        };
        Forest { kids }
    }
}

#[test]
fn an_associated_fn_recurses_through_its_type_name() {
    let forest = Forest::full(12);
    for threads in [1, 2] {
        let pool = blitz::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        assert_eq!(pool.install(|| Forest::count(&forest)), (1 << 13) - 1);
    }
}

// ---------------------------------------------------------------- `&mut` receivers and arguments

struct Counter {
    calls: u64,
}

impl Counter {
    /// `&mut self` as the receiver of both calls: they share it, so they run as written.
    #[blitz::parallel]
    fn fib(&mut self, n: u64) -> u64 {
        self.calls += 1;
        if n < 2 {
            return n;
        }
        self.fib(n - 1) + self.fib(n - 2)
    }
}

/// A `&mut` parameter passed on to both calls (operands, then statements): shared, as written.
#[blitz::parallel]
fn counted(n: u64, calls: &mut u64) -> u64 {
    *calls += 1;
    if n < 2 {
        return n;
    }
    counted(n - 1, calls) + counted(n - 2, calls)
}

#[blitz::parallel]
fn counted_statements(n: u64, log: &mut Vec<u64>) -> u64 {
    log.push(n);
    if n < 2 {
        return n;
    }
    let a = counted_statements(n - 1, log);
    let b = counted_statements(n - 2, &mut *log);
    a + b
}

/// One local borrowed `&mut` by both calls.
#[blitz::parallel]
fn shared_scratch(n: u64, scratch: &mut Vec<u64>) -> u64 {
    scratch.push(n);
    if n < 2 {
        return n;
    }
    let mut mine = Vec::new();
    let total = shared_scratch(n - 1, &mut mine) + shared_scratch(n - 2, &mut mine);
    scratch.extend(mine);
    total
}

impl Node {
    /// `&mut self` with each statement changing its own field: the two forks hold disjoint
    /// places, so they fork.
    #[blitz::parallel]
    fn bump(&mut self, k: u64, rv: &Rendezvous) -> u64 {
        self.val += k;
        if self.left.is_none() && self.right.is_none() {
            rv.leaf();
            return self.val;
        }
        let l = match &mut self.left {
            Some(t) => t.bump(k, rv),
            None => 0,
        };
        let r = match self.right.as_mut() {
            Some(t) => t.bump(k, rv),
            None => 0,
        };
        l + r + self.val
    }
}

#[test]
fn exclusive_receivers_and_arguments() {
    let pool = pool(2);
    let fib = |n: u64| -> u64 { (0..n).fold((0u64, 1u64), |(a, b), _| (b, a + b)).0 };
    // Calls of fib(n) for n = 20: fib(21) * 2 - 1.
    let calls = 2 * fib(21) - 1;
    let mut counter = Counter { calls: 0 };
    assert_eq!(pool.install(|| counter.fib(20)), fib(20));
    assert_eq!(counter.calls, calls);
    let mut n = 0;
    assert_eq!(pool.install(|| counted(20, &mut n)), fib(20));
    assert_eq!(n, calls);
    let mut log = Vec::new();
    assert_eq!(pool.install(|| counted_statements(12, &mut log)), fib(12));
    assert_eq!(log.len() as u64, 2 * fib(13) - 1);
    assert_eq!(&log[..4], [12, 11, 10, 9], "the calls ran in order");
    let mut scratch = Vec::new();
    assert_eq!(pool.install(|| shared_scratch(12, &mut scratch)), fib(12));
    assert_eq!(scratch.len() as u64, 2 * fib(13) - 1);
    let mut tree = Node::full(12, &mut 0).unwrap();
    let before = pool.install(|| tree.sum());
    let rv = Rendezvous::new(2);
    let after = pool.install(|| tree.bump(1, &rv));
    assert!(
        rv.all_arrived(),
        "the `&mut self` statements on disjoint fields did not fork"
    );
    assert_eq!(after, before + (1 << 12) - 1);
    assert_eq!(pool.install(|| tree.sum()), after);
}

// ---------------------------------------------------------------- computed receivers

/// A search state passed by value: each branch takes a copy, the last one the original.
#[derive(Clone)]
struct Path {
    steps: Vec<u8>,
}

impl Path {
    fn with(mut self, step: u8) -> Path {
        self.steps.push(step);
        self
    }

    /// The sum over all leaves of each leaf's path length, a copy made in the receiver.
    #[blitz::parallel]
    fn weigh(self, depth: u32, rv: &Rendezvous) -> u64 {
        if depth == 0 {
            rv.leaf();
            return self.steps.len() as u64;
        }
        self.clone().with(0).weigh(depth - 1, rv) + self.with(1).weigh(depth - 1, rv)
    }

    /// The same in statements, with the copy's receiver a plain `clone()`.
    #[blitz::parallel]
    fn weigh_statements(self, depth: u32) -> u64 {
        if depth == 0 {
            return self.steps.len() as u64;
        }
        let left = self.clone().weigh_statements(depth - 1);
        let right = self.weigh_statements(depth - 1);
        left + right + 1
    }
}

#[test]
fn a_receiver_that_computes_a_value_is_evaluated_before_the_fork() {
    let pool = pool(2);
    let start = || Path { steps: vec![7; 3] };
    let depth = 10;
    let rv = Rendezvous::new(2);
    let weight = pool.install(|| start().weigh(depth, &rv));
    assert!(rv.all_arrived(), "the computed receivers did not fork");
    assert_eq!(weight, (1u64 << depth) * (3 + depth as u64));
    let leaves = 1u64 << depth;
    assert_eq!(
        pool.install(|| start().weigh_statements(depth)),
        leaves * 3 + (leaves - 1)
    );
}

// ---------------------------------------------------------------- same-named methods of other types

/// A rope whose `len` is also the leaf `Vec`'s: `v.len()` is bound by the same `match` as the
/// children, but is not forked with one, so it stays `Vec::len`.
enum Rope {
    Leaf(Vec<u8>, Arc<Rendezvous>),
    Node(Box<Rope>, Box<Rope>),
}

impl Rope {
    #[blitz::parallel]
    fn len(&self) -> usize {
        match self {
            Rope::Leaf(v, rv) => {
                rv.leaf();
                v.len()
            }
            Rope::Node(l, r) => l.len() + r.len(),
        }
    }

    fn build(depth: u32, rv: &Arc<Rendezvous>) -> Rope {
        if depth == 0 {
            return Rope::Leaf(vec![0; 3], rv.clone());
        }
        let sub = || Box::new(Rope::build(depth - 1, rv));
        Rope::Node(sub(), sub())
    }
}

/// A shelf whose `len` and `insert` are also its fields' (`Vec::len`, `HashSet::insert`),
/// called on fields of `self` in statements beside the recursive calls.
struct Shelf {
    items: Vec<u32>,
    seen: std::collections::HashSet<u32>,
    kids: Vec<Shelf>,
}

impl Shelf {
    #[blitz::parallel]
    fn len(&self) -> usize {
        let own = self.items.len();
        match self.kids.as_slice() {
            [a, b] => own + a.len() + b.len(),
            _ => own,
        }
    }

    #[blitz::parallel]
    fn insert(&mut self, k: u32) -> bool {
        let fresh = self.seen.insert(k);
        if let [a, b] = self.kids.as_mut_slice() {
            let x = a.insert(k);
            let y = b.insert(k);
            return fresh && x && y;
        }
        fresh
    }

    fn build(depth: u32) -> Shelf {
        Shelf {
            items: vec![1; depth as usize + 1],
            seen: Default::default(),
            kids: if depth == 0 {
                Vec::new()
            } else {
                vec![Shelf::build(depth - 1), Shelf::build(depth - 1)]
            },
        }
    }

    fn sets(&self) -> usize {
        self.seen.len() + self.kids.iter().map(Shelf::sets).sum::<usize>()
    }
}

#[test]
fn calls_of_another_types_same_named_method_stay_as_written() {
    let pool = pool(2);
    let rv = Arc::new(Rendezvous::new(2));
    let rope = Rope::build(8, &rv);
    assert_eq!(pool.install(|| rope.len()), 3 << 8);
    assert!(rv.all_arrived(), "the rope's halves did not fork");

    let mut shelf = Shelf::build(6);
    // Node at depth d holds d + 1 items; 2^(6 - d) nodes at depth d.
    let items: usize = (0..=6).map(|d| (d + 1) << (6 - d)).sum();
    assert_eq!(pool.install(|| shelf.len()), items);
    assert!(pool.install(|| shelf.insert(5)));
    assert!(
        !pool.install(|| shelf.insert(5)),
        "every set already held 5"
    );
    assert_eq!(shelf.sets(), 127, "each of the 127 shelves holds one key");
}

/// A bag whose `len`, `push` and `first` are also the `Vec`'s it holds, called on bindings
/// forked beside the recursive calls: the type checker picks `Vec`'s method for `v`, and the
/// fast copy for the children, whatever pointer holds them.
enum Bag<T> {
    Leaf(Arc<Rendezvous>),
    Node(Vec<T>, Box<Bag<T>>, Arc<Bag<T>>),
    Pair(Vec<T>, Box<Bag<T>>, Box<Bag<T>>),
}

impl<T: Clone + Send + Sync> Bag<T> {
    #[blitz::parallel]
    fn len(&self) -> usize {
        match self {
            Bag::Leaf(rv) => {
                rv.leaf();
                0
            }
            Bag::Node(v, a, b) => v.len() + a.len() + b.len(),
            Bag::Pair(v, a, b) => v.len() + a.len() + b.len(),
        }
    }

    /// `&mut self`: `Vec::push` returns `()`, the copy a count; a tuple forks all three.
    #[blitz::parallel]
    fn push(&mut self, x: T) -> usize {
        match self {
            Bag::Leaf(rv) => {
                rv.leaf();
                0
            }
            Bag::Node(..) => 0,
            Bag::Pair(v, a, b) => {
                let ((), m, n) = (v.push(x.clone()), a.push(x.clone()), b.push(x));
                1 + m + n
            }
        }
    }

    /// The result borrows from the receiver, past the bindings the probe is made on.
    #[blitz::parallel]
    fn first(&self) -> Option<&T> {
        match self {
            Bag::Leaf(_) => None,
            Bag::Node(v, a, b) => {
                let (here, l, r) = (v.first(), a.first(), b.first());
                here.or(l).or(r)
            }
            Bag::Pair(v, a, b) => {
                let (here, l, r) = (v.first(), a.first(), b.first());
                here.or(l).or(r)
            }
        }
    }

    fn build(depth: u32, rv: &Arc<Rendezvous>) -> Bag<T>
    where
        T: From<u8>,
    {
        if depth == 0 {
            return Bag::Leaf(rv.clone());
        }
        let v = vec![T::from(depth as u8); depth as usize];
        let sub = || Box::new(Bag::build(depth - 1, rv));
        if depth.is_multiple_of(2) {
            Bag::Node(v, sub(), Arc::new(Bag::build(depth - 1, rv)))
        } else {
            Bag::Pair(v, sub(), sub())
        }
    }
}

#[test]
fn another_types_method_forked_beside_recursive_calls_runs_as_written() {
    let pool = pool(2);
    // A node at depth d (d levels above the leaves) holds d items; 2^(8 - d) nodes at depth d.
    let items: usize = (1..=8).map(|d| d << (8 - d)).sum();
    let rv = Arc::new(Rendezvous::new(2));
    let bag: Bag<u64> = Bag::build(8, &rv);
    assert_eq!(pool.install(|| bag.len()), items);
    assert!(rv.all_arrived(), "the bag's children did not fork");
    assert_eq!(pool.install(|| bag.first()), Some(&8));

    // Depth 7 is a `Pair`, its children depth-6 `Node`s, where a push stops.
    let rv = Arc::new(Rendezvous::new(2));
    let mut bag: Bag<u64> = Bag::build(7, &rv);
    assert_eq!(pool.install(|| bag.push(99)), 1);
    assert_eq!(bag.len(), (1..=7).map(|d| d << (7 - d)).sum::<usize>() + 1);
    let Bag::Pair(v, ..) = &bag else {
        panic!("depth 7 is a pair")
    };
    assert_eq!(v.last(), Some(&99));
    let rv = Arc::new(Rendezvous::new(2));
    let mut bag: Bag<u64> = Bag::build(1, &rv);
    assert_eq!(pool.install(|| bag.push(5)), 1);
    assert!(rv.all_arrived(), "the pushes did not fork");
    assert_eq!(pool.install(|| bag.len()), 2);
}

/// Other types' same-named methods whose receiver or arguments differ from the fn's: `u32`'s
/// `max` by value (a probe's `&u32` would find `Ord::max` for `&u32`), an iterator's `count`
/// that consumes its binding, and a map's `get` given a `&u32` where the fn takes a `usize`.
struct Scores {
    best: u32,
    seen: std::collections::BTreeMap<u32, usize>,
    kids: Vec<Scores>,
}

impl Scores {
    #[blitz::parallel]
    fn max(&self, floor: u32) -> u32 {
        match self.kids.as_slice() {
            [a, b] => {
                let best: u32 = self.best;
                let (x, y, z) = (best.max(floor), a.max(floor), b.max(floor));
                x.max(y).max(z)
            }
            _ => self.best.max(floor),
        }
    }

    #[blitz::parallel]
    fn count(&self) -> usize {
        match self.kids.as_slice() {
            [a, b] => {
                let keys = self.seen.keys();
                keys.count() + a.count() + b.count()
            }
            _ => self.seen.len(),
        }
    }

    #[blitz::parallel]
    fn get(&self, key: usize) -> usize {
        let own = key as u32;
        match self.kids.as_slice() {
            [a, b] => self.seen.get(&own).copied().unwrap_or(0) + a.get(key) + b.get(key + 1),
            _ => self.seen.get(&own).copied().unwrap_or(0),
        }
    }

    /// `&mut self`: `u32`'s `min` on a field beside the recursive calls.
    #[blitz::parallel]
    fn min(&mut self, cap: u32) -> u32 {
        self.best += 1;
        match self.kids.as_mut_slice() {
            [a, b] => {
                let (x, y, z) = (self.best.min(cap), a.min(cap), b.min(cap));
                x.min(y).min(z)
            }
            _ => self.best.min(cap),
        }
    }

    fn build(depth: u32, next: &mut u32) -> Scores {
        *next = next.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        let best = *next % 1000;
        let seen = (0..depth).map(|k| (k, (best + k) as usize)).collect();
        let kids = if depth == 0 {
            Vec::new()
        } else {
            vec![
                Scores::build(depth - 1, next),
                Scores::build(depth - 1, next),
            ]
        };
        Scores { best, seen, kids }
    }

    fn all_best(&self) -> Vec<u32> {
        let mut v = vec![self.best];
        v.extend(self.kids.iter().flat_map(Scores::all_best));
        v
    }

    fn get_serial(&self, key: usize) -> usize {
        let own = self.seen.get(&(key as u32)).copied().unwrap_or(0);
        match self.kids.as_slice() {
            [a, b] => own + a.get_serial(key) + b.get_serial(key + 1),
            _ => own,
        }
    }
}

#[test]
fn another_types_method_keeps_its_own_receiver_and_argument_types() {
    let pool = pool(2);
    let mut scores = Scores::build(9, &mut 7);
    let best = scores.all_best();
    assert_eq!(pool.install(|| scores.max(0)), *best.iter().max().unwrap());
    assert_eq!(pool.install(|| scores.max(5000)), 5000);
    // Node at depth d (d levels above the leaves) has d keys; 2^(9 - d) nodes at depth d,
    // and the leaves count their (empty) maps.
    let keys: usize = (1..=9).map(|d| d << (9 - d)).sum();
    assert_eq!(pool.install(|| scores.count()), keys);
    assert_eq!(pool.install(|| scores.get(2)), scores.get_serial(2));
    let lowest = best.iter().map(|b| b + 1).min().unwrap();
    assert_eq!(pool.install(|| scores.min(u32::MAX)), lowest);
    assert_eq!(scores.best, best[0] + 1, "min bumped every node once");
}

/// Children behind locks: each forked call takes its own child's lock, in its branch, as the
/// calls do in order (taken before the fork, both guards would be held at once: a guard
/// cannot leave its thread, and two locks of one mutex would never return).
struct Locked {
    items: Vec<u32>,
    kids: Vec<Arc<std::sync::Mutex<Locked>>>,
}

impl Locked {
    #[blitz::parallel]
    fn len(&self) -> usize {
        if self.kids.len() != 2 {
            return self.items.len();
        }
        let a = self.kids[0].lock().unwrap().len();
        let b = self.kids[1].lock().unwrap().len();
        a + b + self.items.len()
    }

    /// A `RefCell`'s borrow cannot cross threads: a call through one runs in order.
    #[blitz::parallel]
    fn weight(&self) -> usize {
        let cell = std::cell::RefCell::new(self.items.clone());
        if self.kids.len() != 2 {
            return cell.borrow().len();
        }
        let own = cell.borrow().len();
        let (a, b) = (
            self.kids[0].lock().unwrap().weight(),
            self.kids[1].lock().unwrap().weight(),
        );
        own + a + b
    }

    fn build(depth: u32) -> Locked {
        let kids = if depth == 0 {
            Vec::new()
        } else {
            let shared = Arc::new(std::sync::Mutex::new(Locked::build(depth - 1)));
            if depth.is_multiple_of(3) {
                // One child twice: the branches take the same lock in turn.
                vec![shared.clone(), shared]
            } else {
                let other = Arc::new(std::sync::Mutex::new(Locked::build(depth - 1)));
                vec![shared, other]
            }
        };
        Locked {
            items: vec![0; depth as usize + 1],
            kids,
        }
    }
}

#[test]
fn calls_through_a_lock_take_it_in_their_own_branch() {
    // Items of a node at depth d: d + 1; each node has two children (sometimes one twice).
    fn items(depth: u32) -> usize {
        depth as usize + 1 + if depth == 0 { 0 } else { 2 * items(depth - 1) }
    }
    let pool = pool(2);
    let tree = Locked::build(8);
    assert_eq!(pool.install(|| tree.len()), items(8));
    assert_eq!(pool.install(|| tree.weight()), items(8));
    assert_eq!(tree.len(), items(8), "outside a pool");
}
