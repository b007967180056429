//! `BLITZ_NUM_THREADS` read from the real environment. Its own test binary with a single test,
//! so no other thread reads the environment while it is modified.

use blitz_runtime::{ThreadPoolBuildError, ThreadPoolBuilder};

#[test]
fn blitz_num_threads_is_read_and_validated() {
    // SAFETY (of `set_var`): this binary's only test; no other thread touches the environment.
    unsafe { std::env::set_var("BLITZ_NUM_THREADS", "3") };
    let pool = ThreadPoolBuilder::new().build().expect("valid value");
    assert_eq!(pool.current_num_threads(), 3);
    drop(pool);

    // SAFETY: as above.
    unsafe { std::env::set_var("BLITZ_NUM_THREADS", "three") };
    let err = ThreadPoolBuilder::new().build().unwrap_err();
    assert!(matches!(
        &err,
        ThreadPoolBuildError::InvalidEnvVar { name: "BLITZ_NUM_THREADS", value } if value == "three"
    ));
    assert_eq!(
        err.to_string(),
        "invalid value \"three\" for the environment variable BLITZ_NUM_THREADS: expected a \
         number of threads (a non-negative integer; 0 means one per CPU)"
    );
    // An explicit count does not consult the variable at all.
    let pool = ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("explicit");
    assert_eq!(pool.current_num_threads(), 2);
    drop(pool);

    // An empty value is taken as unset.
    // SAFETY: as above.
    unsafe { std::env::remove_var("BLITZ_NUM_THREADS") };
    let unset = ThreadPoolBuilder::new()
        .build()
        .expect("unset")
        .current_num_threads();
    // SAFETY: as above.
    unsafe { std::env::set_var("BLITZ_NUM_THREADS", "") };
    let pool = ThreadPoolBuilder::new().build().expect("an empty value");
    assert_eq!(pool.current_num_threads(), unset);

    // SAFETY: as above.
    unsafe { std::env::remove_var("BLITZ_NUM_THREADS") };
}
