//! trybuild driver: `tests/ui/*.rs` must fail to compile with the `.stderr` next to them;
//! `tests/pass/*.rs` must compile and run.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/pass/*.rs");
}
