//! An operand between two forked calls that changes what a later call's argument reads keeps
//! the calls in order, and the results are the sequential ones; one that only reads still
//! forks.

#[blitz::parallel]
fn tuple_step(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let mut i = 1;
    let (a, _, b) = (tuple_step(n - i), { i += 1; i }, tuple_step(n - i));
    a + b
}

fn tuple_step_seq(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let mut i = 1;
    let (a, _, b) = (tuple_step_seq(n - i), { i += 1; i }, tuple_step_seq(n - i));
    a + b
}

#[blitz::parallel]
fn stack_pop(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let mut st: Vec<u64> = vec![n - 2, n - 1];
    stack_pop(st.len() as u64 + n - 3) * 1000 + st.pop().unwrap() + stack_pop(st.len() as u64 + n - 3)
}

fn stack_pop_seq(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let mut st: Vec<u64> = vec![n - 2, n - 1];
    stack_pop_seq(st.len() as u64 + n - 3) * 1000 + st.pop().unwrap() + stack_pop_seq(st.len() as u64 + n - 3)
}

#[blitz::parallel]
fn weighted(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    weighted(n - 1) + 2 * n + weighted(n - 2)
}

fn weighted_seq(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    weighted_seq(n - 1) + 2 * n + weighted_seq(n - 2)
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install(|| {
        assert_eq!(tuple_step(20), tuple_step_seq(20));
        assert_eq!(tuple_step(20), 6765);
        assert_eq!(stack_pop(7), stack_pop_seq(7));
        assert_eq!(weighted(22), weighted_seq(22));
    });
}
