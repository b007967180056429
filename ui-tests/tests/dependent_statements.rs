//! A statement that uses the result of a recursing statement before it, but makes a recursive
//! call that does not (`let a = f(x); a + f(y)`): the call forks with the one before, and what
//! uses the results runs after the join. Each shape is checked against the fn written without
//! the attribute, on one worker and on two, and the spreading ones check that both workers ran
//! leaves at once (see `Rendezvous`), which only happens if the calls really fork.

use blitz_ui_tests::{Rendezvous, pools};

#[blitz::parallel]
fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let a = fib(n - 1);
    a + fib(n - 2)
}

fn fib_serial(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        fib_serial(n - 1) + fib_serial(n - 2)
    }
}

#[blitz::parallel]
fn fib_return(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let a = fib_return(n - 1);
    return a + fib_return(n - 2);
}

#[blitz::parallel]
fn tribonacci(n: u64) -> u64 {
    if n < 3 {
        return n;
    }
    let a = tribonacci(n - 1);
    let b = tribonacci(n - 2);
    let total = a + b;
    total + tribonacci(n - 3)
}

fn tribonacci_serial(n: u64) -> u64 {
    if n < 3 {
        n
    } else {
        tribonacci_serial(n - 1) + tribonacci_serial(n - 2) + tribonacci_serial(n - 3)
    }
}

#[test]
fn an_independent_call_after_a_result_gives_the_sequential_value() {
    for pool in pools() {
        for n in [0, 1, 2, 10, 22] {
            assert_eq!(pool.install(|| fib(n)), fib_serial(n));
            assert_eq!(pool.install(|| fib_return(n)), fib_serial(n));
            assert_eq!(pool.install(|| tribonacci(n)), tribonacci_serial(n));
        }
    }
}

#[derive(Debug, PartialEq)]
struct Bad(String);

/// The first error in source order wins, as sequentially, though the second call runs too.
#[blitz::parallel]
fn parse_all(s: &[&str]) -> Result<Vec<i32>, Bad> {
    if s.len() == 1 {
        return s[0]
            .parse()
            .map(|v| vec![v])
            .map_err(|_| Bad(s[0].to_string()));
    }
    let (l, r) = s.split_at(s.len() / 2);
    let mut a = parse_all(l)?;
    a.extend(parse_all(r)?);
    Ok(a)
}

#[test]
fn a_question_mark_on_the_earlier_result_applies_after_the_join() {
    let good: Vec<String> = (0..100).map(|i| i.to_string()).collect();
    let good: Vec<&str> = good.iter().map(|s| s.as_str()).collect();
    let mut bad = good.clone();
    bad[7] = "x7";
    bad[90] = "x90";
    for pool in pools() {
        assert_eq!(pool.install(|| parse_all(&good)), Ok((0..100).collect()));
        assert_eq!(pool.install(|| parse_all(&bad)), Err(Bad("x7".into())));
    }
}

struct Node {
    value: u64,
    left: Option<Box<Node>>,
    right: Option<Box<Node>>,
}

impl Node {
    fn full(depth: u32, next: &mut u64) -> Option<Box<Node>> {
        if depth == 0 {
            return None;
        }
        *next += 1;
        let value = *next;
        let left = Node::full(depth - 1, next);
        let right = Node::full(depth - 1, next);
        Some(Box::new(Node { value, left, right }))
    }

    /// The right child's sum is a call that recurses through the closure it is passed.
    #[blitz::parallel]
    fn sum(&self, rv: &Rendezvous) -> u64 {
        if self.left.is_none() {
            rv.leaf();
        }
        let left = self.left.as_ref().map_or(0, |c| c.sum(rv));
        self.value + left + self.right.as_ref().map_or(0, |c| c.sum(rv))
    }

    /// A shadowing `let` of the earlier result.
    #[blitz::parallel]
    fn height(&self, rv: &Rendezvous) -> u32 {
        let (Some(l), Some(r)) = (&self.left, &self.right) else {
            rv.leaf();
            return 1;
        };
        let h = l.height(rv);
        let h = h.max(r.height(rv));
        h + 1
    }
}

#[test]
fn dependent_statements_spread_to_both_workers() {
    let [_, pool] = pools();
    let mut next = 0;
    let tree = Node::full(8, &mut next).unwrap();
    let rv = Rendezvous::new(2);
    assert_eq!(pool.install(|| tree.sum(&rv)), next * (next + 1) / 2);
    assert!(rv.all_arrived(), "`left + right.map_or(..)` did not fork");
    let rv = Rendezvous::new(2);
    assert_eq!(pool.install(|| tree.height(&rv)), 8);
    assert!(rv.all_arrived(), "`let h = h.max(r.height())` did not fork");
}

// ---------------------------------------------------------------- past statements that do not recurse

enum Bst {
    Empty,
    Node(Box<Bst>, u32, Box<Bst>),
}

impl Bst {
    fn build(lo: u32, hi: u32) -> Bst {
        if lo >= hi {
            return Bst::Empty;
        }
        let mid = lo + (hi - lo) / 2;
        Bst::Node(
            Box::new(Bst::build(lo, mid)),
            mid,
            Box::new(Bst::build(mid + 1, hi)),
        )
    }

    /// The in-order traversal as it is usually written: the right call sits in the statement
    /// that uses the left result, past a statement that does not recurse.
    #[blitz::parallel]
    fn in_order(&self, rv: &Rendezvous) -> Vec<u32> {
        match self {
            Bst::Empty => {
                rv.leaf();
                Vec::new()
            }
            Bst::Node(l, x, r) => {
                let mut v = l.in_order(rv);
                v.push(*x);
                v.extend(r.in_order(rv));
                v
            }
        }
    }
}

#[test]
fn a_call_joins_the_run_past_statements_that_do_not_recurse() {
    for pool in pools() {
        let rv = Rendezvous::new(pool.current_num_threads());
        let got = pool.install(|| Bst::build(0, 500).in_order(&rv));
        assert_eq!(got, (0..500).collect::<Vec<_>>());
        assert!(rv.all_arrived(), "the halves did not fork");
    }
}

/// The statement between changes what the later call reads: the call must see the change.
#[blitz::parallel]
fn stepped(n: u64, step: u64) -> u64 {
    if n == 0 {
        return step;
    }
    let mut step = step;
    let a = stepped(n - 1, step);
    step = step.wrapping_add(a);
    let b = a.wrapping_add(stepped(n - 1, step));
    // A fork of its own, so that the fn has one.
    b.wrapping_add(stepped(n - 1, 1).wrapping_sub(stepped(n - 1, 1)))
}

fn stepped_serial(n: u64, step: u64) -> u64 {
    if n == 0 {
        return step;
    }
    let a = stepped_serial(n - 1, step);
    let step = step.wrapping_add(a);
    a.wrapping_add(stepped_serial(n - 1, step))
}

/// The statement between pushes to what the later call reads.
#[blitz::parallel]
fn logged(n: u64, log: &mut Vec<u64>) -> u64 {
    if n == 0 {
        return log.len() as u64;
    }
    let a = logged(n - 1, log);
    log.push(a);
    let b = a + logged(n - 1, log);
    // A fork of its own, so that the fn has one.
    b + (logged(0, &mut Vec::new()) - logged(0, &mut Vec::new()))
}

fn logged_serial(n: u64, log: &mut Vec<u64>) -> u64 {
    if n == 0 {
        return log.len() as u64;
    }
    let a = logged_serial(n - 1, log);
    log.push(a);
    a + logged_serial(n - 1, log)
}

/// Each operand's block changes a local through a std method that takes `&mut self`, and the
/// next statement reads it: the statements keep their order (forked, they would not compile).
#[blitz::parallel]
fn changed_locals(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let mut s = String::from("ab");
    let mut v = [n, 3, 1, 2];
    let a = changed_locals(n - 1) + {
        s.make_ascii_uppercase();
        v.select_nth_unstable(1);
        v[..1].copy_from_slice(&[7]);
        0
    };
    let b = changed_locals(n - 2) + (s == "AB") as u64 + v[0] + v[1];
    a + b
}

fn changed_locals_serial(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let a = changed_locals_serial(n - 1);
    a + changed_locals_serial(n - 2) + 1 + 7 + 2
}

#[test]
fn a_call_stays_behind_a_statement_that_changes_what_it_reads() {
    for pool in pools() {
        assert_eq!(
            pool.install(|| changed_locals(12)),
            changed_locals_serial(12)
        );
        assert_eq!(pool.install(|| stepped(12, 1)), stepped_serial(12, 1));
        let (mut a, mut b) = (Vec::new(), Vec::new());
        assert_eq!(
            pool.install(|| logged(10, &mut a)),
            logged_serial(10, &mut b)
        );
        assert_eq!(a, b);
    }
}
