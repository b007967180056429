//! Associated fns of impls whose headers hold a `;` (an array type) or braces (a const
//! generic block) are recognised as such: `Type::f(l) + Type::f(r)` forks.

struct S<T>(T);

impl S<[u64; 2]> {
    #[blitz::parallel]
    fn sum(v: &[u64]) -> u64 {
        if v.len() <= 1 {
            return v.iter().sum();
        }
        let (l, r) = v.split_at(v.len() / 2);
        S::sum(l) + S::sum(r)
    }
}

struct W<const N: usize>;

impl W<{ 1 + 1 }> {
    #[blitz::parallel]
    fn max(v: &[u64]) -> u64 {
        if v.len() <= 1 {
            return v.first().copied().unwrap_or(0);
        }
        let (l, r) = v.split_at(v.len() / 2);
        W::<2>::max(l).max(W::<2>::max(r))
    }
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let v: Vec<u64> = (0..10_000).collect();
    assert_eq!(pool.install(|| S::<[u64; 2]>::sum(&v)), v.iter().sum::<u64>());
    assert_eq!(pool.install(|| W::<2>::max(&v)), 9_999);
}
