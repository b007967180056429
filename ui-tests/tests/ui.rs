//! trybuild driver: `tests/ui/*.rs` must fail to compile with the `.stderr` next to them;
//! `tests/pass/*.rs` must compile and run.
//!
//! Two tests, because the compiler's messages change between Rust versions: the `.stderr` files
//! are those of the current stable toolchain, and the MSRV job (`scripts/msrv.sh`) skips
//! `compile_fail` while still running `pass`.

#[test]
fn compile_fail() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}

#[test]
fn pass() {
    trybuild::TestCases::new().pass("tests/pass/*.rs");
}
