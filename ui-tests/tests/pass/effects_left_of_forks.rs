//! What an expression computes left of its first forked call runs before the fork, as it does
//! sequentially: a call inside an index, a field's base, a dereferenced box or the callee, and
//! a `return` or `?` guarding the recursion. A `return` between two forked calls keeps them
//! in order.

use std::sync::atomic::{AtomicU64, Ordering::SeqCst};

static C: AtomicU64 = AtomicU64::new(0);

fn bump() -> u64 {
    C.fetch_add(1, SeqCst)
}

const T: [u64; 3] = [10, 20, 30];

struct P {
    x: u64,
}

fn mk() -> P {
    P { x: 100 + bump() }
}

fn pick() -> fn(u64, u64) -> u64 {
    bump();
    |a, b| a + b
}

#[blitz::parallel]
fn index(n: u64) -> u64 {
    if n == 0 {
        return C.load(SeqCst);
    }
    T[bump() as usize % 3] + index(n - 1) + index(n - 1)
}

fn index_seq(n: u64) -> u64 {
    if n == 0 {
        return C.load(SeqCst);
    }
    T[bump() as usize % 3] + index_seq(n - 1) + index_seq(n - 1)
}

#[blitz::parallel]
fn field(n: u64) -> u64 {
    if n == 0 {
        return C.load(SeqCst);
    }
    mk().x + field(n - 1) + field(n - 1)
}

fn field_seq(n: u64) -> u64 {
    if n == 0 {
        return C.load(SeqCst);
    }
    mk().x + field_seq(n - 1) + field_seq(n - 1)
}

#[blitz::parallel]
fn deref(n: u64) -> u64 {
    if n == 0 {
        return C.load(SeqCst);
    }
    *Box::new(bump()) + deref(n - 1) + deref(n - 1)
}

fn deref_seq(n: u64) -> u64 {
    if n == 0 {
        return C.load(SeqCst);
    }
    *Box::new(bump()) + deref_seq(n - 1) + deref_seq(n - 1)
}

#[blitz::parallel]
fn callee(n: u64) -> u64 {
    if n == 0 {
        return C.load(SeqCst);
    }
    pick()(callee(n - 1), callee(n - 1))
}

fn callee_seq(n: u64) -> u64 {
    if n == 0 {
        return C.load(SeqCst);
    }
    pick()(callee_seq(n - 1), callee_seq(n - 1))
}

/// The base case is the left operand: the calls must not run below it.
#[blitz::parallel]
fn fib(n: u64) -> u64 {
    (if n < 2 { return n } else { 0 }) + fib(n - 1) + fib(n - 2)
}

#[blitz::parallel]
fn fib_option(n: u64) -> Option<u64> {
    let base = if n < 2 { None } else { Some(0) };
    Some(base? + fib_option(n - 1).unwrap_or(n - 1) + fib_option(n - 2).unwrap_or(n - 2))
}

/// A `return` between the calls: the second call may not run.
#[blitz::parallel]
fn guarded(n: u64) -> u64 {
    (if n > 0 { guarded(n - 1) } else { 0 }) + (if n < 2 { return n } else { 0 }) + guarded(n - 2)
}

fn guarded_seq(n: u64) -> u64 {
    (if n > 0 { guarded_seq(n - 1) } else { 0 }) + (if n < 2 { return n } else { 0 }) + guarded_seq(n - 2)
}

/// One level: the left operand's effect, then two leaves that read it. (Deeper, the leaves
/// would also race with the effects of other branches.)
fn check(name: &str, par: fn(u64) -> u64, seq: fn(u64) -> u64) {
    C.store(0, SeqCst);
    let a = par(1);
    C.store(0, SeqCst);
    let b = seq(1);
    assert_eq!(a, b, "{name}");
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install(|| {
        check("index", index, index_seq);
        check("field", field, field_seq);
        check("deref", deref, deref_seq);
        check("callee", callee, callee_seq);
        assert_eq!(fib(20), 6765);
        assert_eq!(fib_option(20), Some(6765));
        assert_eq!(fib_option(1), None);
        assert_eq!(guarded(15), guarded_seq(15));
    });
}
