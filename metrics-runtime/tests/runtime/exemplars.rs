//! Exemplars recorded through derived handles come out of an OpenMetrics scrape as parsers
//! read them: Python's prometheus_client OpenMetrics parser reads each back with its labels,
//! value and timestamp, and promtool imports the exposition (its OpenMetrics parser). The
//! classic text carries none.
//!
//! The exposition Python reads holds no exemplar label value with a `"`: prometheus_client's
//! parser (0.26) refuses an exemplar whose label value has an escaped quote
//! (`# {t="a\"b"}`, valid OpenMetrics). promtool reads one, and the escaping is checked byte
//! for byte against prometheus-client's encoder in the crate's own tests.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, UNIX_EPOCH};

use crate::support::exposition::{encode_openmetrics, encode_text};
use crate::support::external_tool::{available_or_skip, runs};
use metric_handles::{ByLabel, Counter, Family, Histogram, LabelEnum, LabelSet, MetricHandles};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Model {
    pub model_name: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "snake_case")]
pub enum Finish {
    Stop,
    Length,
}

#[derive(Debug, MetricHandles)]
#[metric_handles(labels = Model)]
pub struct ServingMetrics {
    /// Generated tokens
    #[metric(name = "ex:generation_tokens")]
    pub tokens: Family<Model, Counter>,
    /// Finished requests, by reason
    #[metric(name = "ex:request_success", label = "finished_reason")]
    pub finished: Family<Model, ByLabel<Finish, Counter>>,
    /// Time to first token
    #[metric(name = "ex:time_to_first_token", unit = "seconds", buckets = [0.1, 0.5, 1.0])]
    pub ttft: Family<Model, Histogram>,
    /// Inter-token latency, native buckets beside classic ones
    #[metric(name = "ex:inter_token_latency", unit = "seconds", buckets = [0.01, 0.1], native)]
    pub itl: Family<Model, Histogram>,
}

/// Seconds after the epoch of the exemplars recorded here.
const T0: u64 = 1_700_000_000;

/// The exposition of one model's handles, each recorded with exemplars stamped `T0 + k` (the
/// later exemplar of a bucket replacing the earlier), and one series without any, or with
/// `quoted` one whose exemplar label value holds a `"`, a `\` and a line feed.
fn scrape(quoted: bool) -> (metric_handles::Registry, String) {
    let mut registry = metric_handles::Registry::default();
    let metrics = ServingMetrics::register(&mut registry);
    let at = |k: u64| UNIX_EPOCH + Duration::from_millis(1000 * T0 + 250 * k);
    let llama = metrics.resolve(&Model {
        model_name: "llama".into(),
    });
    llama
        .tokens
        .inc_by_with_exemplar_at(12, &[("trace_id", "aa11")], at(1))
        .unwrap();
    llama
        .finished
        .get(Finish::Length)
        .inc_by_with_exemplar_at(1, &[("trace_id", "bb22"), ("span_id", "é-x")], at(2))
        .unwrap();
    llama
        .ttft
        .observe_with_exemplar_at(0.3, &[("trace_id", "old")], at(3))
        .unwrap();
    llama
        .ttft
        .observe_with_exemplar_at(0.4, &[("trace_id", "cc33")], at(4))
        .unwrap();
    llama
        .ttft
        .observe_with_exemplar_at(2.5, &[("trace_id", "dd44")], at(5))
        .unwrap();
    let mut request = llama.itl.local();
    request
        .observe_with_exemplar_at(0.05, &[("trace_id", "ee55")], at(6))
        .unwrap();
    drop(request);
    let quiet = metrics.resolve(&Model {
        model_name: "quiet".into(),
    });
    if quoted {
        quiet
            .tokens
            .inc_by_with_exemplar_at(1, &[("note", "a\"b\\c\nd")], at(7))
            .unwrap();
    } else {
        quiet.tokens.inc();
    }
    let text = encode_openmetrics(&registry);
    (registry, text)
}

/// Prints, for every sample with an exemplar, `sample labels | exemplar labels | value |
/// timestamp`, labels as sorted `k=v` joined by `,`.
const READ_EXEMPLARS: &str = r#"
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
def labels(d):
    return ",".join(f"{k}={v}" for k, v in sorted(d.items()))
for family in text_string_to_metric_families(sys.stdin.read()):
    for s in family.samples:
        if s.exemplar is not None:
            e = s.exemplar
            print(f"{s.name}{{{labels(s.labels)}}}|{labels(e.labels)}|{e.value!r}|{float(e.timestamp)!r}")
"#;

#[test]
fn pythons_openmetrics_parser_reads_the_exemplars_back() {
    if !available_or_skip(
        runs("python3", &["-c", "import prometheus_client"]),
        "pythons_openmetrics_parser_reads_the_exemplars_back",
        "python3 with prometheus_client",
        "PyPI package prometheus_client",
    ) {
        return;
    }
    let (_, text) = scrape(false);
    let mut child = Command::new("python3")
        .args(["-c", READ_EXEMPLARS])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start python3");
    std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), text.as_bytes())
        .expect("feed python3");
    let out = child.wait_with_output().expect("python3 output");
    assert!(
        out.status.success(),
        "prometheus_client rejected the exposition:\n{}\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut read: Vec<String> = String::from_utf8(out.stdout)
        .expect("utf-8")
        .lines()
        .map(str::to_owned)
        .collect();
    read.sort();
    let mut expected = vec![
        "ex:generation_tokens_total{model_name=llama}|trace_id=aa11|12.0|1700000000.25",
        "ex:request_success_total{finished_reason=length,model_name=llama}|span_id=é-x,trace_id=bb22|1.0|1700000000.5",
        "ex:time_to_first_token_seconds_bucket{le=0.5,model_name=llama}|trace_id=cc33|0.4|1700000001.0",
        "ex:time_to_first_token_seconds_bucket{le=+Inf,model_name=llama}|trace_id=dd44|2.5|1700000001.25",
        "ex:inter_token_latency_seconds_bucket{le=0.1,model_name=llama}|trace_id=ee55|0.05|1700000001.5",
    ];
    expected.sort();
    assert_eq!(read, expected, "{text}");
}

#[test]
fn the_classic_text_has_the_samples_without_exemplars() {
    let (registry, openmetrics) = scrape(true);
    assert!(openmetrics.contains(" # {trace_id=\"aa11\"} 12.0 1700000000.25\n"));
    let text = encode_text(&registry);
    assert!(!text.contains(" # {"), "{text}");
    assert!(text.contains("ex:generation_tokens_total{model_name=\"llama\"} 12\n"));
}

#[test]
fn promtool_imports_the_openmetrics_exposition_with_its_exemplars() {
    if !available_or_skip(
        runs("promtool", &["--version"]),
        "promtool_imports_the_openmetrics_exposition_with_its_exemplars",
        "promtool",
        "Debian package prometheus",
    ) {
        return;
    }
    let (_, text) = scrape(true);
    assert!(
        text.contains("# {note=\"a\\\"b\\\\c\\nd\"} 1.0 1700000001.75\n"),
        "{text}"
    );
    let dir = std::env::temp_dir().join(format!("metric-handles-exemplars-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    // The importer reads OpenMetrics with Prometheus's own parser, exemplars included, and
    // needs a timestamp on every sample: give each line one after its value (before `#`).
    let stamped = stamp_samples(&text, T0);
    let input: PathBuf = dir.join("metrics.om.txt");
    std::fs::write(&input, &stamped).expect("write");
    let output = Command::new("promtool")
        .args(["tsdb", "create-blocks-from", "openmetrics"])
        .arg(&input)
        .arg(dir.join("blocks"))
        .output()
        .expect("run promtool");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        output.status.success(),
        "promtool refused the exposition:\n{}{}\n{stamped}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// `text` with ` seconds` after each sample's value: `name{..} value seconds # {..} ...`.
fn stamp_samples(text: &str, seconds: u64) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if line.starts_with('#') {
            out.push_str(line);
        } else {
            let (sample, exemplar) = match line.split_once(" # ") {
                Some((sample, exemplar)) => (sample, Some(exemplar)),
                None => (line, None),
            };
            out.push_str(&format!("{sample} {seconds}"));
            if let Some(exemplar) = exemplar {
                out.push_str(" # ");
                out.push_str(exemplar);
            }
        }
        out.push('\n');
    }
    out
}

/// Writers recording exemplars into the same histogram and counter while a scraper encodes
/// OpenMetrics: every exemplar a scrape shows is one writer's whole (its label names the
/// value it came with), lies in the bucket whose line carries it, and stays the latest kept
/// (a counter's exemplar never shows an increment from before one a previous scrape showed
/// from the same writer). No timing: fixed counts of records and scrapes.
#[test]
fn exemplars_read_while_written_are_whole_and_in_their_bucket() {
    const WRITERS: u64 = 2;
    let records: u64 = crate::support::exposition::stress(20_000, 400_000);
    let mut registry = metric_handles::Registry::default();
    let metrics = ServingMetrics::register(&mut registry);
    let handles = std::sync::Arc::new(metrics.resolve(&Model {
        model_name: "race".into(),
    }));
    let bounds = [0.1, 0.5, 1.0];
    let finished = std::sync::atomic::AtomicU64::new(0);
    std::thread::scope(|scope| {
        for writer in 0..WRITERS {
            let handles = std::sync::Arc::clone(&handles);
            let finished = &finished;
            scope.spawn(move || {
                for i in 0..records {
                    // Values over every bucket, each tagged with who wrote it and which it is.
                    let value = ((i * 7 + writer) % 23) as f64 * 0.1;
                    let id = format!("w{writer}-{i}-{value}");
                    let _ = handles
                        .ttft
                        .observe_with_exemplar(value, &[("trace_id", id.as_str())]);
                    let _ = handles
                        .tokens
                        .inc_with_exemplar(&[("trace_id", id.as_str())]);
                }
                finished.fetch_add(1, std::sync::atomic::Ordering::Release);
            });
        }
        let mut seen = 0;
        let mut latest_counter_record = [0u64; WRITERS as usize];
        // Scrapes until every writer is done (and at least 50), then stops.
        let mut scrapes = 0;
        loop {
            let done = finished.load(std::sync::atomic::Ordering::Acquire) == WRITERS;
            scrapes += 1;
            let text = encode_openmetrics(&registry);
            for line in text.lines().filter(|line| line.contains(" # {")) {
                let (sample, exemplar) = line.split_once(" # {").expect("an exemplar");
                let (labels, rest) = exemplar.split_once("} ").expect("closed labels");
                let id = labels
                    .strip_prefix("trace_id=\"")
                    .and_then(|id| id.strip_suffix('"'))
                    .unwrap_or_else(|| panic!("one trace_id label: {line}"));
                let (value, timestamp) = rest.split_once(' ').expect("value and timestamp");
                let value: f64 = value.parse().expect("a float");
                assert!(timestamp.parse::<f64>().expect("a float") > 1.6e9, "{line}");
                let recorded: f64 = id.rsplit('-').next().unwrap().parse().expect("a float");
                if sample.starts_with("ex:generation_tokens_total") {
                    assert_eq!(value, 1.0, "{line}");
                    let mut parts = id.trim_start_matches('w').split('-');
                    let writer: usize = parts.next().unwrap().parse().unwrap();
                    let record: u64 = parts.next().unwrap().parse().unwrap();
                    assert!(
                        record >= latest_counter_record[writer],
                        "an older exemplar after a newer one: {line}"
                    );
                    latest_counter_record[writer] = record;
                } else {
                    assert_eq!(value, recorded, "torn exemplar: {line}");
                    let le = sample
                        .split_once("le=\"")
                        .and_then(|(_, rest)| rest.split_once('"'))
                        .map(|(le, _)| le)
                        .expect("a bucket line");
                    let upper = if le == "+Inf" {
                        f64::INFINITY
                    } else {
                        le.parse().unwrap()
                    };
                    let lower = bounds
                        .iter()
                        .copied()
                        .filter(|&b| b < upper)
                        .fold(f64::NEG_INFINITY, f64::max);
                    assert!(
                        lower < value && value <= upper,
                        "outside its bucket: {line}"
                    );
                }
                seen += 1;
            }
            if done && scrapes >= 50 {
                break;
            }
        }
        // The last scrape came after every writer finished, so it saw their exemplars.
        assert!(seen > 0, "no scrape saw an exemplar");
    });
}
