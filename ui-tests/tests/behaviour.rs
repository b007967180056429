//! Behavioural tests of the macros on a started pool with two workers.

fn pool() -> blitz::ThreadPool {
    blitz::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap()
}

/// A small deterministic PRNG (xorshift64*), so the tests need no extra dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[blitz::parallel]
fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib(n - 1) + fib(n - 2)
}

fn fib_serial(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib_serial(n - 1) + fib_serial(n - 2)
}

#[test]
fn fib_matches_serial() {
    let pool = pool();
    let mut rng = Rng(0x1234_5678);
    for _ in 0..20 {
        let n = rng.below(22);
        assert_eq!(pool.install(|| fib(n)), fib_serial(n));
    }
    // Also from outside a pool (global pool).
    assert_eq!(fib(20), 6765);
}

#[blitz::parallel]
fn quicksort<T: Ord + Send>(v: &mut [T]) {
    if v.len() <= 1 {
        return;
    }
    let mid = partition(v);
    let (lo, hi) = v.split_at_mut(mid);
    quicksort(lo);
    quicksort(&mut hi[1..]);
}

fn partition<T: Ord>(v: &mut [T]) -> usize {
    let last = v.len() - 1;
    let mut store = 0;
    for i in 0..last {
        if v[i] <= v[last] {
            v.swap(i, store);
            store += 1;
        }
    }
    v.swap(store, last);
    store
}

#[test]
fn quicksort_sorts() {
    let pool = pool();
    let mut rng = Rng(42);
    for len in [0usize, 1, 2, 10, 1000, 5000] {
        let mut v: Vec<u64> = (0..len).map(|_| rng.below(100)).collect();
        let mut want = v.clone();
        want.sort();
        pool.install(|| quicksort(&mut v));
        assert_eq!(v, want);
    }
}

struct Tree {
    value: u64,
    children: Vec<Tree>,
}

fn build(depth: u32, rng: &mut Rng) -> Tree {
    let width = if depth == 0 { 0 } else { 1 + rng.below(3) };
    Tree {
        value: rng.below(1000),
        children: (0..width).map(|_| build(depth - 1, rng)).collect(),
    }
}

struct Node {
    value: u64,
    left: Option<Box<Node>>,
    right: Option<Box<Node>>,
}

impl Node {
    fn full(depth: u32, seed: u64) -> Option<Box<Node>> {
        if depth == 0 {
            return None;
        }
        Some(Box::new(Node {
            value: seed % 97,
            left: Node::full(depth - 1, seed * 3 + 1),
            right: Node::full(depth - 1, seed * 5 + 2),
        }))
    }

    #[blitz::parallel]
    fn total(node: &Option<Box<Node>>) -> u64 {
        match node {
            None => 0,
            Some(n) => n.value + Self::total(&n.left) + Self::total(&n.right),
        }
    }

    #[blitz::parallel(cutoff = depth < 4)]
    fn count(node: &Option<Box<Node>>, depth: u32) -> u64 {
        match node {
            None => 0,
            Some(n) => {
                1 + Self::count(&n.left, depth.saturating_sub(1))
                    + Self::count(&n.right, depth.saturating_sub(1))
            }
        }
    }
}

fn tree_sum_serial(t: &Tree) -> u64 {
    t.value + t.children.iter().map(tree_sum_serial).sum::<u64>()
}

/// Statement-level fork: two independent `let`s that each recurse.
#[blitz::parallel]
fn range_sum(lo: u64, hi: u64) -> u64 {
    if hi - lo <= 8 {
        return (lo..hi).sum();
    }
    let mid = lo + (hi - lo) / 2;
    let a = range_sum(lo, mid);
    let b: u64 = range_sum(mid, hi);
    a + b
}

#[test]
fn statements_fork() {
    let pool = pool();
    assert_eq!(pool.install(|| range_sum(0, 10_000)), 49_995_000);
}

#[test]
fn methods_and_associated_fns() {
    let pool = pool();
    let root = Node::full(12, 1).unwrap();
    let serial = {
        fn s(n: &Option<Box<Node>>) -> u64 {
            n.as_ref().map_or(0, |n| n.value + s(&n.left) + s(&n.right))
        }
        s(&Node::full(12, 1))
    };
    let root = Some(root);
    assert_eq!(pool.install(|| Node::total(&root)), serial);
    assert_eq!(pool.install(|| Node::count(&root, 12)), 4095);
}

#[test]
fn n_ary_tree() {
    #[blitz::parallel]
    fn sum(t: &Tree) -> u64 {
        match t.children.as_slice() {
            [] => t.value,
            [a] => t.value + sum(a),
            [a, b] => t.value + sum(a) + sum(b),
            [a, b, c, ..] => t.value + sum(a) + sum(b) + sum(c),
        }
    }
    let pool = pool();
    let mut rng = Rng(7);
    for _ in 0..5 {
        let t = build(6, &mut rng);
        assert_eq!(pool.install(|| sum(&t)), tree_sum_serial(&t));
    }
}

trait Summer {
    fn total(&self, v: &[i64]) -> i64;
}

struct Halving;

impl Summer for Halving {
    #[blitz::parallel]
    fn total(&self, v: &[i64]) -> i64 {
        if v.len() <= 16 {
            return v.iter().sum();
        }
        let (l, r) = v.split_at(v.len() / 2);
        self.total(l) + self.total(r)
    }
}

#[test]
fn trait_impl_method() {
    let pool = pool();
    let v: Vec<i64> = (-500..1500).collect();
    assert_eq!(pool.install(|| Halving.total(&v)), v.iter().sum::<i64>());
}

/// Generics, a where-clause, lifetimes and an `impl Trait` argument.
#[blitz::parallel]
fn weigh<'a, T>(v: &'a [T], w: &(impl Fn(&T) -> u64 + Sync)) -> u64
where
    T: Sync + 'a,
{
    if v.len() <= 4 {
        return v.iter().map(w).sum();
    }
    let (l, r) = v.split_at(v.len() / 2);
    weigh(l, w) + weigh(r, w)
}

/// Returns a borrow from its input, through elided lifetimes.
#[blitz::parallel]
fn max_ref(v: &[u32]) -> &u32 {
    if v.len() == 1 {
        return &v[0];
    }
    let (l, r) = v.split_at(v.len() / 2);
    let (a, b) = (max_ref(l), max_ref(r));
    if a >= b { a } else { b }
}

#[test]
fn generics_lifetimes_impl_trait() {
    let pool = pool();
    let v: Vec<u32> = (0..1000).map(|i| (i * 7919) % 1009).collect();
    assert_eq!(
        pool.install(|| weigh(&v, &|x: &u32| u64::from(*x) * 2)),
        v.iter().map(|&x| u64::from(x) * 2).sum::<u64>()
    );
    assert_eq!(pool.install(|| *max_ref(&v)), *v.iter().max().unwrap());
}

/// A by-value argument that promises `Sync` and `Copy` but not `Send`: the forks share it by
/// reference, and so must the entry that hands the call to a worker.
#[blitz::parallel]
fn apply_tree(n: u64, f: impl Fn(u64) -> u64 + Sync + Copy) -> u64 {
    if n < 3 {
        return f(n);
    }
    apply_tree(n - 1, f) + apply_tree(n - 2, f)
}

fn apply_tree_serial(n: u64, f: &dyn Fn(u64) -> u64) -> u64 {
    if n < 3 {
        f(n)
    } else {
        apply_tree_serial(n - 1, f) + apply_tree_serial(n - 2, f)
    }
}

#[test]
fn sync_only_copy_arguments() {
    let pool = pool();
    let expected = apply_tree_serial(22, &|x| x * 3 + 1);
    assert_eq!(pool.install(|| apply_tree(22, |x| x * 3 + 1)), expected);
    // From outside any pool: the entry crosses to a global worker.
    assert_eq!(apply_tree(22, |x| x * 3 + 1), expected);
}

#[derive(Debug, PartialEq)]
struct Negative(i64);

#[blitz::parallel]
fn checked_sum(v: &[i64]) -> Result<i64, Negative> {
    if v.len() <= 2 {
        for &x in v {
            if x < 0 {
                return Err(Negative(x));
            }
        }
        return Ok(v.iter().sum());
    }
    let (l, r) = v.split_at(v.len() / 2);
    Ok(checked_sum(l)? + checked_sum(r)?)
}

#[test]
fn result_and_question_mark() {
    let pool = pool();
    let v: Vec<i64> = (0..100).collect();
    assert_eq!(pool.install(|| checked_sum(&v)), Ok(4950));
    let mut w = v.clone();
    w[70] = -3;
    assert_eq!(pool.install(|| checked_sum(&w)), Err(Negative(-3)));
}

#[derive(Debug, PartialEq)]
enum Built {
    Leaf(i64),
    Node(Box<Built>, Box<Built>),
}

fn checked(x: i64) -> Result<Built, Negative> {
    if x < 0 {
        Err(Negative(x))
    } else {
        Ok(Built::Leaf(x))
    }
}

/// A fallible build whose recursive calls sit inside `Box::new(..?)`: the calls fork, and the
/// `?` and the `Box::new` run after the join, in source order.
#[blitz::parallel]
fn boxed_tree(v: &[i64]) -> Result<Built, Negative> {
    if v.len() == 1 {
        return checked(v[0]);
    }
    let (l, r) = v.split_at(v.len() / 2);
    Ok(Built::Node(
        Box::new(boxed_tree(l)?),
        Box::new(boxed_tree(r)?),
    ))
}

/// The same in statements.
#[blitz::parallel]
fn boxed_tree_statements(v: &[i64]) -> Result<Built, Negative> {
    if v.len() == 1 {
        return checked(v[0]);
    }
    let (l, r) = v.split_at(v.len() / 2);
    let left: Box<Built> = Box::new(boxed_tree_statements(l)?);
    let right = Box::new(boxed_tree_statements(r)?);
    Ok(Built::Node(left, right))
}

fn boxed_tree_serial(v: &[i64]) -> Result<Built, Negative> {
    if v.len() == 1 {
        return checked(v[0]);
    }
    let (l, r) = v.split_at(v.len() / 2);
    let left = Box::new(boxed_tree_serial(l)?);
    Ok(Built::Node(left, Box::new(boxed_tree_serial(r)?)))
}

#[test]
fn question_mark_inside_a_wrapping_call() {
    let pool = pool();
    let mut v: Vec<i64> = (0..200).collect();
    let want = boxed_tree_serial(&v);
    assert!(want.is_ok());
    assert_eq!(pool.install(|| boxed_tree(&v)), want);
    assert_eq!(pool.install(|| boxed_tree_statements(&v)), want);
    // The first error in source order wins, as in the serial fn.
    v[130] = -7;
    v[40] = -3;
    assert_eq!(pool.install(|| boxed_tree(&v)), Err(Negative(-3)));
    assert_eq!(
        pool.install(|| boxed_tree_statements(&v)),
        Err(Negative(-3))
    );
    assert_eq!(boxed_tree_serial(&v), Err(Negative(-3)));
}

#[blitz::parallel]
fn fib_fj(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    blitz::fork_join!(a = fib_fj(n - 1), b = fib_fj(n - 2));
    a + b
}

#[test]
fn fork_join_inside_parallel() {
    let pool = pool();
    assert_eq!(pool.install(|| fib_fj(20)), 6765);
}

#[test]
fn fork_join_forms() {
    let pool = pool();
    pool.install(|| {
        blitz::fork_join!(a = 1 + 1, (b, c) = (2, 3), d: u64 = 4);
        assert_eq!((a, b, c, d), (2, 2, 3, 4));
        let (x, y, z) = blitz::fork_join![fib(10), fib(11), fib(12)];
        assert_eq!((x, y, z), (55, 89, 144));
        let t = blitz::fork_join! {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
        assert_eq!(t, (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12));
    });
    // Outside a pool too.
    let (p, q) = blitz::fork_join!(fib(5), fib(6));
    assert_eq!((p, q), (5, 8));
}

fn parse_both(a: &str, b: &str) -> Result<(i32, i32), std::num::ParseIntError> {
    blitz::fork_join!(x = a.parse::<i32>()?, y = b.parse::<i32>()?);
    Ok((x, y))
}

#[test]
fn fork_join_question_mark() {
    let pool = pool();
    assert_eq!(pool.install(|| parse_both("3", "4")), Ok((3, 4)));
    assert!(pool.install(|| parse_both("3", "x")).is_err());
}

#[test]
fn par_for_reductions() {
    let pool = pool();
    pool.install(|| {
        let n = 10_000u64;
        let mut sum = 0u64;
        let mut hi = 0u64;
        let mut lo = u64::MAX;
        let mut and = !0u64;
        let mut or = 0u64;
        let mut xor = 0u64;
        blitz::par_for!(i in 0..n, reduce(+: sum), reduce(max: hi), reduce(min: lo),
            reduce(&: and), reduce(|: or), reduce(^: xor) => {
            sum += i;
            hi = hi.max(i * 3 % 1001);
            lo = lo.min(i + 5);
            and &= i | 1;
            or |= i;
            xor ^= i;
        });
        assert_eq!(sum, n * (n - 1) / 2);
        assert_eq!(hi, (0..n).map(|i| i * 3 % 1001).max().unwrap());
        assert_eq!(lo, 5);
        assert_eq!(and, (0..n).fold(!0, |a, i| a & (i | 1)));
        assert_eq!(or, (0..n).fold(0, |a, i| a | i));
        assert_eq!(xor, (0..n).fold(0, |a, i| a ^ i));

        let mut prod = 1u128;
        blitz::par_for!(i in 1..30u128, reduce(*: prod) => prod *= i);
        assert_eq!(prod, (1..30u128).product());

        let mut fsum = 1.5f64;
        let mut fmax = f64::NEG_INFINITY;
        blitz::par_for!(i in 0..1000, grain = 10, reduce(+: fsum), reduce(max: fmax) => {
            fsum += 0.5;
            fmax = fmax.max(f64::from(i));
        });
        assert_eq!(fsum, 501.5);
        assert_eq!(fmax, 999.0);

        let mut all = true;
        let mut any = false;
        blitz::par_for!(i in 0..100, reduce(&: all), reduce(|: any) => {
            all &= i < 100;
            any |= i == 50;
        });
        assert!(all && any);
    });
}

/// `&&` and `||` on `bool`, on items slow enough that the loop is split: each piece starts
/// from the identity, and the value before the loop counts once.
#[test]
fn par_for_logical_reductions() {
    let pool = pool();
    pool.install(|| {
        for (limit, before) in [(64, true), (40, true), (64, false)] {
            let mut all = before;
            let mut any = !before;
            let mut found = !before;
            blitz::par_for!(i in 0..64u64, reduce(&&: all), reduce(||: any),
                reduce(||: found) => {
                all = all && slow(i) < limit;
                any = any || i == 63;
                found = found || i == 1000;
            });
            assert_eq!(all, before && limit == 64, "limit {limit}, before {before}");
            assert!(any);
            assert_eq!(found, !before);
        }
    });
}

/// Or-patterns bind as in a `for` loop and a `let`: at the top level of a `par_for!`
/// pattern, in parentheses in a `fork_join!` binding; what may or may not match (`Ok(x)`
/// of a `Result<_, Infallible>`) is for rustc to judge.
#[test]
fn or_patterns_and_infallible_bindings() {
    let pool = pool();
    pool.install(|| {
        let rs: Vec<Result<u64, u64>> = (0..1000)
            .map(|i| if i % 3 == 0 { Err(i) } else { Ok(i) })
            .collect();
        let mut sum = 0u64;
        blitz::par_for!(Ok(v) | Err(v) in &rs, reduce(+: sum) => sum += *v);
        assert_eq!(sum, 999 * 1000 / 2);

        let r: Result<u32, u32> = Err(4);
        blitz::fork_join!((Ok(y) | Err(y)) = r, z = fib(10));
        assert_eq!((y, z), (4, 55));

        blitz::fork_join!(
            Ok(x) = Ok::<u64, std::convert::Infallible>(fib(11)),
            w = fib(12)
        );
        assert_eq!((x, w), (89, 144));
    });
}

/// Items slow enough that the loop is split and its pieces combined.
fn slow(i: u64) -> u64 {
    std::thread::sleep(std::time::Duration::from_micros(50));
    i
}

#[test]
fn par_for_wrapping_reductions_match_the_sequential_loop() {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let pool = pool();
    pool.install(|| {
        // Each piece's partial sum wraps, and so would their sum with `+`.
        let mut h = 7u64;
        blitz::par_for!(i in 0..200u64, reduce(wrapping_add: h) => {
            h = h.wrapping_add(slow(i).wrapping_mul(K));
        });
        let expected = (0..200u64).fold(7u64, |h, i| h.wrapping_add(i.wrapping_mul(K)));
        assert_eq!(h, expected);

        let mut p = 3u32;
        let v: Vec<u32> = (1..=200).collect();
        blitz::par_for!(x in v.iter().map(|&x| slow(u64::from(x)) as u32), reduce(wrapping_mul: p) => {
            p = p.wrapping_mul(x | 1);
        });
        assert_eq!(p, v.iter().fold(3u32, |p, &x| p.wrapping_mul(x | 1)));
    });
}

/// A body that wraps, reduced with `+`: its pieces' partial results overflow when combined,
/// which a debug build reports with the way out.
#[cfg(debug_assertions)]
#[test]
fn par_for_add_reduction_overflow_names_wrapping_add() {
    let pool = pool();
    let payload = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.install(|| {
            let mut h = 0u64;
            // Each item subtracts 1 (wrapping): every piece's result is near `u64::MAX`.
            blitz::par_for!(i in 0..64u64, reduce(+: h) => h = h.wrapping_add(slow(i) | u64::MAX));
            h
        })
    }))
    .unwrap_err();
    let message = payload
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(
        message.contains("reduce(+: ..)") && message.contains("reduce(wrapping_add: ..)"),
        "unexpected panic message: {message:?}"
    );
    // The pool is still usable.
    assert_eq!(pool.install(|| blitz::join(|| 1, || 2)), (1, 2));
}

#[test]
fn par_for_slices_and_continue() {
    let pool = pool();
    pool.install(|| {
        let mut v: Vec<u64> = (0..5000).collect();
        blitz::par_for!(x in &mut v => *x *= 2);
        assert!(v.iter().enumerate().all(|(i, &x)| x == 2 * i as u64));
        let mut odd = 0u64;
        blitz::par_for!(x in &v, reduce(+: odd) => {
            if x % 4 == 0 {
                continue;
            }
            odd += 1;
        });
        assert_eq!(odd, 2500);
        let s: &mut [u64] = &mut v;
        blitz::par_for!(x in s, grain = 100 => *x = 1);
        assert!(v.iter().all(|&x| x == 1));
    });
}

#[blitz::parallel]
fn explode(n: u64, bad: u64) -> u64 {
    if n == bad {
        panic!("branch {n} failed");
    }
    if n < 2 {
        return n;
    }
    explode(n - 1, bad) + explode(n - 2, bad)
}

#[test]
fn panics_propagate_and_the_pool_stays_usable() {
    let pool = pool();
    for bad in [0u64, 1, 5, 9] {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.install(|| explode(12, bad))
        }));
        let msg = r.expect_err("a branch panicked");
        let msg = msg.downcast_ref::<String>().cloned().unwrap_or_default();
        assert_eq!(msg, format!("branch {bad} failed"));
    }
    assert_eq!(pool.install(|| fib(15)), 610);
}

#[test]
fn first_panic_in_source_order_wins() {
    let pool = pool();
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.install(|| {
            let (a, b, c): (u8, u8, u8) = blitz::fork_join!(
                {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                    panic!("first")
                },
                panic!("second"),
                panic!("third")
            );
            (a, b, c)
        })
    }));
    let msg = r.expect_err("all arms panicked");
    assert_eq!(msg.downcast_ref::<&str>(), Some(&"first"));
}

#[blitz::parallel]
fn loop_with_fork_join(n: u64) -> u64 {
    let mut total = 0;
    for i in 0..n {
        let (a, b) = blitz::fork_join!(fib_serial(i), fib_serial(i + 1));
        total += a + b;
    }
    if n < 2 {
        return total;
    }
    total + loop_with_fork_join(n / 2) + loop_with_fork_join(n / 3)
}

fn loop_with_fork_join_serial(n: u64) -> u64 {
    let total: u64 = (0..n).map(|i| fib_serial(i) + fib_serial(i + 1)).sum();
    if n < 2 {
        return total;
    }
    total + loop_with_fork_join_serial(n / 2) + loop_with_fork_join_serial(n / 3)
}

#[test]
fn fork_join_inside_a_loop_of_a_parallel_fn() {
    let pool = pool();
    assert_eq!(
        pool.install(|| loop_with_fork_join(20)),
        loop_with_fork_join_serial(20)
    );
}

struct Sorted(Vec<u32>);

impl Sorted {
    /// A method returning a borrow of `self` through an elided lifetime.
    #[blitz::parallel]
    fn largest(&self, lo: usize, hi: usize) -> &u32 {
        if hi - lo == 1 {
            return &self.0[lo];
        }
        let mid = (lo + hi) / 2;
        let (a, b) = (self.largest(lo, mid), self.largest(mid, hi));
        if a >= b { a } else { b }
    }
}

#[test]
fn method_returning_a_borrow() {
    let pool = pool();
    let s = Sorted((0..500).map(|i| (i * 31) % 499).collect());
    assert_eq!(pool.install(|| *s.largest(0, 500)), 498);
}

/// The two recursive calls are the last statement and the tail expression.
#[blitz::parallel]
fn sort_tail(v: &mut [i32]) {
    if v.len() <= 1 {
        return;
    }
    let p = partition(v);
    let (lo, hi) = v.split_at_mut(p);
    sort_tail(lo);
    sort_tail(&mut hi[1..])
}

#[test]
fn tail_expression_forks_with_the_statement_before_it() {
    let pool = pool();
    let mut rng = Rng(99);
    let mut v: Vec<i32> = (0..3000).map(|_| rng.below(500) as i32 - 250).collect();
    let mut want = v.clone();
    want.sort();
    pool.install(|| sort_tail(&mut v));
    assert_eq!(v, want);
}

/// Statement forks with type annotations, one of them inferred only from the annotation
/// (`collect`): both the joined and the plain form of the fork must keep them.
#[blitz::parallel]
fn evens(v: &[u32]) -> Vec<u32> {
    if v.len() <= 4 {
        return v.iter().copied().filter(|x| x % 2 == 0).collect();
    }
    let (l, r) = v.split_at(v.len() / 2);
    let mut a: Vec<u32> = evens(l);
    let b: Vec<_> = evens(r).into_iter().collect();
    a.extend(b);
    a
}

#[test]
fn typed_statement_forks() {
    let pool = pool();
    let mut rng = Rng(7);
    // Deep enough that most forks run in the plain clone (beyond the window of records).
    let v: Vec<u32> = (0..50_000).map(|_| rng.below(1000) as u32).collect();
    let want: Vec<u32> = v.iter().copied().filter(|x| x % 2 == 0).collect();
    for _ in 0..3 {
        assert_eq!(pool.install(|| evens(&v)), want);
    }
}

use blitz_ui_tests::Rendezvous;

#[blitz::parallel]
fn spread_leaves(lo: u64, hi: u64, r: &Rendezvous) -> u64 {
    if hi - lo == 1 {
        r.leaf();
        return 1;
    }
    let mid = lo + (hi - lo) / 3;
    let mid = mid.clamp(lo + 1, hi - 1);
    spread_leaves(lo, mid, r) + spread_leaves(mid, hi, r)
}

/// `#[parallel]` recursion reaches every worker of a wide pool at once: each leaf waits until
/// all 8 workers run one (on a 2-core machine too), which a scheduler that offers one frame
/// at a time cannot do.
#[test]
fn parallel_recursion_spreads_to_every_worker() {
    let pool = blitz::ThreadPoolBuilder::new()
        .num_threads(8)
        .build()
        .unwrap();
    for leaves in [64, 300] {
        let r = Rendezvous::new(8);
        assert_eq!(pool.install(|| spread_leaves(0, leaves, &r)), leaves);
        assert_eq!(
            r.arrived(),
            8,
            "{leaves} leaves: not every worker got a leaf while the others ran theirs"
        );
    }
}

/// A chain: each level's first call holds all the rest, its second call one leaf.
#[blitz::parallel]
fn spine_leaves(lo: u64, hi: u64, r: &Rendezvous) -> u64 {
    if hi - lo == 1 {
        r.leaf();
        return 1;
    }
    spine_leaves(lo, hi - 1, r) + spine_leaves(hi - 1, hi, r)
}

/// The levels of an unbalanced recursion deeper than the window of records are still on
/// offer: the worker at the bottom of the spine holds every level's second call, and the
/// other 7 workers must each get one while it waits.
#[test]
fn an_unbalanced_spine_spreads_to_every_worker() {
    let pool = blitz::ThreadPoolBuilder::new()
        .num_threads(8)
        .build()
        .unwrap();
    let r = Rendezvous::new(8);
    let leaves = pool.install(|| {
        // Spend the eager publications a new call tree starts with (one per idle worker),
        // which would otherwise offer the spine's first levels without a record each.
        for _ in 0..8 {
            blitz::join(|| (), || ());
        }
        spine_leaves(0, 40, &r)
    });
    assert_eq!(leaves, 40);
    assert_eq!(
        r.arrived(),
        8,
        "not every worker got a level of the spine while the others waited"
    );
}

/// `impl Trait` arguments with a turbofish on the recursive calls.
#[blitz::parallel]
fn count_matching<T: Send + Sync>(v: &[T], keep: &(impl Fn(&T) -> bool + Sync)) -> usize {
    if v.len() <= 4 {
        return v.iter().filter(|x| keep(x)).count();
    }
    let (l, r) = v.split_at(v.len() / 2);
    count_matching::<T>(l, keep) + count_matching::<T>(r, keep)
}

#[test]
fn impl_trait_arguments_and_a_turbofish() {
    let v: Vec<u32> = (0..1000).collect();
    let pool = pool();
    let evens = pool.install(|| count_matching(&v, &|x: &u32| x.is_multiple_of(2)));
    assert_eq!(evens, 500);
}

#[test]
fn a_reduce_target_may_bound_its_own_loop() {
    let pool = pool();
    let mut total = 100u64;
    // The source reads `total` before the loop reduces into it.
    pool.install(|| blitz::par_for!(x in 0..total, grain = (total / 10) as usize, reduce(+: total) => total += x));
    assert_eq!(total, 100 + 99 * 100 / 2);
}
