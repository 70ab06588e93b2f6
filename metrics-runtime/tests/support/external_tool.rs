//! Tests that need an external tool (a real Prometheus, promtool, Python's prometheus_client).
//!
//! Without the tool such a test passes with one visible line, the same for every test:
//!
//! ```text
//! SKIPPED: <test>: <tool> not found (<how to install it>)
//! ```
//!
//! written to the process's real stderr: the test harness captures `println!` and `eprintln!`
//! and shows them only for failing tests, which would hide the skip. With
//! `METRIC_HANDLES_REQUIRE_TOOLS=1` (set by `.ci/run`) a missing tool fails the test instead.
//!
//! Also runs `promtool check metrics`, for the tests that lint an exposition with it.
//!
//! Shared by `metrics-runtime/tests` and the workspace's `tests/` (included there by path).
#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Stdio};

/// Whether `program args...` runs and exits successfully.
pub fn runs(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// What `promtool check metrics` says about the exposition `text`: every non-empty line of its
/// output (stdout and stderr), trimmed. Panics when promtool cannot be run.
pub fn promtool_check_metrics(text: &str) -> Vec<String> {
    let mut child = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start promtool");
    // Dropping stdin after the write closes it: promtool reads to the end before it answers.
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .expect("feed promtool");
    let out = child.wait_with_output().expect("promtool output");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    stdout
        .lines()
        .chain(stderr.lines())
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .map(str::to_owned)
        .collect()
}

/// `true` when the tool is `available`. Otherwise prints the SKIPPED line and returns `false`,
/// or panics when `METRIC_HANDLES_REQUIRE_TOOLS=1`.
pub fn available_or_skip(available: bool, test: &str, tool: &str, install: &str) -> bool {
    if available {
        return true;
    }
    let reason = format!("{tool} not found ({install})");
    let required = std::env::var("METRIC_HANDLES_REQUIRE_TOOLS").is_ok_and(|v| v == "1");
    assert!(
        !required,
        "{test}: {reason}, and METRIC_HANDLES_REQUIRE_TOOLS=1 requires it"
    );
    let line = format!("\nSKIPPED: {test}: {reason}\n");
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
    false
}

/// Reads an exposition on stdin with prometheus_client's parser for `argv[1]` (`text` or
/// `openmetrics`) and prints `name value` per sample.
const PARSE: &str = r#"
import sys
from prometheus_client.parser import text_string_to_metric_families as text
from prometheus_client.openmetrics.parser import text_string_to_metric_families as om
parse = om if sys.argv[1] == "openmetrics" else text
for family in parse(sys.stdin.read()):
    for s in family.samples:
        print(s.name, repr(float(s.value)))
"#;

/// Every sample Python's prometheus_client reads in `exposition`, as `(name, value)`, with the
/// parser of `format` (`text` or `openmetrics`); panics, with its error, when it rejects it.
pub fn prometheus_client_samples(format: &str, exposition: &str) -> Vec<(String, f64)> {
    let stdout = python(&[PARSE, format], exposition.as_bytes()).unwrap_or_else(|stderr| {
        panic!("prometheus_client rejected the {format} exposition:\n{stderr}\n{exposition}")
    });
    stdout
        .lines()
        .map(|line| {
            let (name, value) = line.split_once(' ').expect("name value");
            (name.to_owned(), value.parse().expect("a float"))
        })
        .collect()
}

/// Runs `python3 -c args[0] args[1..]` with `input` on stdin: its stdout when it succeeds,
/// its stderr when it fails.
pub fn python(args: &[&str], input: &[u8]) -> Result<String, String> {
    let mut child = Command::new("python3")
        .arg("-c")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start python3");
    // Dropping stdin after the write closes it: the script reads to the end.
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("feed python3");
    let out = child.wait_with_output().expect("python3 output");
    if out.status.success() {
        Ok(String::from_utf8(out.stdout).expect("utf-8"))
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}
