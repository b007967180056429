// Every kind of fork point: binary operators, tuples, arrays, call arguments, method-call
// receivers and arguments, struct fields and a struct update's base, and statements; with const generics and `mut`
// parameters.

#[derive(Debug, PartialEq)]
struct Pair {
    l: u64,
    r: u64,
}

fn combine(a: u64, b: u64, c: u64) -> u64 {
    a * 100 + b * 10 + c
}

#[blitz::parallel]
fn tuple(n: u64) -> (u64, u64) {
    if n < 2 {
        return (n, 1);
    }
    let ((a, x), (b, y)) = (tuple(n - 1), tuple(n - 2));
    (a + b, x + y)
}

/// A field and the base of `..base` fork: `l` counts levels, `r` comes from the base.
#[blitz::parallel]
fn updated(n: u64) -> Pair {
    if n < 2 {
        return Pair { l: n, r: 1 };
    }
    Pair {
        l: updated(n - 1).l + 1,
        ..updated(n - 2)
    }
}

#[blitz::parallel]
fn array(n: u64) -> u64 {
    if n < 3 {
        return n;
    }
    let [a, b, c] = [array(n - 1), array(n - 2), array(n - 3)];
    a + b + c
}

#[blitz::parallel]
fn call_args(n: u64) -> u64 {
    if n < 3 {
        return n;
    }
    combine(call_args(n - 1), call_args(n - 2), call_args(n - 3)) % 1_000_007
}

#[blitz::parallel]
fn method_args(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    method_args(n - 1).max(method_args(n - 2)) + 1
}

#[blitz::parallel]
fn fields(n: u64) -> Pair {
    if n < 2 {
        return Pair { l: n, r: n };
    }
    let p = Pair {
        l: fields(n - 1).l,
        r: fields(n - 2).r,
    };
    Pair { l: p.l + 1, r: p.r + 2 }
}

#[blitz::parallel]
fn visit(n: u64, out: &std::sync::atomic::AtomicU64) -> Result<(), String> {
    if n > 1000 {
        return Err("too big".into());
    }
    out.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    if n < 2 {
        return Ok(());
    }
    visit(n - 1, out)?;
    visit(n - 2, out)?;
    Ok(())
}

#[blitz::parallel]
fn chunked<const N: usize>(v: &[u32], mut acc: u64) -> u64 {
    if v.len() <= N {
        for x in v {
            acc += u64::from(*x);
        }
        return acc;
    }
    let (l, r) = v.split_at(v.len() / 2);
    chunked::<N>(l, acc) + chunked::<N>(r, 0)
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install(|| {
        assert_eq!(tuple(15), (610, 987));
        assert_eq!(array(10), 230);
        assert_eq!(call_args(8), {
            fn s(n: u64) -> u64 {
                if n < 3 { n } else { combine(s(n - 1), s(n - 2), s(n - 3)) % 1_000_007 }
            }
            s(8)
        });
        assert_eq!(method_args(10), 10);
        assert_eq!(fields(6), Pair { l: 6, r: 6 });
        assert_eq!(updated(12), Pair { l: 12, r: 1 });
        let count = std::sync::atomic::AtomicU64::new(0);
        assert_eq!(visit(10, &count), Ok(()));
        assert_eq!(count.into_inner(), 177);
        let v: Vec<u32> = (0..1000).collect();
        assert_eq!(chunked::<16>(&v, 5), 499_505);
    });
}
