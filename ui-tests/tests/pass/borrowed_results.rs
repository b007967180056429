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

fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install(|| {
        assert_eq!(build(14), build_seq(14));
        assert_eq!(build_statements(14), build_seq(14));
        let v: Vec<u64> = (0..5000).collect();
        assert_eq!(evens(&v), v.iter().copied().filter(|x| x % 2 == 0).collect::<Vec<_>>());
        let words = ["fork", "join", "steal", "a", "sleeping", "wake"];
        assert_eq!(longest(&words), "sleeping");
        let w: Vec<u64> = (1..=64).collect();
        assert_eq!(checked_total(&w), Ok(64 * 65 / 2));
        let mut z = w.clone();
        z[40] = 0;
        assert_eq!(checked_total(&z), Err("zero".to_owned()));
    });
}
