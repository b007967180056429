// A parenthesized fork that an operator or a cast is applied to, inside a branch of an outer
// fork: the inner fork's block stays an operand where the outer fork runs it as a block's
// tail.

#[blitz::parallel]
fn times(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let b = (times(n - 1) + times(n - 2)) * 2;
    let c = times(n - 2);
    b + c
}

#[blitz::parallel]
fn modulo(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let b = (modulo(n - 1) + modulo(n - 2)) % 1_000_007;
    let c = modulo(n - 2);
    b + c
}

#[blitz::parallel]
fn compared(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let bump = (compared(n - 1) < compared(n - 2)) as u64 + (compared(n - 2) == 1) as u64;
    bump + compared(n - 1)
}

fn pair(a: u32, b: u64) -> u64 {
    u64::from(a) + b
}

#[blitz::parallel]
fn cast_argument(n: u64) -> u64 {
    if n < 3 {
        return n;
    }
    pair((cast_argument(n - 1) + cast_argument(n - 2)) as u32, cast_argument(n - 3))
}

fn times_seq(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    (times_seq(n - 1) + times_seq(n - 2)) * 2 + times_seq(n - 2)
}

fn modulo_seq(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    (modulo_seq(n - 1) + modulo_seq(n - 2)) % 1_000_007 + modulo_seq(n - 2)
}

fn compared_seq(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let bump = (compared_seq(n - 1) < compared_seq(n - 2)) as u64 + (compared_seq(n - 2) == 1) as u64;
    bump + compared_seq(n - 1)
}

fn cast_argument_seq(n: u64) -> u64 {
    if n < 3 {
        return n;
    }
    pair((cast_argument_seq(n - 1) + cast_argument_seq(n - 2)) as u32, cast_argument_seq(n - 3))
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    pool.install(|| {
        assert_eq!(times(18), times_seq(18));
        assert_eq!(modulo(22), modulo_seq(22));
        assert_eq!(compared(16), compared_seq(16));
        assert_eq!(cast_argument(20), cast_argument_seq(20));
    });
    assert_eq!(times(12), times_seq(12));
}
