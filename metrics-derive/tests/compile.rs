//! Compile tests: `tests/pass/*.rs` must build and run; every `tests/ui/**/*.rs` must fail to
//! compile with exactly the `.stderr` next to it (regenerate with `TRYBUILD=overwrite`, then
//! read every changed file).
//!
//! One set of cases, so trybuild builds its project once for both; the project holds this
//! crate's dev-dependencies, kept to what the cases use (the runtime with `http-layer`, axum
//! and tower for the `/metrics` service case).

#[test]
fn compile_tests() {
    let t = trybuild::TestCases::new();
    t.pass("tests/pass/*.rs");
    t.compile_fail("tests/ui/*/*.rs");
}
