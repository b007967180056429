// `crate = path` lets the macros reach the runtime through another name.
mod inner {
    use ::blitz as engine;

    #[engine::parallel(crate = engine)]
    pub fn fib(n: u64) -> u64 {
        if n < 2 {
            return n;
        }
        fib(n - 1) + fib(n - 2)
    }

    pub fn both() -> (u64, u64) {
        engine::fork_join!(crate = engine, fib(10), fib(11))
    }

    pub fn total(n: u64) -> u64 {
        let mut s = 0;
        engine::par_for!(crate = "engine", i in 0..n, reduce(+: s) => s += i);
        s
    }
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    assert_eq!(pool.install(|| inner::fib(20)), 6765);
    assert_eq!(pool.install(inner::both), (55, 89));
    assert_eq!(pool.install(|| inner::total(100)), 4950);
}
