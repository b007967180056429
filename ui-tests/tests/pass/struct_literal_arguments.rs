// A recursive call whose argument or receiver is a struct literal that calls something: the
// literal is built before the fork, and its braces stay apart from the generated `match`.

struct S {
    n: u64,
}

fn dec(n: u64) -> u64 {
    n.saturating_sub(1)
}

#[blitz::parallel]
fn by_ref(s: &S) -> u64 {
    if s.n < 2 {
        return s.n;
    }
    by_ref(&S { n: dec(s.n) }) + by_ref(&S { n: s.n - 2 })
}

#[blitz::parallel]
fn by_value(s: S) -> u64 {
    if s.n < 2 {
        return s.n;
    }
    let a = by_value(S { n: dec(s.n) });
    let b = by_value(S { n: dec(dec(s.n)) });
    a + b
}

impl S {
    #[blitz::parallel]
    fn fib(&self) -> u64 {
        if self.n < 2 {
            return self.n;
        }
        S { n: dec(self.n) }.fib() + S { n: dec(dec(self.n)) }.fib()
    }
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    pool.install(|| {
        assert_eq!(by_ref(&S { n: 20 }), 6765);
        assert_eq!(by_value(S { n: 20 }), 6765);
        assert_eq!(S { n: 20 }.fib(), 6765);
    });
}
