//! The scale test: many series of one `Dynamic` family of classic + native histograms, what
//! they keep resident, how long creating them takes, and how long one scrape of them takes.

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

use metric_handles::{ExpositionFormat, NoLabels, Registry};

use super::alloc::CountingAlloc;
use super::subjects::{tenants, MemoryMetrics, VALUES};

/// The resident set of this process in KiB (`VmRSS` of `/proc/self/status`), where there is one.
pub fn rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// What one scale run measured.
#[derive(Clone, Debug)]
pub struct ScaleFigures {
    /// Series created.
    pub series: usize,
    /// What `available_parallelism` reported.
    pub cpus: usize,
    /// The resident set grown by creating and recording the series, in KiB.
    pub rss_kib: Option<u64>,
    /// Live heap bytes added by creating and recording the series.
    pub heap_bytes: i64,
    /// Time to create every series (`get_or_create` of each label set).
    pub create: Duration,
    /// Time to record 8 observations into every series, from one thread.
    pub record: Duration,
    /// One protobuf scrape: its time and size.
    pub protobuf: (Duration, usize),
    /// One OpenMetrics text scrape: its time and size.
    pub openmetrics: (Duration, usize),
    /// The resident set grown, in KiB, once the series are in their steady state: after the
    /// two scrapes (which make each series' scrape state), then twice 8 more values into each
    /// and a scrape, so that both halves of every series were recorded into (each half has
    /// its own native tables).
    pub steady_rss_kib: Option<u64>,
    /// Live heap bytes added, in the same steady state.
    pub steady_heap_bytes: i64,
}

/// Creates `series` classic + native histograms (ITL bounds, native defaults) in a `Dynamic`
/// family, records 8 values into each, then scrapes the registry once in each format; then
/// measures the steady state (see [`ScaleFigures::steady_rss_kib`]).
pub fn run(alloc: &CountingAlloc, series: usize, cpus: usize) -> ScaleFigures {
    let labels = tenants(series);
    let mut registry = Registry::default();
    let metrics = MemoryMetrics::register_for(&mut registry, series);
    let handles = metrics.resolve(&NoLabels);
    let mut kept = Vec::with_capacity(series);

    let rss_before = rss_kib();
    let heap_before = alloc.now();
    let start = Instant::now();
    kept.extend(
        labels
            .iter()
            .map(|l| handles.classic_native.get_or_create(l)),
    );
    let create = start.elapsed();
    let start = Instant::now();
    for histogram in &kept {
        for value in VALUES {
            histogram.observe(value);
        }
    }
    let record = start.elapsed();
    let heap_bytes = alloc.now().live_bytes - heap_before.live_bytes;
    let rss_grown = rss_kib()
        .zip(rss_before)
        .map(|(after, before)| after.saturating_sub(before));

    let scrape = |format: ExpositionFormat| {
        let mut body = Vec::new();
        let start = Instant::now();
        let encoded = format.encode_into(&registry, &mut body);
        let took = start.elapsed();
        assert!(encoded.is_ok(), "{format:?} encode failed");
        (took, black_box(body).len())
    };
    let protobuf = scrape(ExpositionFormat::PrometheusProtobuf);
    let openmetrics = scrape(ExpositionFormat::OpenMetrics);
    // The two scrapes turned the hot half twice: records write the first half again. One more
    // round and scrape, then one into the other half, and a scrape that turns it cold.
    for _ in 0..2 {
        for histogram in &kept {
            for value in VALUES {
                histogram.observe(value);
            }
        }
        let _ = scrape(ExpositionFormat::PrometheusProtobuf);
    }
    let steady_heap_bytes = alloc.now().live_bytes - heap_before.live_bytes;
    let steady_rss_kib = rss_kib()
        .zip(rss_before)
        .map(|(after, before)| after.saturating_sub(before));
    ScaleFigures {
        series,
        cpus,
        rss_kib: rss_grown,
        heap_bytes,
        create,
        record,
        protobuf,
        openmetrics,
        steady_rss_kib,
        steady_heap_bytes,
    }
}

impl ScaleFigures {
    /// The figures as text, each also per series, and scaled linearly to `extrapolate_to`
    /// series when that differs from the count measured.
    pub fn report(&self, extrapolate_to: usize) -> String {
        let mut out = String::new();
        let n = self.series.max(1) as f64;
        let scale = extrapolate_to as f64 / n;
        let _ = writeln!(
            out,
            "scale test: {} series of a Dynamic family of classic (19 ITL bounds) + native \
             (defaults) histograms, 8 observations each; available_parallelism = {}",
            self.series, self.cpus
        );
        let extrapolated = extrapolate_to != self.series;
        if extrapolated {
            let _ = writeln!(
                out,
                "(last column: scaled linearly from {} to {extrapolate_to} series, not measured)",
                self.series
            );
        }
        let mib = |bytes: f64| bytes / (1024.0 * 1024.0);
        let mut line = |what: &str, total: String, per: String, scaled: String| {
            let scaled = if extrapolated { scaled } else { String::new() };
            let _ = writeln!(out, "  {what:<26} {total:>14} {per:>16} {scaled:>16}");
        };
        line(
            "",
            "measured".to_owned(),
            "per series".to_owned(),
            format!("x {extrapolate_to}"),
        );
        let kib_to_bytes = |kib: Option<u64>| kib.map(|kib| kib as f64 * 1024.0);
        let memory = [
            ("resident (VmRSS) growth", kib_to_bytes(self.rss_kib)),
            ("live heap growth", Some(self.heap_bytes as f64)),
            ("resident, steady", kib_to_bytes(self.steady_rss_kib)),
            ("live heap, steady", Some(self.steady_heap_bytes as f64)),
        ];
        for (what, bytes) in memory {
            // Resident memory where the platform reports it.
            let Some(bytes) = bytes else { continue };
            line(
                what,
                format!("{:.1} MiB", mib(bytes)),
                format!("{:.0} B", bytes / n),
                format!("{:.2} GiB", mib(bytes * scale) / 1024.0),
            );
        }
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        for (what, took) in [("create", self.create), ("record 8 values", self.record)] {
            line(
                what,
                format!("{:.1} ms", ms(took)),
                format!("{:.0} ns", took.as_secs_f64() * 1e9 / n),
                format!("{:.0} ms", ms(took) * scale),
            );
        }
        for (what, (took, size)) in [
            ("scrape, protobuf", self.protobuf),
            ("scrape, OpenMetrics text", self.openmetrics),
        ] {
            line(
                what,
                format!("{:.1} ms", ms(took)),
                format!("{:.0} ns", took.as_secs_f64() * 1e9 / n),
                format!("{:.0} ms", ms(took) * scale),
            );
            line(
                "  its size",
                format!("{:.1} MiB", mib(size as f64)),
                format!("{:.0} B", size as f64 / n),
                format!("{:.0} MiB", mib(size as f64 * scale)),
            );
        }
        out
    }
}
