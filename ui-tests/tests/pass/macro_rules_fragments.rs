//! Expressions passed to the macros through `macro_rules!` `$x:expr` fragments (which arrive
//! wrapped in invisible groups) mean what they mean written directly: a trailing `?` on a
//! `fork_join!` arm or a recursive call, an iterator chain as a `par_for!` source, a
//! `reduce` target, and an operand whose precedence the group kept.

macro_rules! both {
    ($a:expr, $b:expr) => {
        blitz::fork_join!($a, $b)
    };
}

fn parse_pair(a: &str, b: &str) -> Result<i32, std::num::ParseIntError> {
    let (x, y) = both!(a.parse::<i32>()?, b.parse::<i32>()?);
    Ok(x + y)
}

macro_rules! checked_sum {
    ($name:ident, $v:ident, $l:ident, $r:ident, $a:expr, $b:expr) => {
        #[blitz::parallel]
        fn $name($v: &[i64]) -> Result<i64, String> {
            if $v.len() == 1 {
                return if $v[0] < 0 { Err(format!("negative {}", $v[0])) } else { Ok($v[0]) };
            }
            let ($l, $r) = $v.split_at($v.len() / 2);
            Ok($a + $b)
        }
    };
}

checked_sum!(checked, v, l, r, checked(l)?, checked(r)?);

macro_rules! sum_of {
    ($src:expr) => {{
        let mut s = 0u64;
        blitz::par_for!(x in $src, reduce(+: s) => s += x);
        s
    }};
}

macro_rules! add_into {
    ($acc:expr, $v:expr, $scale:expr) => {
        blitz::par_for!(x in $v, reduce(+: $acc) => $acc += *x * $scale)
    };
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    pool.install(|| {
        assert_eq!(parse_pair("1", "2"), Ok(3));
        assert!(parse_pair("1", "x").is_err());

        let v: Vec<i64> = (1..=1000).collect();
        assert_eq!(checked(&v), Ok(500_500));
        let mut bad = v.clone();
        bad[700] = -3;
        assert_eq!(checked(&bad), Err("negative -3".to_owned()));

        let w: Vec<u64> = (0..10_000).collect();
        assert_eq!(sum_of!(w.iter().map(|x| x * 2)), 99_990_000);
        assert_eq!(sum_of!((0..10_000u64).rev()), 49_995_000);

        // `$scale` is `1 + 1`: the group keeps it one operand (`*x * (1 + 1)`).
        let mut total = 0u64;
        add_into!(total, &w, 1 + 1);
        assert_eq!(total, 99_990_000);
    });
}
