//! Prints the ratios of the last `cargo bench` run.
//!
//! `bench-report` prints one line per comparison and the targets;
//! `bench-report --markdown` prints the tables of `docs/benchmarks.md`.
//! The criterion directory defaults to this crate's `target/criterion` (or
//! `$CARGO_TARGET_DIR/criterion`); `--dir PATH` overrides it. Contended groups are named for
//! `BENCH_THREADS` (default 2), as in the benchmarks.
//!
//! `bench-report --memory` prints only the memory targets, from the results the `memory`
//! binary wrote at 64 cores (`scripts/bench-memory.sh`); the other modes print them too once
//! those results exist.

use std::path::PathBuf;

use metric_handles_benches::contended::threads;
use metric_handles_benches::memory::results::{self, Results, TARGET_CPUS};
use metric_handles_benches::report;

fn main() {
    let mut markdown = false;
    let mut memory_only = false;
    let mut dir = report::default_criterion_dir();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--markdown" => markdown = true,
            "--memory" => memory_only = true,
            "--dir" => match args.next() {
                Some(path) => dir = PathBuf::from(path),
                None => usage("--dir needs a path"),
            },
            other => usage(&format!("unknown argument `{other}`")),
        }
    }
    let memory_path = results::results_path(TARGET_CPUS);
    let memory = std::fs::read_to_string(&memory_path)
        .ok()
        .and_then(|text| Results::from_json(&text));
    if memory_only {
        print!("{}", results::target_lines(memory.as_ref()));
        return;
    }
    if !dir.is_dir() {
        usage(&format!("no criterion results in {}", dir.display()));
    }
    let threads = threads();
    if markdown {
        print!("{}", report::markdown(&dir, threads));
    } else {
        print!("{}", report::lines(&dir, threads));
        print!("{}", report::same_shape_lines(&dir));
        print!("{}", report::same_shape_protobuf_lines(&dir));
        print!("{}", report::native_protobuf_lines(&dir));
        print!("{}", report::facade_scrape_lines(&dir));
    }
    println!("\ntargets:");
    print!("{}", report::target_lines(&dir, threads));
    if memory.is_some() {
        print!("{}", results::target_lines(memory.as_ref()));
    }
}

fn usage(problem: &str) -> ! {
    eprintln!("bench-report: {problem}\nusage: bench-report [--markdown | --memory] [--dir CRITERION_DIR]");
    std::process::exit(2)
}
