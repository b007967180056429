//! Forked results that the code around them borrows live as long as the temporaries they
//! replace: through the rest of the statement, or to the end of the block when a `let`
//! extends them.

#[blitz::parallel]
fn build(n: u64) -> Vec<u64> {
    if n < 2 {
        return vec![n];
    }
    // A tuple of references in a `let`: the results live to the end of the block.
    let (a, b) = (&build(n - 1), &build(n - 2));
    let mut v = a.clone();
    v.extend(b.iter());
    v
}

#[blitz::parallel]
fn build_statements(n: u64) -> Vec<u64> {
    if n < 2 {
        return vec![n];
    }
    // Consecutive `let x = &f(..);` statements.
    let a = &build_statements(n - 1);
    let b = &build_statements(n - 2);
    let mut v = a.clone();
    v.extend(b.iter());
    v
}

#[blitz::parallel]
fn build_after_a_statement(n: u64) -> Vec<u64> {
    if n < 2 {
        return vec![n];
    }
    // A statement that forks, then a tuple of references: the tuple's borrows keep the
    // statement out of the run (in a closure they would outlive their temporaries), and it
    // forks on its own.
    let total = build_after_a_statement(n - 1).len() + build_after_a_statement(n - 2).len();
    let refs = (&build_after_a_statement(n - 1), &build_after_a_statement(n - 2));
    let mut v = refs.0.clone();
    v.extend(refs.1.iter());
    assert_eq!(v.len(), total);
    v
}

fn build_seq(n: u64) -> Vec<u64> {
    if n < 2 {
        return vec![n];
    }
    let mut v = build_seq(n - 1);
    v.extend(build_seq(n - 2));
    v
}

#[blitz::parallel]
fn evens(v: &[u64]) -> Vec<u64> {
    if v.len() <= 4 {
        return v.iter().copied().filter(|x| x % 2 == 0).collect();
    }
    let (l, r) = v.split_at(v.len() / 2);
    // Iterators over both results, consumed later in the same expression.
    evens(l).iter().chain(evens(r).iter()).copied().collect()
}

#[blitz::parallel]
fn longest(v: &[&str]) -> String {
    if v.len() == 1 {
        return v[0].to_string();
    }
    let (l, r) = v.split_at(v.len() / 2);
    // A reference to one of the results, cloned at the end of the expression.
    std::cmp::max_by_key(&longest(l), &longest(r), |s| s.len()).clone()
}

#[blitz::parallel]
fn checked_total(v: &[u64]) -> Result<u64, String> {
    if v.len() == 1 {
        return if v[0] == 0 { Err("zero".into()) } else { Ok(v[0]) };
    }
    let (l, r) = v.split_at(v.len() / 2);
    let sums = [checked_total(l)?, checked_total(r)?];
    // A field and an index of values built on the results, then `?`.
    let pair = (checked_total(l), checked_total(r));
    let first = pair.0?;
    Ok(sums.iter().sum::<u64>() + first - first)
}

#[blitz::parallel]
fn append_mut(n: u64) -> Vec<u64> {
    if n < 2 {
        return vec![n];
    }
    // `&mut` of a result, as statements and as a tuple.
    let x = &mut append_mut(n - 1);
    let y = &mut append_mut(n - 2);
    x.append(y);
    let (p, q) = (&mut append_mut(n - 1), &mut append_mut(n - 2));
    p.append(q);
    assert_eq!(*x, *p);
    x.clone()
}

/// A result type with a destructor: its field cannot be moved out, only borrowed.
struct Tree {
    items: Vec<u64>,
}

impl Drop for Tree {
    fn drop(&mut self) {}
}

#[blitz::parallel]
fn tails(n: u64) -> Tree {
    if n < 2 {
        return Tree { items: vec![n, n] };
    }
    // A slice of one result and a field of another.
    let x = &tails(n - 1).items[1..];
    let y = &tails(n - 2).items;
    Tree { items: x.iter().chain(y).copied().collect() }
}

fn tails_seq(n: u64) -> Tree {
    if n < 2 {
        return Tree { items: vec![n, n] };
    }
    let x = &tails_seq(n - 1).items[1..];
    let y = &tails_seq(n - 2).items;
    Tree { items: x.iter().chain(y).copied().collect() }
}

#[blitz::parallel]
fn max_pair(v: &[u64]) -> u64 {
    if v.len() < 2 {
        return v.iter().sum();
    }
    let (l, r) = v.split_at(v.len() / 2);
    // A `match` on references to both results: they live to the end of the `match`.
    match (&max_pair(l), &max_pair(r)) {
        (a, b) if a >= b => *a,
        (_, b) => *b,
    }
}

#[blitz::parallel]
fn first_some(v: &[u64]) -> Option<u64> {
    if v.len() < 2 {
        return v.first().copied().filter(|x| x % 7 == 3);
    }
    let (l, r) = v.split_at(v.len() / 2);
    // `if let` on borrowed results, and an `else if let` that forks again.
    if let (Some(a), _) = (&first_some(l), &first_some(r)) {
        Some(*a)
    } else if let [_, Some(b)] = [&first_some(l), &first_some(r)] {
        Some(*b)
    } else {
        None
    }
}

#[blitz::parallel]
fn longest_of(v: &[&str]) -> String {
    if v.len() < 2 {
        return v.concat();
    }
    // Arguments evaluated before the fork (`v.len()`), and a `match` on borrowed results.
    match (&longest_of(&v[..v.len() / 2]), &longest_of(&v[v.len() / 2..])) {
        (a, b) if a.len() >= b.len() => a.clone(),
        (_, b) => b.clone(),
    }
}

#[blitz::parallel]
fn top(v: &[u64]) -> u64 {
    if v.len() < 2 {
        return v.iter().sum();
    }
    let (l, r) = v.split_at(v.len() / 2);
    // A dereference of what the `match` borrows from the results.
    *match (&top(l), &top(r)) {
        (a, b) => a.max(b),
    }
}

#[blitz::parallel]
fn gap(v: &[u64]) -> u64 {
    if v.len() < 2 {
        return v.iter().sum();
    }
    let (l, r) = v.split_at(v.len() / 2);
    // A let chain whose first `let` borrows both results.
    if let (a, b) = (&gap(l), &gap(r))
        && a > b
    {
        a - b
    } else {
        7
    }
}

fn gap_seq(v: &[u64]) -> u64 {
    if v.len() < 2 {
        return v.iter().sum();
    }
    let (l, r) = v.split_at(v.len() / 2);
    if let (a, b) = (&gap_seq(l), &gap_seq(r))
        && a > b
    {
        a - b
    } else {
        7
    }
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install(|| {
        assert_eq!(build(14), build_seq(14));
        assert_eq!(build_statements(14), build_seq(14));
        assert_eq!(build_after_a_statement(12), build_seq(12));
        assert_eq!(append_mut(14), build_seq(14));
        assert_eq!(tails(14).items, tails_seq(14).items);
        let v: Vec<u64> = (0..5000).collect();
        assert_eq!(evens(&v), v.iter().copied().filter(|x| x % 2 == 0).collect::<Vec<_>>());
        let words = ["fork", "join", "steal", "a", "sleeping", "wake"];
        assert_eq!(longest(&words), "sleeping");
        let w: Vec<u64> = (1..=64).collect();
        assert_eq!(checked_total(&w), Ok(64 * 65 / 2));
        let mut z = w.clone();
        z[40] = 0;
        assert_eq!(checked_total(&z), Err("zero".to_owned()));
        assert_eq!(max_pair(&v), 4999);
        assert_eq!(first_some(&v), Some(3));
        assert_eq!(first_some(&v[4..]), Some(10));
        assert_eq!(first_some(&[1, 2]), None);
        assert_eq!(longest_of(&words), "sleeping");
        assert_eq!(top(&v), 4999);
        let mixed: Vec<u64> = (0..300).map(|x| x * 7 % 13).collect();
        for n in 0..mixed.len() {
            assert_eq!(gap(&mixed[..n]), gap_seq(&mixed[..n]));
        }
    });
}
