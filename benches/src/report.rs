//! Reads criterion's estimates back and states every comparison as a ratio.
//!
//! Each benchmark group holds our implementation (`ours`) and the alternatives measured in the
//! same run. The report prints, per group, every alternative's median against ours, and checks
//! the targets.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A benchmark group and the id of our implementation in it.
#[derive(Debug)]
pub struct Group {
    /// The criterion group name (thread-count groups are formatted with `{t}`).
    pub name: String,
    /// The id of our implementation.
    pub ours: &'static str,
    /// What the group measures, for the table heading.
    pub title: String,
}

/// A performance target, as a bound on `subject / reference` in one group.
#[derive(Debug)]
pub struct Target {
    /// The group both ids belong to.
    pub group: String,
    /// The id whose median is divided.
    pub subject: &'static str,
    /// The id it is divided by.
    pub reference: &'static str,
    /// The bound on the ratio.
    pub bound: Bound,
    /// How the target reads.
    pub label: &'static str,
}

/// A bound on a ratio.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bound {
    /// The ratio must be at most this.
    AtMost(f64),
    /// The ratio must be at least this.
    AtLeast(f64),
}

impl Bound {
    /// Whether `ratio` satisfies the bound.
    pub fn holds(self, ratio: f64) -> bool {
        match self {
            Bound::AtMost(limit) => ratio <= limit,
            Bound::AtLeast(limit) => ratio >= limit,
        }
    }
}

/// The groups of the suite, with the contended ones named for `threads` threads.
pub fn groups(threads: usize) -> Vec<Group> {
    let group = |name: String, ours, title: String| Group { name, ours, title };
    vec![
        group(
            "plugin_counter_1t".into(),
            "runtime_family",
            "Counter increment through a run-time (plug-in) family's handle, 1 thread".into(),
        ),
        group(
            "plugin_histogram_1t".into(),
            "runtime_family",
            "Histogram observe through a run-time (plug-in) family's handle, 1 thread".into(),
        ),
        group(
            "counter_1t".into(),
            "cached_handle",
            "Counter increment, 1 thread".into(),
        ),
        group(
            "timer_1t".into(),
            "ours",
            "Timing a span into a histogram (two clock reads and an observe), 1 thread".into(),
        ),
        group(
            format!("counter_{threads}t"),
            "cached_handle",
            format!("Counter increment, {threads} threads, same series"),
        ),
        group(
            "histogram_1t".into(),
            "ours",
            "Histogram observe (ITL buckets), 1 thread".into(),
        ),
        group(
            format!("histogram_{threads}t"),
            "ours",
            format!("Histogram observe (ITL buckets), {threads} threads, same series"),
        ),
        group(
            format!("classic_sharing_{threads}t"),
            "one_series",
            format!("Histogram observe, {threads} threads: one series against a series each"),
        ),
        group(
            format!("native_sharing_{threads}t"),
            "one_series",
            format!(
                "Native histogram observe, {threads} threads: one series against a series each"
            ),
        ),
        group(
            "axes_1t".into(),
            "grid_2",
            "Counter increment on fixed label axes, 1 thread".into(),
        ),
        group(
            "idle_expiry_1t".into(),
            "kept_handle",
            "Dynamic counter record with and without an idle timeout, 1 thread".into(),
        ),
        group(
            "itl_record_1t".into(),
            "local",
            "Inter-token latency record, 1 thread (one request)".into(),
        ),
        group(
            format!("itl_record_{threads}t"),
            "local",
            format!("Inter-token latency record, {threads} threads (a request each), same series"),
        ),
        group(
            "request_lifecycle".into(),
            "ours",
            "Request lifecycle (128 outputs)".into(),
        ),
        group(
            "scrape_while_recording".into(),
            "with_scraper",
            "Request lifecycle CPU time on 2 recording threads, with a third scraping 64 engines"
                .into(),
        ),
        group(
            format!("request_lifecycle_{threads}t"),
            "ours",
            format!("Request lifecycle (128 outputs), {threads} threads, same engine"),
        ),
        group(
            "scheduler_stats".into(),
            "ours",
            "One SchedulerStats record".into(),
        ),
        group(
            format!("scheduler_stats_{threads}t"),
            "slot_engines",
            format!("A light SchedulerStats record, {threads} threads, an engine each"),
        ),
        group(
            "encode_1_engines".into(),
            "ours",
            "Encode the registry (OpenMetrics), 1 engine".into(),
        ),
        group(
            "encode_8_engines".into(),
            "ours",
            "Encode the registry (OpenMetrics), 8 engines".into(),
        ),
        group(
            "encode_64_engines".into(),
            "ours",
            "Encode the registry (OpenMetrics), 64 engines".into(),
        ),
        group(
            "bucket_search_5".into(),
            "linear_count",
            "Bucket search, 5 bounds (PARAMS_N)".into(),
        ),
        group(
            "bucket_search_13".into(),
            "linear_count",
            "Bucket search, 13 bounds (ITERATION_TOKENS)".into(),
        ),
        group(
            "bucket_search_19".into(),
            "linear_count",
            "Bucket search, 19 bounds (ITL)".into(),
        ),
        group(
            "bucket_search_22".into(),
            "linear_count",
            "Bucket search, 22 bounds (TTFT)".into(),
        ),
        group(
            "bucket_search_64".into(),
            "linear_count",
            "Bucket search, 64 bounds".into(),
        ),
        group(
            format!("separate_counters_{threads}t"),
            "cached_handle",
            format!("Counter increment, {threads} threads, one series each"),
        ),
        group(
            format!("separate_histograms_{threads}t"),
            "ours",
            format!("Histogram observe, {threads} threads, one series each"),
        ),
        group(
            "facade_counter_1t".into(),
            "facade_handle",
            "`metrics` facade counter increment (kept handle, then a lookup a call), 1 thread"
                .into(),
        ),
        group(
            "facade_histogram_1t".into(),
            "facade_handle",
            "`metrics` facade histogram record through a kept handle, 1 thread".into(),
        ),
        group(
            format!("facade_histogram_{threads}t"),
            "facade_handle",
            format!("`metrics` facade histogram record through a kept handle, {threads} threads, same series"),
        ),
    ]
    .into_iter()
    .chain(SAME_SHAPE.iter().map(|&(name, label_sets, format)| {
        group(
            name.into(),
            "ours",
            format!("Encoding the same shape, {label_sets} label sets, {format}"),
        )
    }))
    .collect()
}

/// The same-shape encode groups: name, label sets, format.
pub const SAME_SHAPE: [(&str, u32, &str); 4] = [
    ("encode_same_shape_64_openmetrics", 64, "OpenMetrics"),
    ("encode_same_shape_64_text", 64, "text 0.0.4"),
    ("encode_same_shape_1024_openmetrics", 1024, "OpenMetrics"),
    ("encode_same_shape_1024_text", 1024, "text 0.0.4"),
];

/// The same-shape groups whose histograms are all recorded into before each scrape (the
/// groups of [`SAME_SHAPE`] scrape series that stay as they are between scrapes).
pub const SAME_SHAPE_BUSY_ALL: [&str; 2] = [
    "encode_same_shape_64_openmetrics_busy",
    "encode_same_shape_1024_openmetrics_busy",
];

/// The busy group at 1,024 label sets.
pub const SAME_SHAPE_BUSY: &str = SAME_SHAPE_BUSY_ALL[1];

/// The id of prometheus-client's encoder in the same-shape groups.
pub const PC_ENCODE: &str = "prometheus_client";

/// How many times faster per byte ours encodes than prometheus-client in `group`: their
/// time per byte over ours (each id's bytes are its criterion throughput).
pub fn per_byte_speedup(dir: &Path, group: &str) -> Option<f64> {
    let per_byte = |id| Some(median_ns(dir, group, id)? / throughput_bytes(dir, group, id)?);
    Some(per_byte(PC_ENCODE)? / per_byte("ours")?)
}

/// The bytes per iteration benchmark `group/id` declared (criterion's `Throughput::Bytes`).
pub fn throughput_bytes(dir: &Path, group: &str, id: &str) -> Option<f64> {
    let path = dir.join(group).join(id).join("new").join("benchmark.json");
    let text = std::fs::read_to_string(path).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    value.get("throughput")?.get("Bytes")?.as_f64()
}

/// `encode_same_shape: ours is N.NNx faster per byte than prometheus-client` (the smallest
/// speed-up over the sizes and formats that ran), then each group's; empty if none ran.
pub fn same_shape_lines(dir: &Path) -> String {
    let speedups: Vec<(&str, f64)> = SAME_SHAPE
        .iter()
        .filter_map(|&(name, _, _)| Some((name, per_byte_speedup(dir, name)?)))
        .collect();
    let Some(least) = speedups.iter().map(|(_, x)| *x).reduce(f64::min) else {
        return String::new();
    };
    let mut out =
        format!("encode_same_shape: ours is {least:.2}x faster per byte than prometheus-client\n");
    for (name, speedup) in speedups {
        let _ = writeln!(out, "  {name}: {speedup:.2}x per byte");
    }
    for group in SAME_SHAPE_BUSY_ALL {
        if let Some(busy) = per_byte_speedup(dir, group) {
            let _ = writeln!(
                out,
                "  {group}: {busy:.2}x per byte (every histogram recorded into before each scrape)"
            );
        }
    }
    out
}

/// The scrape groups of the shape recorded through the `metrics` facade, and what each
/// scrapes.
pub const FACADE_SCRAPE: [(&str, &str); 2] = [
    ("facade_scrape_64_text", "series idle between scrapes"),
    (
        "facade_scrape_64_text_busy",
        "every histogram recorded into before each scrape",
    ),
];

/// One line per facade scrape group that ran: how many times faster per byte our scrape of
/// the facade's families is than metrics-exporter-prometheus's render, and its time per byte
/// against the same families declared with the derive; then whether the targets hold.
pub fn facade_scrape_lines(dir: &Path) -> String {
    let mut out = String::new();
    for (group, scraped) in FACADE_SCRAPE {
        let per_byte = |id| Some(median_ns(dir, group, id)? / throughput_bytes(dir, group, id)?);
        let (Some(ours), Some(exporter), Some(derived)) = (
            per_byte("ours"),
            per_byte("metrics_exporter_prometheus"),
            per_byte("derived"),
        ) else {
            continue;
        };
        let (speedup, to_derived) = (exporter / ours, ours / derived);
        let verdict = |holds: bool| if holds { "met" } else { "MISSED" };
        let _ = writeln!(
            out,
            "{group} ({scraped}): {speedup:.2}x faster per byte than metrics-exporter-prometheus \
             (target >= 10x: {}), {to_derived:.2}x the derived families' time per byte \
             (target <= 1.5x: {})",
            verdict(speedup >= 10.0),
            verdict(to_derived <= 1.5)
        );
    }
    out
}

/// The same-shape protobuf groups and their label sets.
pub const SAME_SHAPE_PROTOBUF: [(&str, u32); 2] = [
    ("encode_same_shape_64_protobuf", 64),
    ("encode_same_shape_1024_protobuf", 1024),
];

/// One line per same-shape protobuf group that ran: how many times faster ours writes the
/// protobuf than prometheus-client's protobuf encoder, and than our own OpenMetrics text of
/// the same registry (times, not per byte: the three bodies differ in size by design).
pub fn same_shape_protobuf_lines(dir: &Path) -> String {
    let mut out = String::new();
    for (group, _) in SAME_SHAPE_PROTOBUF {
        let time = |id| median_ns(dir, group, id);
        let (Some(ours), Some(theirs), Some(text)) =
            (time("ours"), time(PC_ENCODE), time("ours_openmetrics"))
        else {
            continue;
        };
        let _ = writeln!(
            out,
            "{group}: ours is {:.2}x faster than prometheus-client's protobuf, {:.2}x faster than our OpenMetrics",
            theirs / ours,
            text / ours
        );
    }
    out
}

/// The protobuf groups of the shape with native buckets beside the classic ones (64 label
/// sets), and what each scrapes.
pub const NATIVE_PROTOBUF: [(&str, &str); 2] = [
    ("encode_native_64_protobuf", "series idle between scrapes"),
    (
        "encode_native_64_protobuf_busy",
        "every histogram recorded into before each scrape",
    ),
];

/// One line per native protobuf group that ran: how many times faster ours writes it than
/// prometheus-client's protobuf encoder over its `new_classic_and_native` histograms.
pub fn native_protobuf_lines(dir: &Path) -> String {
    let mut out = String::new();
    for (group, scraped) in NATIVE_PROTOBUF {
        let (Some(ours), Some(theirs)) = (
            median_ns(dir, group, "ours"),
            median_ns(dir, group, PC_ENCODE),
        ) else {
            continue;
        };
        let _ = writeln!(
            out,
            "{group}: ours is {:.2}x faster than prometheus-client's protobuf ({scraped})",
            theirs / ours
        );
    }
    out
}

/// The performance targets the library is held to (`docs/benchmarks.md`).
pub fn targets(threads: usize) -> Vec<Target> {
    let target = |group: String, subject, reference, bound, label| Target {
        group,
        subject,
        reference,
        bound,
        label,
    };
    vec![
        target(
            "plugin_counter_1t".into(),
            "runtime_family",
            "derived",
            Bound::AtMost(1.25),
            "run-time family counter inc <= 1.25x a derived one's",
        ),
        target(
            "plugin_histogram_1t".into(),
            "runtime_family",
            "derived",
            Bound::AtMost(1.25),
            "run-time family histogram observe <= 1.25x a derived one's",
        ),
        target(
            "counter_1t".into(),
            "cached_handle",
            "raw_atomic",
            Bound::AtMost(1.25),
            "cached counter inc <= 1.25x raw atomic add",
        ),
        target(
            "counter_1t".into(),
            "pc_get_or_create",
            "cached_handle",
            Bound::AtLeast(15.0),
            "cached counter inc >= 15x faster than get_or_create",
        ),
        target(
            "timer_1t".into(),
            "ours",
            "clock_and_observe",
            Bound::AtMost(1.2),
            "timer observe <= 1.2x a direct observe of a clock difference",
        ),
        target(
            "axes_1t".into(),
            "grid_2",
            "cached_handle",
            Bound::AtMost(1.2),
            "2-axis grid record <= 1.2x a single cached counter",
        ),
        target(
            "idle_expiry_1t".into(),
            "kept_handle_expiring",
            "kept_handle",
            Bound::AtMost(1.1),
            "record through a kept handle, idle timeout on <= 1.1x off",
        ),
        target(
            "idle_expiry_1t".into(),
            "lookup_expiring",
            "lookup",
            Bound::AtMost(1.1),
            "Dynamic lookup and record, idle timeout on <= 1.1x off",
        ),
        target(
            "histogram_1t".into(),
            "pc_histogram",
            "ours",
            Bound::AtLeast(2.0),
            "histogram observe >= 2x faster than prometheus-client, 1 thread",
        ),
        target(
            format!("histogram_{threads}t"),
            "pc_histogram",
            "ours",
            Bound::AtLeast(3.0),
            "histogram observe >= 3x faster than prometheus-client, contended",
        ),
        target(
            "native_histogram_1t".into(),
            "pc_native",
            "ours_native",
            Bound::AtLeast(2.0),
            "native observe >= 2x faster than prometheus-client, 1 thread",
        ),
        target(
            "native_histogram_1t".into(),
            "pc_classic_and_native",
            "ours_classic_and_native",
            Bound::AtLeast(2.0),
            "classic+native >= 2x faster than prometheus-client, 1 thread",
        ),
        target(
            format!("native_histogram_{threads}t"),
            "pc_native",
            "ours_native",
            Bound::AtLeast(5.0),
            "native observe >= 5x faster than prometheus-client, contended",
        ),
        target(
            format!("native_histogram_{threads}t"),
            "pc_classic_and_native",
            "ours_classic_and_native",
            Bound::AtLeast(5.0),
            "classic+native >= 5x faster than prometheus-client, contended",
        ),
        target(
            "itl_record_1t".into(),
            "local",
            "shared_handle",
            Bound::AtMost(0.5),
            "ITL record, local view <= half the shared handle's time",
        ),
        target(
            "itl_record_1t".into(),
            "local",
            "vllm_batched",
            Bound::AtMost(1.0),
            "ITL record, local view no slower than vLLM's batched ITL",
        ),
        target(
            "request_lifecycle".into(),
            "lookup_baseline",
            "ours",
            Bound::AtLeast(5.0),
            "request lifecycle >= 5x faster than per-record lookups",
        ),
        target(
            format!("request_lifecycle_{threads}t"),
            "lookup_baseline",
            "ours",
            Bound::AtLeast(8.0),
            "request lifecycle >= 8x faster than per-record lookups, contended",
        ),
        target(
            "scrape_while_recording".into(),
            "with_scraper",
            "recording_alone",
            Bound::AtMost(1.10),
            "recording CPU time with a concurrent scraper <= 1.10x alone",
        ),
        target(
            format!("scheduler_stats_{threads}t"),
            "engines_past_slots",
            "slot_engines",
            Bound::AtMost(1.25),
            "record of an engine past the slots <= 1.25x a slot engine's",
        ),
        target(
            "facade_counter_1t".into(),
            "facade_handle",
            "cached_handle",
            Bound::AtMost(1.2),
            "facade counter through a kept handle <= 1.2x our cached counter",
        ),
        target(
            "facade_counter_1t".into(),
            "facade_lookup",
            "metrics_util_lookup",
            Bound::AtMost(1.0),
            "facade macro path (a lookup a call) no slower than metrics-util's registry",
        ),
        target(
            "facade_histogram_1t".into(),
            "exporter_handle",
            "facade_handle",
            Bound::AtLeast(3.0),
            "facade histogram record >= 3x faster than metrics-exporter-prometheus, 1 thread",
        ),
        target(
            format!("facade_histogram_{threads}t"),
            "exporter_handle",
            "facade_handle",
            Bound::AtLeast(3.0),
            "facade histogram record >= 3x faster than metrics-exporter-prometheus, contended",
        ),
    ]
}

/// Where criterion keeps its results: `CRITERION_HOME`, else `criterion/` under
/// `CARGO_TARGET_DIR` or this crate's `target/` (criterion's own rule).
pub fn default_criterion_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    target.join("criterion")
}

/// The median (ns) of benchmark `group/id` from criterion's last run, if it ran.
pub fn median_ns(dir: &Path, group: &str, id: &str) -> Option<f64> {
    let path = dir.join(group).join(id).join("new").join("estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    parse_median(&text)
}

/// Extracts `median.point_estimate` from an `estimates.json`.
pub fn parse_median(json: &str) -> Option<f64> {
    let value: serde_json::Value = serde_json::from_str(json).ok()?;
    value.get("median")?.get("point_estimate")?.as_f64()
}

/// The ids of every benchmark of `group` that ran, sorted.
pub fn ids(dir: &Path, group: &str) -> Vec<String> {
    let mut ids: Vec<String> = std::fs::read_dir(dir.join(group))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| entry.path().join("new").join("estimates.json").is_file())
        .filter_map(|entry| entry.file_name().into_string().ok())
        .collect();
    ids.sort();
    ids
}

/// The groups whose `ours` ran, each with that median (ns): what every comparison divides by.
fn groups_that_ran(dir: &Path, threads: usize) -> impl Iterator<Item = (Group, f64)> + '_ {
    groups(threads).into_iter().filter_map(|group| {
        let ours = median_ns(dir, &group.name, group.ours)?;
        Some((group, ours))
    })
}

/// One line per alternative of every group that ran: `group: ours vs id`, medians and ratio.
pub fn lines(dir: &Path, threads: usize) -> String {
    let mut out = String::new();
    for (group, ours) in groups_that_ran(dir, threads) {
        for id in ids(dir, &group.name) {
            if id == group.ours {
                continue;
            }
            if let Some(other) = median_ns(dir, &group.name, &id) {
                let _ = writeln!(
                    out,
                    "{:<16} {:<14} {:>9.2} ns  vs {:<30} {:>9.2} ns  = {}",
                    group.name,
                    group.ours,
                    ours,
                    id,
                    other,
                    describe(other / ours)
                );
            }
        }
    }
    out
}

/// "ours is 3.10x faster" / "ours is 1.20x slower" for `other / ours`.
pub fn describe(ratio: f64) -> String {
    if ratio >= 1.0 {
        format!("ours {ratio:.2}x faster")
    } else {
        format!("ours {:.2}x slower", 1.0 / ratio)
    }
}

/// The targets that could be checked, one line each, with "met" or "MISSED".
pub fn target_lines(dir: &Path, threads: usize) -> String {
    let mut out = String::new();
    for target in targets(threads) {
        let subject = median_ns(dir, &target.group, target.subject);
        let reference = median_ns(dir, &target.group, target.reference);
        let line = match (subject, reference) {
            (Some(s), Some(r)) => {
                let ratio = s / r;
                let verdict = if target.bound.holds(ratio) {
                    "met"
                } else {
                    "MISSED"
                };
                format!("{:<66} {:>6.2}x  {verdict}", target.label, ratio)
            }
            _ => format!("{:<66}    n/a  (not run)", target.label),
        };
        let _ = writeln!(out, "{line}");
    }
    for (name, label_sets, format) in SAME_SHAPE {
        let label = format!("encode {label_sets} label sets, {format}, >= 3x faster per byte");
        let line = match per_byte_speedup(dir, name) {
            Some(speedup) => {
                let verdict = if Bound::AtLeast(3.0).holds(speedup) {
                    "met"
                } else {
                    "MISSED"
                };
                format!("{label:<66} {speedup:>6.2}x  {verdict}")
            }
            None => format!("{label:<66}    n/a  (not run)"),
        };
        let _ = writeln!(out, "{line}");
    }
    out
}

/// Markdown tables of every group that ran: implementation, median, ratio to ours.
pub fn markdown(dir: &Path, threads: usize) -> String {
    let mut out = String::new();
    for (group, ours) in groups_that_ran(dir, threads) {
        let _ = writeln!(out, "### {} (`{}`)\n", group.title, group.name);
        let _ = writeln!(out, "| implementation | median ns/op | time / ours |");
        let _ = writeln!(out, "|---|---:|---:|");
        let mut rows: Vec<(String, f64)> = ids(dir, &group.name)
            .into_iter()
            .filter_map(|id| median_ns(dir, &group.name, &id).map(|m| (id, m)))
            .collect();
        rows.sort_by(|a, b| a.1.total_cmp(&b.1));
        for (id, median) in rows {
            let name = if id == group.ours {
                format!("**{id}** (ours)")
            } else {
                format!("`{id}`")
            };
            let _ = writeln!(out, "| {name} | {median:.2} | {:.2}x |", median / ours);
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_is_read_from_criterion_estimates() {
        let json = r#"{"mean":{"point_estimate":2.5},"median":{"point_estimate":1.75}}"#;
        assert_eq!(parse_median(json), Some(1.75));
        assert_eq!(parse_median(r#"{"mean":{"point_estimate":2.5}}"#), None);
        assert_eq!(parse_median("not json"), None);
    }

    #[test]
    fn bounds_and_descriptions() {
        assert!(Bound::AtMost(1.25).holds(1.25));
        assert!(!Bound::AtMost(1.25).holds(1.3));
        assert!(Bound::AtLeast(15.0).holds(20.0));
        assert!(!Bound::AtLeast(15.0).holds(14.9));
        assert_eq!(describe(4.0), "ours 4.00x faster");
        assert_eq!(describe(0.5), "ours 2.00x slower");
    }

    /// A criterion directory holding the medians `(group, id, median)`, as `cargo bench`
    /// leaves it.
    fn criterion_dir(name: &str, medians: &[(&str, &str, f64)]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("bench-report-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (group, id, median) in medians {
            let new = dir.join(group).join(id).join("new");
            std::fs::create_dir_all(&new).unwrap();
            let json = format!(r#"{{"median":{{"point_estimate":{median}}}}}"#);
            std::fs::write(new.join("estimates.json"), json).unwrap();
        }
        dir
    }

    /// Only the groups whose `ours` ran are reported, every other id against it.
    #[test]
    fn lines_and_tables_compare_every_id_with_ours() {
        let dir = criterion_dir(
            "compare",
            &[
                ("counter_1t", "cached_handle", 2.0),
                ("counter_1t", "raw_atomic", 1.0),
                ("counter_1t", "pc_get_or_create", 40.0),
                ("histogram_1t", "pc_histogram", 9.0),
            ],
        );
        let lines = lines(&dir, 2);
        assert_eq!(lines.lines().count(), 2, "{lines}");
        assert!(lines.contains("vs pc_get_or_create"), "{lines}");
        assert!(lines.contains("= ours 20.00x faster"), "{lines}");
        assert!(lines.contains("= ours 2.00x slower"), "{lines}");
        assert!(!lines.contains("histogram"), "{lines}");

        let table = markdown(&dir, 2);
        assert_eq!(
            table,
            "### Counter increment, 1 thread (`counter_1t`)\n\n\
             | implementation | median ns/op | time / ours |\n\
             |---|---:|---:|\n\
             | `raw_atomic` | 1.00 | 0.50x |\n\
             | **cached_handle** (ours) | 2.00 | 1.00x |\n\
             | `pc_get_or_create` | 40.00 | 20.00x |\n\n"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_protobuf_line_compares_ours_with_prometheus_client_and_our_text() {
        let group = "encode_same_shape_64_protobuf";
        let dir = criterion_dir(
            "same-shape-protobuf",
            &[
                (group, "ours", 2.0),
                (group, PC_ENCODE, 6.0),
                (group, "ours_openmetrics", 2.5),
            ],
        );
        assert_eq!(
            same_shape_protobuf_lines(&dir),
            "encode_same_shape_64_protobuf: ours is 3.00x faster than prometheus-client's protobuf, 1.25x faster than our OpenMetrics\n"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_native_protobuf_lines_compare_ours_with_prometheus_client_idle_and_busy() {
        let (idle, busy) = (NATIVE_PROTOBUF[0].0, NATIVE_PROTOBUF[1].0);
        let dir = criterion_dir(
            "native-protobuf",
            &[
                (idle, "ours", 1.0),
                (idle, PC_ENCODE, 4.0),
                (busy, "ours", 4.0),
                (busy, PC_ENCODE, 5.0),
            ],
        );
        assert_eq!(
            native_protobuf_lines(&dir),
            "encode_native_64_protobuf: ours is 4.00x faster than prometheus-client's protobuf (series idle between scrapes)\n\
             encode_native_64_protobuf_busy: ours is 1.25x faster than prometheus-client's protobuf (every histogram recorded into before each scrape)\n"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_same_shape_line_compares_time_per_byte_and_names_the_least_speed_up() {
        let dir = criterion_dir(
            "same-shape",
            &[
                ("encode_same_shape_64_text", "ours", 1.0),
                ("encode_same_shape_64_text", PC_ENCODE, 4.0),
                ("encode_same_shape_1024_text", "ours", 10.0),
                ("encode_same_shape_1024_text", PC_ENCODE, 30.0),
                (SAME_SHAPE_BUSY, "ours", 10.0),
                (SAME_SHAPE_BUSY, PC_ENCODE, 12.0),
            ],
        );
        let bytes = |group: &str, id: &str, bytes: u64| {
            let json = format!(r#"{{"throughput":{{"Bytes":{bytes}}}}}"#);
            std::fs::write(
                dir.join(group).join(id).join("new").join("benchmark.json"),
                json,
            )
            .unwrap();
        };
        bytes("encode_same_shape_64_text", "ours", 100);
        bytes("encode_same_shape_64_text", PC_ENCODE, 100);
        // prometheus-client wrote twice the bytes: per byte it is 1.5x slower, not 3x.
        bytes("encode_same_shape_1024_text", "ours", 1000);
        bytes("encode_same_shape_1024_text", PC_ENCODE, 2000);
        bytes(SAME_SHAPE_BUSY, "ours", 1000);
        bytes(SAME_SHAPE_BUSY, PC_ENCODE, 1000);
        let lines = same_shape_lines(&dir);
        assert!(same_shape_protobuf_lines(&dir).is_empty());
        assert!(native_protobuf_lines(&dir).is_empty());
        assert!(
            lines.starts_with(
                "encode_same_shape: ours is 1.50x faster per byte than prometheus-client\n"
            ),
            "{lines}"
        );
        assert!(
            lines.contains("encode_same_shape_64_text: 4.00x"),
            "{lines}"
        );
        // The busy group is shown beside the others, not folded into the least speed-up.
        assert!(
            lines.contains("encode_same_shape_1024_openmetrics_busy: 1.20x per byte"),
            "{lines}"
        );
        let targets = target_lines(&dir, 2);
        assert!(
            targets.contains("text 0.0.4, >= 3x faster per byte"),
            "{targets}"
        );
        assert_eq!(targets.matches("MISSED").count(), 1, "{targets}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn contended_groups_are_named_for_the_thread_count() {
        let names: Vec<String> = groups(4).into_iter().map(|g| g.name).collect();
        assert!(names.contains(&"counter_4t".to_owned()));
        assert!(names.contains(&"histogram_4t".to_owned()));
    }
}
