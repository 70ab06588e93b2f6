//! Compile tests: `tests/pass/*.rs` must build and run; every `tests/ui/**/*.rs` must fail to
//! compile with exactly the `.stderr` next to it (regenerate with `TRYBUILD=overwrite`, then
//! read every changed file).
//!
//! One set of cases, so trybuild builds its project once for both; the project holds this
//! crate's dev-dependencies, kept to what the cases use: the runtime, without its features
//! (`Cargo.toml` keeps the unit tests' and trybuild itself out of it).
//!
//! Not part of `cargo test --workspace`: a `.stderr` file is what one compiler version prints,
//! so the cases pass on the toolchain CI pins and are noise on any other; and they are the
//! slowest test of the workspace (two minutes on 2 cores). `.ci/run` runs them as a step of
//! their own; run them with `cargo test -p metric-handles-derive --test compile -- --ignored`.

#[test]
#[ignore = "compile-error snapshots of one compiler version: run by .ci/run, or with --ignored"]
fn compile_tests() {
    let t = trybuild::TestCases::new();
    t.pass("tests/pass/*.rs");
    t.compile_fail("tests/ui/*/*.rs");
}
