//! The scale test: `--series N` (default 100,000) classic + native histograms of one
//! `Dynamic` family, 8 observations each; prints the resident memory they take, the time to
//! create them and one scrape's time in protobuf and in OpenMetrics text, then what they keep
//! once scraped and recorded into again (their steady state).
//!
//! `--extrapolate-to M` scales every figure linearly to M series (and says so), for a run of
//! fewer series on a machine with less memory than the full count needs.

use metric_handles_benches::memory::alloc::CountingAlloc;
use metric_handles_benches::memory::scale;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

fn main() {
    let mut series = 100_000;
    let mut extrapolate_to = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next().and_then(|n| n.parse().ok())) {
            ("--series", Some(n)) if n > 0 => series = n,
            ("--extrapolate-to", Some(n)) if n > 0 => extrapolate_to = Some(n),
            _ => {
                eprintln!("usage: memory-scale [--series N] [--extrapolate-to M]");
                std::process::exit(2);
            }
        }
    }
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    let figures = scale::run(&ALLOC, series, cpus);
    print!("{}", figures.report(extrapolate_to.unwrap_or(series)));
}
