//! Calls between two recursive calls that may change what the later call reads without saying
//! so: through a shared reference (an atomic, a mutex), or global state (a static). Each fn
//! recurses one level, so its sequential value is exact: the later call must see the change
//! the call between made, as written. And a statement between that changes nothing the later
//! call uses still lets the calls fork.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::SeqCst};

use blitz_ui_tests::{Rendezvous, pools};

fn bump(c: &AtomicU64) -> u64 {
    c.fetch_add(10, SeqCst);
    0
}

#[blitz::parallel]
fn operand_between(d: u32, c: &AtomicU64) -> u64 {
    if d == 0 {
        return c.load(SeqCst);
    }
    operand_between(d - 1, c) * 100 + bump(c) + operand_between(d - 1, c)
}

#[blitz::parallel]
fn tuple_between(d: u32, c: &AtomicU64) -> u64 {
    if d == 0 {
        return c.load(SeqCst);
    }
    let (x, _, y) = (tuple_between(d - 1, c), bump(c), tuple_between(d - 1, c));
    x * 100 + y
}

#[blitz::parallel]
fn statement_between(d: u32, c: &AtomicU64) -> u64 {
    if d == 0 {
        return c.load(SeqCst);
    }
    let x = statement_between(d - 1, c);
    bump(c);
    x * 100 + statement_between(d - 1, c)
}

#[blitz::parallel]
fn let_between(d: u32, c: &AtomicU64) -> u64 {
    if d == 0 {
        return c.load(SeqCst);
    }
    let x = let_between(d - 1, c);
    let _ = bump(c);
    x * 100 + let_between(d - 1, c)
}

#[blitz::parallel]
fn method_between(d: u32, c: &AtomicU64) -> u64 {
    if d == 0 {
        return c.load(SeqCst);
    }
    let x = method_between(d - 1, c);
    let old = c.fetch_add(10, SeqCst);
    x * 100 + method_between(d - 1, c) + (old == 0) as u64
}

fn note(log: &Mutex<Vec<u32>>, x: u32) -> usize {
    log.lock().unwrap().push(x);
    0
}

#[blitz::parallel]
fn logged(d: u32, log: &Mutex<Vec<u32>>) -> usize {
    if d == 0 {
        return log.lock().unwrap().len();
    }
    logged(d - 1, log) * 100 + note(log, d) + logged(d - 1, log)
}

static TICKS: AtomicU64 = AtomicU64::new(0);

fn tick() -> u64 {
    TICKS.fetch_add(1, SeqCst);
    0
}

#[blitz::parallel]
fn ticked(d: u32) -> u64 {
    if d == 0 {
        return TICKS.load(SeqCst);
    }
    ticked(d - 1) * 100 + tick() + ticked(d - 1)
}

#[blitz::parallel]
fn static_method_between(d: u32) -> u64 {
    if d == 0 {
        return TICKS.load(SeqCst);
    }
    let x = static_method_between(d - 1);
    TICKS.fetch_add(1, SeqCst);
    x * 100 + static_method_between(d - 1)
}

pub struct Ctx {
    hits: AtomicU64,
    log: Mutex<Vec<u32>>,
}

#[blitz::parallel]
fn alias_between(d: u32, ctx: &Ctx) -> u64 {
    if d == 0 {
        return ctx.hits.load(SeqCst);
    }
    let x = alias_between(d - 1, ctx);
    let hits = &ctx.hits;
    hits.fetch_add(10, SeqCst);
    x * 100 + alias_between(d - 1, ctx)
}

#[blitz::parallel]
fn alias_before(d: u32, c: &AtomicU64) -> u64 {
    if d == 0 {
        return c.load(SeqCst);
    }
    let same = c;
    let x = alias_before(d - 1, c);
    bump(same);
    x * 100 + alias_before(d - 1, c)
}

#[blitz::parallel]
fn guard_between(d: u32, ctx: &Ctx) -> usize {
    if d == 0 {
        return ctx.log.lock().unwrap().len();
    }
    let x = guard_between(d - 1, ctx);
    let Ctx { log, .. } = ctx;
    log.lock().unwrap().push(d);
    x * 100 + guard_between(d - 1, ctx)
}

/// The same body twice, with and without the attribute: a destructuring assignment between
/// the calls changes what the second is given.
macro_rules! destructured {
    ($($attr:meta)?, $name:ident) => {
        $(#[$attr])?
        fn $name(n: u64) -> u64 {
            if n < 2 {
                return n + 1;
            }
            let mut m = n - 1;
            let a = $name(m);
            (m, _) = (n / 2, 0);
            let b = $name(m);
            let mut pair = [0, 0];
            [pair[1], _] = [n / 3, 0];
            a * 3 + b + $name(pair[1]) + $name(pair[0])
        }
    };
}
destructured!(blitz::parallel, destructured_parallel);
destructured!(, destructured_sequential);

#[test]
fn a_call_between_keeps_its_place_before_the_later_call() {
    type Counted = fn(u32, &AtomicU64) -> u64;
    let counted: [(&str, Counted); 5] = [
        ("operand", operand_between),
        ("tuple element", tuple_between),
        ("statement", statement_between),
        ("`let _ =`", let_between),
        ("method statement", method_between),
    ];
    for pool in pools() {
        for (form, f) in counted {
            let c = AtomicU64::new(1);
            // The first call reads 1; the second reads 1 + 10.
            assert_eq!(pool.install(|| f(1, &c)), 100 + 11, "{form}");
        }
        let log = Mutex::new(Vec::new());
        assert_eq!(pool.install(|| logged(1, &log)), 1, "mutex log");
        TICKS.store(5, SeqCst);
        assert_eq!(pool.install(|| ticked(1)), 506, "static through a fn");
        TICKS.store(5, SeqCst);
        assert_eq!(
            pool.install(|| static_method_between(1)),
            506,
            "static method"
        );
        let ctx = Ctx {
            hits: AtomicU64::new(1),
            log: Mutex::new(Vec::new()),
        };
        assert_eq!(
            pool.install(|| alias_between(1, &ctx)),
            111,
            "`let hits = &ctx.hits`"
        );
        let c = AtomicU64::new(1);
        assert_eq!(
            pool.install(|| alias_before(1, &c)),
            111,
            "`let same = c` first"
        );
        assert_eq!(
            pool.install(|| guard_between(1, &ctx)),
            1,
            "`let Ctx {{ log, .. }}`"
        );
        assert_eq!(
            pool.install(|| destructured_parallel(20)),
            destructured_sequential(20),
            "`(m, _) = ..`, `[pair[1], _] = ..`"
        );
    }
}

// ---------------------------------------------------------------- what still forks

#[blitz::parallel]
fn sum(v: &[u64], rv: &Rendezvous) -> u64 {
    if v.len() <= 4 {
        rv.leaf();
        return v.iter().sum();
    }
    let mid = v.len() / 2;
    let a = sum(&v[..mid], rv);
    let after = mid + 1;
    let b = sum(&v[mid..], rv);
    a + b + (after - mid - 1) as u64
}

#[blitz::parallel]
fn evens(v: &[u64], rv: &Rendezvous) -> Vec<u64> {
    if v.len() <= 4 {
        rv.leaf();
        return v.iter().copied().filter(|x| x % 2 == 0).collect();
    }
    let mid = v.len() / 2;
    let mut out = evens(&v[..mid], rv);
    out.append(&mut evens(&v[mid..], rv));
    out
}

#[test]
fn statements_between_that_change_nothing_the_call_uses_still_fork() {
    let v: Vec<u64> = (0..1000).collect();
    for pool in pools() {
        let rv = Rendezvous::new(pool.current_num_threads());
        assert_eq!(pool.install(|| sum(&v, &rv)), 499_500);
        assert!(
            rv.all_arrived(),
            "`let b = f(r)` after `let after = ..` did not fork"
        );
        let rv = Rendezvous::new(pool.current_num_threads());
        let want: Vec<u64> = (0..1000).filter(|x| x % 2 == 0).collect();
        assert_eq!(pool.install(|| evens(&v, &rv)), want);
        assert!(rv.all_arrived(), "`out.append(&mut f(r))` did not fork");
    }
}
