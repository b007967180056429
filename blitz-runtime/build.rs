//! Sets `cfg(blitz_tsan)` when building under ThreadSanitizer.
//!
//! TSan does not model standalone fences, so the happens-before edge a release fence creates
//! (deque push: slot store, release fence, relaxed `bottom` store) is invisible to it and it
//! reports the job's data as racing. Under `blitz_tsan` the code uses the equivalent release
//! store instead.
fn main() {
    println!("cargo::rustc-check-cfg=cfg(blitz_tsan)");
    println!("cargo::rerun-if-env-changed=CARGO_CFG_SANITIZE");
    let sanitize = std::env::var("CARGO_CFG_SANITIZE").unwrap_or_default();
    if sanitize.split(',').any(|s| s == "thread") {
        println!("cargo::rustc-cfg=blitz_tsan");
    }
}
