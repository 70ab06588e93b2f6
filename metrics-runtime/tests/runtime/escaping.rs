//! Every label value and every help text the crate writes parses with Python's
//! `prometheus_client` (both parsers, reading the scrape as a text file does), `promtool` and
//! Prometheus: control characters in label values (a carriage return above all) and line
//! breaks, backslashes and quotes in run-time help text.
//!
//! The external tools are skipped with a message when absent, unless
//! `METRIC_HANDLES_REQUIRE_TOOLS=1` (set by `.ci/run`).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::exposition::{encode_openmetrics, encode_text};
use crate::support::external_tool::{available_or_skip, promtool_check_metrics, runs};
use metric_handles::descriptor::{MetricDescriptor, MetricKind};
use metric_handles::Registry;
use metric_handles::{
    Counter, Dynamic, ExpositionFormat, Family, LabelSet, MetricHandles, RegisterOptions,
};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Route {
    pub path: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Client {
    pub agent: String,
}

#[derive(Debug, MetricHandles)]
#[metric_handles(labels = Route)]
pub struct HttpMetrics {
    /// Requests served, path C:\inetpub\wwwroot, "quoted"
    #[metric(name = "esc:requests")]
    pub requests: Family<Route, Counter>,
    /// Requests by client
    #[metric(name = "esc:by_client")]
    pub by_client: Family<Route, Dynamic<Client, Counter>>,
}

/// Every C0 control character, DEL, and the characters the formats escape themselves.
fn nasty_value() -> String {
    let mut value = String::from("a");
    for c in (0u8..0x20).chain([0x7f]) {
        value.push(char::from(c));
    }
    value.push_str("\\\"\r\nz");
    value
}

fn registry_with_nasty_values() -> Registry {
    let mut registry = Registry::default();
    let metrics = HttpMetrics::register(&mut registry);
    let route = Route {
        path: nasty_value(),
    };
    let handles = metrics.resolve(&route);
    handles.requests.inc();
    handles
        .by_client
        .get_or_create(&Client {
            agent: "curl\r\n\u{85}\u{2028}x".into(),
        })
        .inc_by(2);
    // Help text only known at run time: line breaks, a backslash, quotes, a tab.
    static RUNTIME: MetricDescriptor = MetricDescriptor {
        name: "esc:runtime_help",
        field: "runtime_help",
        kind: MetricKind::Counter,
        value_type: "u64",
        help: "First line\r\nsecond line\rthird\nfourth \\ back \"q\" \t tab",
        computed: None,
        unit: None,
        common_labels: &[],
        axis: None,
        buckets: None,
        native: None,
        max_series: 8,
        max_label_sets: 8,
        aliases: &[],
    };
    let family: Family<metric_handles::NoLabels, Counter> =
        metric_handles::__private::register_family(
            &mut registry,
            &RUNTIME,
            &RegisterOptions::new(),
        );
    family.get_or_create(&metric_handles::NoLabels).inc();
    registry
}

#[test]
fn control_characters_in_label_values_are_written_as_control_pictures() {
    let registry = registry_with_nasty_values();
    for format in [
        ExpositionFormat::PrometheusText,
        ExpositionFormat::OpenMetrics,
    ] {
        let text = format.encode(&registry).expect("encodes");
        // The only control character left is the line feed ending each line.
        let bad: Vec<char> = text
            .chars()
            .filter(|c| (c.is_control() && *c != '\n' && *c != '\u{85}') || *c == '\r')
            .collect();
        assert!(bad.is_empty(), "{format:?}: raw control characters {bad:?}");
        let expected_path: String = {
            let mut v = String::from("a");
            for c in (0u32..0x20).chain([0x7f]) {
                v.push(match c {
                    0x0a => '\n',
                    0x7f => '\u{2421}',
                    c => char::from_u32(0x2400 + c).expect("control picture"),
                });
            }
            v.push_str("\\\"\u{240d}\nz");
            v.replace('\\', "\\\\")
                .replace('"', "\\\"")
                .replace('\n', "\\n")
        };
        assert!(
            text.contains(&format!("esc:requests_total{{path=\"{expected_path}\"}} 1")),
            "{format:?}:\n{text}"
        );
        assert!(
            text.contains("agent=\"curl\u{240d}\\n\u{85}\u{2028}x\"} 2"),
            "{format:?}:\n{text}"
        );
    }
}

#[test]
fn help_text_is_one_line_and_escaped_in_both_formats() {
    let registry = registry_with_nasty_values();
    let om = encode_openmetrics(&registry);
    let text = encode_text(&registry);
    // OpenMetrics escapes `\` and `"` in HELP; the classic text escapes `\` only.
    assert!(
        om.contains(
            "# HELP esc:runtime_help First line second line third fourth \\\\ back \\\"q\\\"   tab.\n"
        ),
        "{om}"
    );
    assert!(
        text.contains(
            "# HELP esc:runtime_help_total First line second line third fourth \\\\ back \"q\"   tab.\n"
        ),
        "{text}"
    );
    assert!(
        om.contains(
            "# HELP esc:requests Requests served, path C:\\\\inetpub\\\\wwwroot, \\\"quoted\\\".\n"
        ),
        "{om}"
    );
}

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "metric-handles-escaping-{tag}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

#[test]
fn pythons_parsers_read_the_scrape_as_a_text_file() {
    if !available_or_skip(
        runs("python3", &["-c", "import prometheus_client"]),
        "pythons_parsers_read_the_scrape_as_a_text_file",
        "python3 with prometheus_client",
        "PyPI package prometheus_client",
    ) {
        return;
    }
    let registry = registry_with_nasty_values();
    let dir = temp_dir("python");
    let text_path = dir.join("metrics.txt");
    let om_path = dir.join("metrics.om.txt");
    std::fs::write(&text_path, encode_text(&registry)).expect("write");
    std::fs::write(&om_path, encode_openmetrics(&registry)).expect("write");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/check_exposition.py");
    let output = Command::new("python3")
        .arg(script)
        .args([&text_path, &om_path])
        .output()
        .expect("run python3");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn promtool_accepts_the_scrape() {
    if !available_or_skip(
        runs("promtool", &["--version"]),
        "promtool_accepts_the_scrape",
        "promtool",
        "Debian package prometheus",
    ) {
        return;
    }
    let findings = promtool_check_metrics(&encode_text(&registry_with_nasty_values()));
    // The `:` in recording-rule style names is the only lint it may raise.
    let other: Vec<&String> = findings
        .iter()
        .filter(|l| !l.contains("should not contain ':'"))
        .collect();
    assert!(other.is_empty(), "promtool: {findings:?}");
}
