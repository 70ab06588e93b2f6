//! The memory benchmark's results: one figure per (kind of series, recording threads, crate),
//! the Markdown table of docs/benchmarks.md, the JSON file `bench-report` reads back, and the
//! memory targets.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

/// The kind name of the label set's own row.
pub const LABEL_SET: &str = "label set";

/// One measured figure.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The kind of series (`counter`, `classic histogram`, ..., or [`LABEL_SET`]).
    pub kind: String,
    /// How many threads recorded into every series.
    pub threads: usize,
    /// The crate (`ours`, `prometheus-client`, ...).
    pub krate: String,
    /// Live heap bytes per series.
    pub bytes: f64,
    /// Allocations per series.
    pub allocations: f64,
}

/// Every figure of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct Results {
    /// What `std::thread::available_parallelism` reported.
    pub cpus: usize,
    /// Series per measurement.
    pub series: usize,
    /// The figures.
    pub rows: Vec<Row>,
}

impl Results {
    /// The bytes per series of `kind` in `krate` recorded from `threads` threads, if measured.
    pub fn bytes(&self, kind: &str, threads: usize, krate: &str) -> Option<f64> {
        self.rows
            .iter()
            .find(|r| r.kind == kind && r.threads == threads && r.krate == krate)
            .map(|r| r.bytes)
    }

    /// The results as JSON.
    pub fn to_json(&self) -> String {
        let rows: Vec<Value> = self
            .rows
            .iter()
            .map(|r| {
                json!({
                    "kind": r.kind,
                    "threads": r.threads,
                    "crate": r.krate,
                    "bytes": r.bytes,
                    "allocations": r.allocations,
                })
            })
            .collect();
        let value = json!({ "cpus": self.cpus, "series": self.series, "rows": rows });
        serde_json::to_string_pretty(&value).unwrap_or_default()
    }

    /// Results read back from [`to_json`](Self::to_json)'s text.
    pub fn from_json(text: &str) -> Option<Results> {
        let value: Value = serde_json::from_str(text).ok()?;
        let count = |v: &Value| v.as_u64().and_then(|n| usize::try_from(n).ok());
        let rows = value["rows"]
            .as_array()?
            .iter()
            .map(|r| {
                Some(Row {
                    kind: r["kind"].as_str()?.to_owned(),
                    threads: count(&r["threads"])?,
                    krate: r["crate"].as_str()?.to_owned(),
                    bytes: r["bytes"].as_f64()?,
                    allocations: r["allocations"].as_f64()?,
                })
            })
            .collect::<Option<Vec<Row>>>()?;
        Some(Results {
            cpus: count(&value["cpus"])?,
            series: count(&value["series"])?,
            rows,
        })
    }

    /// One Markdown table: a row per kind and thread count, a column per crate (bytes per
    /// series, allocations per series in brackets), and ours against prometheus-client.
    pub fn markdown(&self, kinds: &[&str], crates: &[&str]) -> String {
        let mut out = String::new();
        let _ = write!(out, "| series | threads |");
        for krate in crates {
            let _ = write!(out, " {krate} |");
        }
        let _ = writeln!(out, " ours / prometheus-client |");
        let _ = write!(out, "|---|---:|");
        for _ in crates {
            let _ = write!(out, "---:|");
        }
        let _ = writeln!(out, "---:|");
        for kind in kinds {
            for threads in [1, 2] {
                if !self
                    .rows
                    .iter()
                    .any(|r| r.kind == *kind && r.threads == threads)
                {
                    continue;
                }
                let _ = write!(out, "| {kind} | {threads} |");
                for krate in crates {
                    let row = self
                        .rows
                        .iter()
                        .find(|r| r.kind == *kind && r.threads == threads && r.krate == *krate);
                    match row {
                        Some(r) => {
                            let _ = write!(out, " {:.0} ({:.1}) |", r.bytes, r.allocations);
                        }
                        None => out.push_str(" n/a |"),
                    }
                }
                match ratio(
                    self.bytes(kind, threads, "ours"),
                    self.bytes(kind, threads, "prometheus-client"),
                ) {
                    Some(r) => {
                        let _ = writeln!(out, " {r:.2}x |");
                    }
                    None => out.push_str(" n/a |\n"),
                }
            }
        }
        out
    }
}

fn ratio(subject: Option<f64>, reference: Option<f64>) -> Option<f64> {
    match (subject, reference) {
        (Some(s), Some(r)) if r > 0.0 => Some(s / r),
        _ => None,
    }
}

/// Where the `memory` binary writes the results of a run at `cpus` cores: `memory/` under
/// `CARGO_TARGET_DIR` or this crate's `target/`.
pub fn results_path(cpus: usize) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    target.join("memory").join(format!("cpus-{cpus}.json"))
}

/// The core count the memory targets are stated at.
pub const TARGET_CPUS: usize = 64;

/// A memory target: `subject`'s bytes per series over `reference`'s, at most `bound`.
struct MemoryTarget {
    label: &'static str,
    subject: (&'static str, usize, &'static str),
    reference: (&'static str, usize, &'static str),
    bound: f64,
}

const MEMORY_TARGETS: [MemoryTarget; 9] = [
    MemoryTarget {
        label: "classic histogram <= 1.0x prometheus-client",
        subject: ("classic histogram", 1, "ours"),
        reference: ("classic histogram", 1, "prometheus-client"),
        bound: 1.0,
    },
    MemoryTarget {
        label: "classic + native (8 buckets) <= 1.0x prometheus-client",
        subject: ("classic + native", 1, "ours"),
        reference: ("classic + native", 1, "prometheus-client"),
        bound: 1.0,
    },
    MemoryTarget {
        label: "counter <= 1.5x prometheus-client",
        subject: ("counter", 1, "ours"),
        reference: ("counter", 1, "prometheus-client"),
        bound: 1.5,
    },
    MemoryTarget {
        label: "classic histogram, contended (2 threads) <= 4x uncontended",
        subject: ("classic histogram", 2, "ours"),
        reference: ("classic histogram", 1, "ours"),
        bound: 4.0,
    },
    MemoryTarget {
        label: "classic + native, contended (2 threads) <= 4x uncontended",
        subject: ("classic + native", 2, "ours"),
        reference: ("classic + native", 1, "ours"),
        bound: 4.0,
    },
    MemoryTarget {
        label: "native only, contended (2 threads) <= 4x uncontended",
        subject: ("native only", 2, "ours"),
        reference: ("native only", 1, "ours"),
        bound: 4.0,
    },
    MemoryTarget {
        label: "counter via metrics <= 1.0x metrics-exporter-prometheus",
        subject: ("counter", 1, "ours via metrics"),
        reference: ("counter", 1, "metrics-exporter-prometheus"),
        bound: 1.0,
    },
    MemoryTarget {
        label: "gauge via metrics <= 1.0x metrics-exporter-prometheus",
        subject: ("gauge", 1, "ours via metrics"),
        reference: ("gauge", 1, "metrics-exporter-prometheus"),
        bound: 1.0,
    },
    MemoryTarget {
        label: "classic histogram via metrics <= 1.0x metrics-exporter-prometheus",
        subject: ("classic histogram", 1, "ours via metrics"),
        reference: ("classic histogram", 1, "metrics-exporter-prometheus"),
        bound: 1.0,
    },
];

/// One line per memory target, as `bench-report` prints the timing targets: the ratio of
/// bytes per series and `met` or `MISSED`, or `n/a` without results (`results` is those of
/// a run at [`TARGET_CPUS`] cores).
pub fn target_lines(results: Option<&Results>) -> String {
    let mut out = String::new();
    for target in &MEMORY_TARGETS {
        let label = format!("memory, {TARGET_CPUS} cores: {}", target.label);
        let found = results.and_then(|r| {
            let (kind, threads, krate) = target.subject;
            let (ref_kind, ref_threads, ref_krate) = target.reference;
            ratio(
                r.bytes(kind, threads, krate),
                r.bytes(ref_kind, ref_threads, ref_krate),
            )
        });
        let line = match found {
            Some(ratio) => {
                let verdict = if ratio <= target.bound {
                    "met"
                } else {
                    "MISSED"
                };
                format!("{label:<72} {ratio:>6.2}x  {verdict}")
            }
            None => format!("{label:<72}    n/a  (scripts/bench-memory.sh not run)"),
        };
        let _ = writeln!(out, "{line}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(kind: &str, threads: usize, krate: &str, bytes: f64) -> Row {
        Row {
            kind: kind.to_owned(),
            threads,
            krate: krate.to_owned(),
            bytes,
            allocations: 2.0,
        }
    }

    fn sample() -> Results {
        Results {
            cpus: 64,
            series: 2000,
            rows: vec![
                row("counter", 1, "ours", 150.0),
                row("counter", 1, "prometheus-client", 100.0),
                row("classic histogram", 1, "ours", 900.0),
                row("classic histogram", 1, "prometheus-client", 1000.0),
                row("classic histogram", 2, "ours", 4000.0),
            ],
        }
    }

    #[test]
    fn results_survive_their_json() {
        let results = sample();
        assert_eq!(Results::from_json(&results.to_json()), Some(results));
        assert_eq!(Results::from_json("{}"), None);
    }

    #[test]
    fn targets_state_the_ratio_and_whether_it_is_met() {
        let text = target_lines(Some(&sample()));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), MEMORY_TARGETS.len());
        assert!(lines[0].contains("0.90x  met"), "{}", lines[0]);
        assert!(lines[1].contains("n/a"), "{}", lines[1]);
        // 1.5x is within a bound of 1.5x.
        assert!(lines[2].contains("1.50x  met"), "{}", lines[2]);
        assert!(lines[3].contains("4.44x  MISSED"), "{}", lines[3]);
        assert!(target_lines(None).lines().all(|l| l.contains("n/a")));
    }

    #[test]
    fn the_table_has_a_row_per_kind_and_thread_count_measured() {
        let table = sample().markdown(
            &["counter", "classic histogram"],
            &["ours", "prometheus-client"],
        );
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 2 + 3, "{table}");
        assert_eq!(lines[2], "| counter | 1 | 150 (2.0) | 100 (2.0) | 1.50x |");
        assert_eq!(
            lines[4],
            "| classic histogram | 2 | 4000 (2.0) | n/a | n/a |"
        );
    }
}
