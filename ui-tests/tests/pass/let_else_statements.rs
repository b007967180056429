//! `let PAT = f(a) else { .. };` statements fork like `let` statements: the calls run in
//! parallel and each pattern is tried after the join, in statement order (as a `?` applies).

#[blitz::parallel]
fn sum(v: &[Option<u64>]) -> Option<u64> {
    if v.len() == 1 {
        return v[0];
    }
    let (l, r) = v.split_at(v.len() / 2);
    let Some(a) = sum(l) else { return None };
    let Some(b) = sum(r) else { return None };
    Some(a + b)
}

#[blitz::parallel]
fn mixed(n: u64, bad: u64) -> Result<u64, String> {
    if n < 2 {
        return Ok(n);
    }
    if n == bad {
        return Err(format!("{n}"));
    }
    let a = mixed(n - 1, bad)?;
    let Ok(b) = mixed(n - 2, bad) else {
        return Err(format!("below {n}"));
    };
    Ok(a + b)
}

#[blitz::parallel]
fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let Some(a) = Some(fib(n - 1)) else {
        unreachable!()
    };
    let b = fib(n - 2);
    a + b
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install(|| {
        let v: Vec<Option<u64>> = (1..=1000).map(Some).collect();
        assert_eq!(sum(&v), Some(500_500));
        let mut holes = v.clone();
        holes[700] = None;
        assert_eq!(sum(&holes), None);
        assert_eq!(mixed(20, 0), Ok(6765));
        // Sequentially: 19 recurses first (the `?` statement), down to 5, which fails; that
        // error reaches 20 through `?`s.
        assert_eq!(mixed(20, 5), Err("5".to_string()));
        assert_eq!(fib(20), 6765);
    });
}
