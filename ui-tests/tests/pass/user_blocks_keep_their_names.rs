//! A block of the user's own whose statements fork keeps its names to itself: what follows
//! it, or a `match` on it, sees the names outside the block.

#[blitz::parallel]
fn in_match(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let a = n * 100;
    match {
        let a = in_match(n - 1);
        let b = in_match(n - 2);
        a + b
    } {
        s => (s + a) % 1_000_007,
    }
}

fn in_match_seq(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let a = n * 100;
    match {
        let a = in_match_seq(n - 1);
        let b = in_match_seq(n - 2);
        a + b
    } {
        s => (s + a) % 1_000_007,
    }
}

#[blitz::parallel]
fn in_let(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let a = n * 100;
    let s = {
        let a = in_let(n - 1);
        let b = in_let(n - 2);
        a + b
    };
    (s + a) % 1_000_007
}

fn in_let_seq(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let a = n * 100;
    let s = {
        let a = in_let_seq(n - 1);
        let b = in_let_seq(n - 2);
        a + b
    };
    (s + a) % 1_000_007
}

#[blitz::parallel]
fn in_method(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let a = n * 100;
    {
        let a = in_method(n - 1);
        let b = in_method(n - 2);
        a + b
    }
    .max(a)
}

fn in_method_seq(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let a = n * 100;
    {
        let a = in_method_seq(n - 1);
        let b = in_method_seq(n - 2);
        a + b
    }
    .max(a)
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install(|| {
        for n in 0..16 {
            assert_eq!(in_match(n), in_match_seq(n));
            assert_eq!(in_let(n), in_let_seq(n));
            assert_eq!(in_method(n), in_method_seq(n));
        }
    });
}
