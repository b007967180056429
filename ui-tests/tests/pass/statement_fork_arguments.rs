//! Statements that fork evaluate their calls' call-making arguments before the fork, as an
//! operand fork does: one call may take a clone of what the next takes by value, and the
//! branches hold owned values (a `Send` type that is not `Sync` is enough).

use std::cell::Cell;

#[blitz::parallel]
fn count(s: String, n: u32) -> usize {
    if n == 0 {
        return s.len();
    }
    let a = count(s.clone(), n - 1);
    let b = count(s, n - 1);
    a + b
}

/// `Send + Clone`, not `Sync`: a branch may own a clone, never share the original.
#[derive(Clone)]
struct Token(Cell<u32>);

#[blitz::parallel]
fn walk(t: Token, n: u32) -> u32 {
    if n == 0 {
        return t.0.get();
    }
    let a = walk(t.clone(), n - 1);
    let b = walk(t.clone(), n - 1);
    a + b
}

#[blitz::parallel]
fn checked(s: String, n: u32) -> Result<usize, String> {
    if n == 0 {
        return if s.is_empty() { Err(s) } else { Ok(s.len()) };
    }
    let a = checked(s.clone(), n - 1)?;
    let b: usize = checked(s, n - 1)?;
    Ok(a + b)
}

#[blitz::parallel]
fn assigned(s: String, n: u32) -> usize {
    if n == 0 {
        return s.len();
    }
    let mut total = 0;
    total += assigned(format!("{s}x"), n - 1);
    total += assigned(s, n - 1);
    total
}

fn assigned_serial(s: String, n: u32) -> usize {
    if n == 0 {
        return s.len();
    }
    assigned_serial(format!("{s}x"), n - 1) + assigned_serial(s, n - 1)
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install(|| {
        assert_eq!(count("ab".into(), 10), 2 * 1024);
        assert_eq!(walk(Token(Cell::new(3)), 10), 3 * 1024);
        assert_eq!(checked("ab".into(), 6), Ok(2 * 64));
        assert_eq!(checked(String::new(), 6), Err(String::new()));
        assert_eq!(assigned("a".into(), 12), assigned_serial("a".into(), 12));
    });
}
