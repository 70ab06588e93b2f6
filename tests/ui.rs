//! Compile tests: `tests/pass/*.rs` must build and run; every `tests/ui/**/*.rs` must fail to
//! compile with exactly the `.stderr` next to it (regenerate with `TRYBUILD=overwrite`, then
//! read every changed file).

#[test]
fn pass() {
    let t = trybuild::TestCases::new();
    t.pass("tests/pass/*.rs");
}

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*/*.rs");
}
