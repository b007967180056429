//! Sets two cfgs from the sanitizer a build runs under (`-Zsanitizer=...`):
//!
//! - `blitz_tsan` under ThreadSanitizer. TSan does not model standalone fences, so the
//!   happens-before edge a release fence creates (deque push: slot store, release fence,
//!   relaxed `bottom` store) is invisible to it and it reports the job's data as racing. Under
//!   `blitz_tsan` the code uses the equivalent release store instead.
//! - `blitz_sanitizer` under any sanitizer. It leaves out the tests with no unsafe code of
//!   their own (iterator adaptors and sources checked against `std` on large inputs), which
//!   were a third of the unit-test binary's build time, and shortens the longest loops of
//!   `tests/loops.rs`: a sanitizer has nothing more to find in them.
fn main() {
    println!("cargo::rustc-check-cfg=cfg(blitz_tsan)");
    println!("cargo::rustc-check-cfg=cfg(blitz_sanitizer)");
    println!("cargo::rerun-if-env-changed=CARGO_CFG_SANITIZE");
    let sanitize = std::env::var("CARGO_CFG_SANITIZE").unwrap_or_default();
    if sanitize.split(',').any(|s| s == "thread") {
        println!("cargo::rustc-cfg=blitz_tsan");
    }
    if !sanitize.is_empty() {
        println!("cargo::rustc-cfg=blitz_sanitizer");
    }
}
