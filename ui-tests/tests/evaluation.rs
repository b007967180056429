//! `#[parallel]` keeps what the sequential fn means: effects outside the forked calls happen
//! in source order, values move where the sequential code moves them, and statements the
//! macro cannot run side by side run one after the other. Each test runs on a two-worker pool
//! and on one worker, and compares with the fn written without the attribute.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::SeqCst};

use blitz_ui_tests::pools;

// ---------------------------------------------------------------- operands left of a fork

#[blitz::parallel]
fn stamp(depth: u32, clock: &AtomicU64) -> u64 {
    if depth == 0 {
        return clock.fetch_add(1, SeqCst);
    }
    clock.fetch_add(1000, SeqCst) + stamp(depth - 1, clock) + stamp(depth - 1, clock)
}

#[test]
fn an_operand_left_of_the_forked_calls_runs_before_them() {
    for pool in pools() {
        let clock = AtomicU64::new(0);
        // Sequentially: the 1000 is added first, so both leaves read 1000 and 1001 in some
        // order: 0 + 1000 + 1001.
        assert_eq!(pool.install(|| stamp(1, &clock)), 2001);
        assert_eq!(clock.load(SeqCst), 1002);
    }
}

fn log_push(log: &Mutex<Vec<String>>, line: String) -> usize {
    let mut log = log.lock().unwrap();
    log.push(line);
    log.len()
}

fn sum3(a: usize, b: usize, c: usize) -> usize {
    a + b + c
}

#[blitz::parallel]
fn walk(depth: u32, log: &Mutex<Vec<String>>) -> usize {
    if depth == 0 {
        log_push(log, "leaf".to_string());
        return 1;
    }
    sum3(
        log_push(log, format!("enter {depth}")),
        walk(depth - 1, log),
        walk(depth - 1, log),
    )
}

#[test]
fn an_argument_left_of_the_forked_calls_runs_before_them() {
    for pool in pools() {
        let log = Mutex::new(Vec::new());
        pool.install(|| walk(1, &log));
        assert_eq!(*log.lock().unwrap(), ["enter 1", "leaf", "leaf"]);
    }
}

// ---------------------------------------------------------------- arguments of forked calls

#[blitz::parallel]
fn paths(prefix: String, depth: u32) -> usize {
    if depth == 0 {
        return prefix.len();
    }
    // The first call gets a clone, the second the original: sequentially fine, and the fork
    // must not make the first branch borrow what the second one moves.
    paths(prefix.clone() + "l", depth - 1) + paths(prefix + "r", depth - 1)
}

#[test]
fn one_call_may_take_a_clone_of_what_the_next_one_moves() {
    for pool in pools() {
        // 2^4 leaves, each prefix "p" plus 4 letters.
        assert_eq!(pool.install(|| paths("p".to_string(), 4)), 16 * 5);
    }
}

#[blitz::parallel]
fn numbered(depth: u32, next: &AtomicU64, out: &Mutex<Vec<(u32, u64)>>) {
    if depth == 0 {
        return;
    }
    // The arguments are evaluated in source order, before either call runs.
    let ((), ()) = (
        numbered(depth - 1, next_id(next), out),
        numbered(depth - 1, next_id(next), out),
    );
    out.lock().unwrap().push((depth, next.load(SeqCst)));
}

fn next_id(next: &AtomicU64) -> &AtomicU64 {
    next.fetch_add(1, SeqCst);
    next
}

#[test]
fn arguments_that_call_something_run_once_each() {
    for pool in pools() {
        let next = AtomicU64::new(0);
        let out = Mutex::new(Vec::new());
        pool.install(|| numbered(3, &next, &out));
        // 2 + 4 + 8 argument evaluations, one per call below the root.
        assert_eq!(next.load(SeqCst), 14);
        assert_eq!(out.lock().unwrap().len(), 7);
    }
}

// ---------------------------------------------------------------- statements

struct Node {
    value: u64,
    left: Option<Box<Node>>,
    right: Option<Box<Node>>,
}

fn full_tree(depth: u32, next: &mut u64) -> Option<Box<Node>> {
    if depth == 0 {
        return None;
    }
    *next += 1;
    let value = *next;
    Some(Box::new(Node {
        value,
        left: full_tree(depth - 1, next),
        right: full_tree(depth - 1, next),
    }))
}

impl Node {
    /// One local accumulated by consecutive statements that each recurse: they cannot run as
    /// two branches that both hold `total`, so they run in order.
    #[blitz::parallel]
    fn sum_into_local(&self) -> u64 {
        let mut total = self.value;
        if let Some(l) = &self.left {
            total += l.sum_into_local();
        }
        if let Some(r) = &self.right {
            total += r.sum_into_local();
        }
        total
    }

    /// Compound assignments of a binding fork their values and add them after the join.
    #[blitz::parallel]
    fn sum_by_assignments(&self) -> u64 {
        let (Some(l), Some(r)) = (&self.left, &self.right) else {
            return self.value;
        };
        let mut total = self.value;
        total += l.sum_by_assignments();
        total += r.sum_by_assignments();
        total
    }

    /// A method on one collection in consecutive statements.
    #[blitz::parallel]
    fn values_in_order(&self) -> Vec<u64> {
        let mut out = vec![self.value];
        if let Some(l) = &self.left {
            out.extend(l.values_in_order());
        }
        if let Some(r) = &self.right {
            out.extend(r.values_in_order());
        }
        out
    }
}

fn values_in_order_serial(node: &Node, out: &mut Vec<u64>) {
    out.push(node.value);
    for child in [&node.left, &node.right].into_iter().flatten() {
        values_in_order_serial(child, out);
    }
}

#[test]
fn statements_that_change_one_local_keep_their_meaning() {
    let root = full_tree(10, &mut 0).unwrap();
    let n = (1u64 << 10) - 1;
    let mut serial = Vec::new();
    values_in_order_serial(&root, &mut serial);
    for pool in pools() {
        assert_eq!(pool.install(|| root.sum_into_local()), n * (n + 1) / 2);
        assert_eq!(pool.install(|| root.sum_by_assignments()), n * (n + 1) / 2);
        assert_eq!(pool.install(|| root.values_in_order()), serial);
    }
}

/// Bindings declared first and assigned by the statements that recurse.
#[blitz::parallel]
fn fib_deferred(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b);
    a = fib_deferred(n - 1);
    b = fib_deferred(n - 2);
    a + b
}

#[test]
fn assignments_to_bindings_fork_and_assign_after_the_join() {
    for pool in pools() {
        assert_eq!(pool.install(|| fib_deferred(20)), 6765);
    }
}

static DISABLED_RAN: AtomicU64 = AtomicU64::new(0);

fn disabled_note() -> u64 {
    DISABLED_RAN.fetch_add(1, SeqCst);
    0
}

/// Attributes stay on their statements: a `#[cfg]`-disabled statement does not run.
#[blitz::parallel]
fn with_cfg(depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let a = with_cfg(depth - 1);
    let c = with_cfg(depth - 1);
    #[cfg(not(test))]
    let b = disabled_note() + with_cfg(depth - 1);
    #[cfg(test)]
    let b = 1;
    a + b + c
}

#[test]
fn attributes_on_statements_are_kept() {
    for pool in pools() {
        // f(d) = 2 f(d - 1) + 1, f(0) = 1.
        assert_eq!(pool.install(|| with_cfg(6)), 127);
    }
    // Referenced so that the disabled statement's callee exists.
    assert_eq!(DISABLED_RAN.load(SeqCst), 0);
    let _ = disabled_note as fn() -> u64;
}

// ---------------------------------------------------------------- effects through calls

fn bump(counter: &AtomicU64) {
    counter.fetch_add(1, SeqCst);
}

/// The second statement changes `counter` through a fn before it recurses; sequentially the
/// first statement's calls never see that change.
#[blitz::parallel]
fn reads_before_bump(depth: u32, counter: &AtomicU64) -> u64 {
    if depth == 0 {
        // Long enough that a forked second statement would bump first.
        std::thread::sleep(std::time::Duration::from_micros(50));
        return counter.load(SeqCst);
    }
    let a = reads_before_bump(depth - 1, counter);
    let b = {
        bump(counter);
        reads_before_bump(depth - 1, counter)
    };
    a + b
}

fn reads_before_bump_serial(depth: u32, counter: &AtomicU64) -> u64 {
    if depth == 0 {
        return counter.load(SeqCst);
    }
    let a = reads_before_bump_serial(depth - 1, counter);
    bump(counter);
    a + reads_before_bump_serial(depth - 1, counter)
}

macro_rules! increment {
    ($x:ident) => {
        $x += 1
    };
}

/// The second statement assigns `k` in a macro before it recurses.
#[blitz::parallel]
fn reads_before_macro(n: u64) -> u64 {
    if n < 3 {
        return n;
    }
    let mut k = n;
    let a = reads_before_macro(k - 1);
    let b = {
        increment!(k);
        reads_before_macro(k - 3)
    };
    a + b
}

fn reads_before_macro_serial(n: u64) -> u64 {
    if n < 3 {
        return n;
    }
    reads_before_macro_serial(n - 1) + reads_before_macro_serial(n - 2)
}

#[test]
fn changes_made_by_a_fn_or_a_macro_before_a_call_keep_their_order() {
    let want = reads_before_bump_serial(8, &AtomicU64::new(0));
    for pool in pools() {
        let counter = AtomicU64::new(0);
        assert_eq!(pool.install(|| reads_before_bump(8, &counter)), want);
        assert_eq!(counter.load(SeqCst), 255);
        assert_eq!(
            pool.install(|| reads_before_macro(20)),
            reads_before_macro_serial(20)
        );
    }
}
