//! `build_global` succeeds once and fails the second time. Its own test binary: the global
//! pool is per process.

use blitz_runtime::{ThreadPoolBuildError, ThreadPoolBuilder};

#[test]
fn build_global_twice_is_an_error() {
    ThreadPoolBuilder::new()
        .num_threads(2)
        .build_global()
        .expect("first build_global");
    // The global pool is the one just configured, and it works.
    assert_eq!(blitz_runtime::current_num_threads(), 2);
    assert_eq!(blitz_runtime::join(|| 1 + 1, || 2 + 2), (2, 4));

    let err = ThreadPoolBuilder::new()
        .num_threads(3)
        .build_global()
        .unwrap_err();
    assert!(matches!(
        err,
        ThreadPoolBuildError::GlobalPoolAlreadyInitialized
    ));
    // rayon's message, which code ported from rayon may compare.
    assert_eq!(
        err.to_string(),
        "The global thread pool has already been initialized."
    );
    // The failed call changed nothing.
    assert_eq!(blitz_runtime::current_num_threads(), 2);
}
