//! Heap bytes per series: counters, gauges and histograms (classic, classic + native, native
//! only) of a `Dynamic` family, ours beside prometheus-client, the `prometheus` crate and
//! metrics-exporter-prometheus, after 8 observations from 1 and from 2 threads; and what a
//! family keeps per label set.
//!
//! `memory [--series N]` (default 2,000) prints a Markdown table and writes the figures to
//! `target/memory/cpus-<C>.json` (C: what `available_parallelism` reports), where
//! `bench-report --memory` reads those of 64 cores for the targets. `scripts/bench-memory.sh`
//! runs it at this machine's core count and at an emulated 64.

use metric_handles_benches::memory::alloc::CountingAlloc;
use metric_handles_benches::memory::results::{self, Results, Row, LABEL_SET};
use metric_handles_benches::memory::subjects::{lone_counter, measure, tenants, Crate, Kind};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

fn main() {
    let mut series = 2000;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next().and_then(|n| n.parse().ok())) {
            ("--series", Some(n)) if n > 0 => series = n,
            _ => {
                eprintln!("usage: memory [--series N]   (N > 0, default 2000)");
                std::process::exit(2);
            }
        }
    }
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    println!("available_parallelism: {cpus}");

    // A first pass at a few series: one-time allocations (thread bookkeeping, lazily built
    // statics of each crate) happen here rather than in a measurement.
    let _ = run(&tenants(16));
    let results = Results {
        cpus,
        series,
        rows: run(&tenants(series)),
    };

    println!(
        "heap bytes per series (allocations per series), {series} series, \
         available_parallelism {cpus}\n"
    );
    let kinds: Vec<&str> = Kind::ALL
        .iter()
        .map(|k| k.name())
        .chain([LABEL_SET])
        .collect();
    let crates: Vec<&str> = Crate::ALL.iter().map(|c| c.name()).collect();
    print!("{}", results.markdown(&kinds, &crates));

    let path = results::results_path(cpus);
    let written = path
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(&path, results.to_json()));
    match written {
        Ok(()) => println!("\nwritten to {}", path.display()),
        Err(e) => eprintln!("memory: cannot write {}: {e}", path.display()),
    }
}

/// Every figure, over the label sets `labels`.
fn run(labels: &[metric_handles_benches::memory::subjects::Tenant]) -> Vec<Row> {
    let mut rows = Vec::new();
    for kind in Kind::ALL {
        for threads in [1, 2] {
            for krate in Crate::ALL {
                if let Some(m) = measure(&ALLOC, krate, kind, labels, threads) {
                    rows.push(Row {
                        kind: kind.name().to_owned(),
                        threads,
                        krate: krate.name().to_owned(),
                        bytes: m.bytes,
                        allocations: m.allocations,
                    });
                }
            }
        }
    }
    // The label set: a family's counter series less a counter made alone.
    for krate in Crate::ALL {
        let family = rows
            .iter()
            .find(|r| r.kind == Kind::Counter.name() && r.threads == 1 && r.krate == krate.name())
            .map(|r| (r.bytes, r.allocations));
        if let (Some((bytes, allocations)), Some(alone)) =
            (family, lone_counter(&ALLOC, krate, labels.len()))
        {
            rows.push(Row {
                kind: LABEL_SET.to_owned(),
                threads: 1,
                krate: krate.name().to_owned(),
                bytes: bytes - alone.bytes,
                allocations: allocations - alone.allocations,
            });
        }
    }
    rows
}
