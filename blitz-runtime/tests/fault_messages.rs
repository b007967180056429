//! Fault paths that end the process or the build: each abort names its real cause, and bad
//! configuration is rejected (or means the default) with a message that says what is wrong.
//! See `common` for the harness.

mod common;

use blitz_runtime::ThreadPoolBuilder;

#[cfg(unix)]
use common::assert_aborted_with;
use common::{HANG_BOUND, Watchdog, assert_child_succeeds, child_scenario, pool};

/// The child's side: runs the scenario named by `common::CHILD_ENV`; without it, does nothing.
#[test]
fn fault_child() {
    let Some(scenario) = child_scenario() else {
        return;
    };
    let _watchdog = Watchdog::arm("fault_child");
    match scenario.as_str() {
        "spawned_task_panics" => {
            let pool = pool(2);
            pool.spawn(|| panic!("task without a handler"));
            drop(pool);
        }
        "start_handler_panics" => {
            let _pool = ThreadPoolBuilder::new()
                .num_threads(2)
                .start_handler(|_| panic!("start handler failed"))
                .build()
                .unwrap();
            std::thread::sleep(HANG_BOUND);
        }
        "exit_handler_panics" => {
            let pool = ThreadPoolBuilder::new()
                .num_threads(2)
                .exit_handler(|_| panic!("exit handler failed"))
                .build()
                .unwrap();
            drop(pool);
        }
        "panic_handler_panics" => {
            let pool = ThreadPoolBuilder::new()
                .num_threads(2)
                .panic_handler(|_| panic!("panic handler failed"))
                .build()
                .unwrap();
            pool.spawn(|| panic!("task"));
            drop(pool);
        }
        "stack_size_zero_is_the_platform_default" => {
            let pool = ThreadPoolBuilder::new()
                .num_threads(2)
                .stack_size(0)
                .build()
                .unwrap();
            // Some 256 KiB of stack: far below any platform default, far above the minimum
            // stack a thread can be given.
            fn deep(n: usize) -> u64 {
                let frame = std::hint::black_box([n as u8; 4096]);
                if n == 0 {
                    return frame[0] as u64;
                }
                deep(n - 1) + frame[4095] as u64
            }
            let sums = pool.broadcast(|_| deep(64));
            assert_eq!(sums, vec![(0..=64u64).sum::<u64>(); 2]);
        }
        other => panic!("unknown scenario {other}"),
    }
}

// ---------------------------------------------------------------------------------------------
// 7. Abort messages name their cause.

#[cfg(unix)]
#[test]
fn abort_messages_name_their_cause() {
    assert_aborted_with(
        "spawned_task_panics",
        "a spawned task panicked (task without a handler)",
    );
    assert_aborted_with(
        "start_handler_panics",
        "start handler panicked (start handler failed)",
    );
    assert_aborted_with(
        "exit_handler_panics",
        "exit handler panicked (exit handler failed)",
    );
    assert_aborted_with("panic_handler_panics", "the pool's panic handler panicked");
}

// ---------------------------------------------------------------------------------------------
// 8. Bad configuration.

#[test]
fn stack_size_zero_means_the_platform_default() {
    assert_child_succeeds("stack_size_zero_is_the_platform_default");
}
