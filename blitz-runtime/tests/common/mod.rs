//! Helpers of the fault-path tests (`fault_*.rs`): a watchdog that turns a hang into a
//! failure, a value whose `Drop` panics, and child processes for scenarios that must abort
//! (or must not crash).
//!
//! Every fault test runs on a started pool of at least two workers. A test that could hang arms
//! a [`Watchdog`], which aborts the test binary after a generous bound, so a hang is a failure
//! and not a stuck run. Aborts (and crashes that must not happen) are tested in a child
//! process: the test binary re-runs itself with [`CHILD_ENV`] naming the scenario, filtered to
//! its `fault_child` test, and the parent checks how the child ended and what it printed.
#![allow(dead_code)] // each test binary uses its own subset

use std::any::Any;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use blitz_runtime::{ThreadPool, ThreadPoolBuilder};

/// How long a test may wait for something that must happen before it counts as hung.
pub const HANG_BOUND: Duration = Duration::from_secs(20);

/// Aborts the process if not dropped within [`HANG_BOUND`].
pub struct Watchdog {
    done: Option<mpsc::Sender<()>>,
}

impl Watchdog {
    pub fn arm(test: &'static str) -> Watchdog {
        let (done, wait) = mpsc::channel::<()>();
        std::thread::spawn(move || {
            if let Err(mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(HANG_BOUND) {
                eprintln!("{test}: hung for {HANG_BOUND:?}; aborting the test binary");
                std::process::abort();
            }
        });
        Watchdog { done: Some(done) }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        // Dropping the sender ends the watchdog's wait.
        self.done.take();
    }
}

pub fn pool(n: usize) -> ThreadPool {
    ThreadPoolBuilder::new().num_threads(n).build().unwrap()
}

/// A value whose `Drop` panics: a panic payload or a result that misbehaves when discarded.
pub struct DropBomb(pub &'static str);

impl Drop for DropBomb {
    fn drop(&mut self) {
        panic!("drop of {}", self.0);
    }
}

/// What a caught panic carried: its message, or the name of a `DropBomb` payload. A
/// `DropBomb` is forgotten, not dropped (its drop would panic here).
pub fn describe(payload: Box<dyn Any + Send>) -> String {
    match payload.downcast::<DropBomb>() {
        Ok(bomb) => {
            let name = format!("bomb {}", bomb.0);
            std::mem::forget(bomb);
            name
        }
        Err(payload) => {
            if let Some(s) = payload.downcast_ref::<&str>() {
                s.to_string()
            } else if let Some(s) = payload.downcast_ref::<String>() {
                s.clone()
            } else {
                "non-string payload".to_string()
            }
        }
    }
}

/// Spins until `flag` is set (bounded by the caller's watchdog).
pub fn wait_for(flag: &AtomicBool) {
    while !flag.load(Ordering::Acquire) {
        std::thread::yield_now();
    }
}

// Child processes.

/// The environment variable that makes the test binary run one fault scenario in `fault_child`.
pub const CHILD_ENV: &str = "BLITZ_FAULT_SCENARIO";

/// Runs `scenario` in a child process (this test binary, filtered to `fault_child`).
pub fn run_child(scenario: &str) -> Output {
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "fault_child", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, scenario)
        // The scenarios plant hundreds of panics; symbolising a backtrace for each (when the
        // caller's environment asks for them) can outlast `HANG_BOUND` under a sanitizer.
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("the test binary runs again as a child")
}

#[cfg(unix)]
pub fn died_by_abort(output: &Output) -> bool {
    use std::os::unix::process::ExitStatusExt;
    output.status.signal() == Some(6)
}

/// Asserts that the child aborted and that its stderr contains `cause`.
#[cfg(unix)]
pub fn assert_aborted_with(scenario: &str, cause: &str) {
    let output = run_child(scenario);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        died_by_abort(&output),
        "{scenario}: expected an abort, got {:?}; stderr:\n{stderr}",
        output.status
    );
    assert!(
        stderr.contains(cause),
        "{scenario}: the abort message does not name the cause {cause:?}; stderr:\n{stderr}"
    );
}

/// Asserts that the child ran `scenario` to completion (its assertions passed).
pub fn assert_child_succeeds(scenario: &str) {
    let output = run_child(scenario);
    assert!(
        output.status.success(),
        "{scenario}: the child failed with {:?}; stderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The scenario this process is to run as a child, if it is one.
pub fn child_scenario() -> Option<String> {
    std::env::var(CHILD_ENV).ok()
}
