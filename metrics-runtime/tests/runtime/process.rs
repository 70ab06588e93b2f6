//! The process collector against what the kernel and the parsers say: both formats parse with
//! Python's prometheus_client (which reports every sample it read) and lint clean with
//! promtool, and each figure matches an independent reading of `/proc/self` (`status`,
//! `fd/`) or `ps` within a tolerance.
#![cfg(all(feature = "process", target_os = "linux"))]

use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

use metric_handles::process::ProcessCollector;
use metric_handles::{ExpositionFormat, Registry};

use crate::support::external_tool::{
    available_or_skip, prometheus_client_samples as python_samples, promtool_check_metrics, runs,
};

fn value(samples: &[(String, f64)], name: &str) -> f64 {
    let found: Vec<f64> = samples
        .iter()
        .filter(|(n, _)| n == name)
        .map(|(_, v)| *v)
        .collect();
    assert_eq!(found.len(), 1, "one sample {name} in {samples:?}");
    found[0]
}

/// A `Key:   value kB` line of `/proc/self/status`, as a number (kB lines in bytes).
fn status_field(status: &str, key: &str) -> f64 {
    let line = status
        .lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))
        .unwrap_or_else(|| panic!("{key} in /proc/self/status"));
    let mut words = line.split_whitespace();
    let number: f64 = words.next().expect("a number").parse().expect("a number");
    match words.next() {
        Some("kB") => number * 1024.0,
        _ => number,
    }
}

fn assert_near(name: &str, got: f64, expected: f64, tolerance: f64) {
    assert!(
        (got - expected).abs() <= tolerance,
        "{name}: exported {got}, read {expected} (tolerance {tolerance})"
    );
}

fn ps(field: &str) -> f64 {
    let out = Command::new("ps")
        .args([
            "-o",
            &format!("{field}="),
            "-p",
            &std::process::id().to_string(),
        ])
        .output()
        .expect("run ps");
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("ps -o {field}= printed {:?}", out.stdout))
}

#[test]
fn process_samples_parse_everywhere_and_match_proc_self() {
    let tools = runs("python3", &["-c", "import prometheus_client"])
        && runs("promtool", &["--version"])
        && runs("ps", &["-p", "1"]);
    if !available_or_skip(
        tools,
        "process_samples_parse_everywhere_and_match_proc_self",
        "python3 with prometheus_client, promtool and ps",
        "PyPI package prometheus_client, Debian packages prometheus and procps",
    ) {
        return;
    }
    let mut registry = Registry::default();
    ProcessCollector::register(&mut registry);
    // Threads of our own, so that the thread count is well above any other test's share.
    let (stop, parked) = std::sync::mpsc::channel::<()>();
    let parked = std::sync::Arc::new(std::sync::Mutex::new(parked));
    let extra: Vec<_> = (0..24)
        .map(|_| {
            let parked = std::sync::Arc::clone(&parked);
            std::thread::spawn(move || {
                let _ = parked.lock().unwrap().recv();
            })
        })
        .collect();
    // Some CPU time to measure, so that the CPU figure is not a trivial zero.
    let mut spin = 0u64;
    while std::hint::black_box(spin) < 20_000_000 {
        spin += 1;
    }

    let text = ExpositionFormat::PrometheusText.encode(&registry).unwrap();
    // The CPU time of every thread, exited ones included, in whole seconds (`ps`'s `cputimes`;
    // `/proc/self/schedstat` counts the main thread only, which the other tests' threads
    // leave far behind).
    let cpu = ps("cputimes");
    let status = std::fs::read_to_string("/proc/self/status").expect("status");
    let fds = std::fs::read_dir("/proc/self/fd").expect("fd/").count() as f64;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let elapsed = ps("etimes");
    let max_fds: f64 = String::from_utf8(
        Command::new("sh")
            .args(["-c", "ulimit -n"])
            .output()
            .expect("sh")
            .stdout,
    )
    .unwrap()
    .trim()
    .parse()
    .expect("a finite descriptor limit");

    // promtool lints the Prometheus text format (it reads OpenMetrics' counter help, written
    // under the base name, as missing); Python parses both.
    let problems = promtool_check_metrics(&text);
    assert!(problems.is_empty(), "promtool: {problems:?}");
    let openmetrics = ExpositionFormat::OpenMetrics.encode(&registry).unwrap();
    for (format, exposition) in [("text", &text), ("openmetrics", &openmetrics)] {
        let samples = python_samples(format, exposition);
        let names: Vec<&str> = samples.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "process_cpu_seconds_total",
                "process_resident_memory_bytes",
                "process_virtual_memory_bytes",
                "process_open_fds",
                "process_max_fds",
                "process_start_time_seconds",
                "process_threads",
            ],
            "{format}"
        );
    }

    // Compared with the text format's samples, read before the other files: the tolerances
    // cover what the other tests of this binary (running on other threads) change meanwhile.
    let samples = python_samples("text", &text);
    let rss = status_field(&status, "VmRSS");
    let vm = status_field(&status, "VmSize");
    let threads = status_field(&status, "Threads");
    // (family, independent reading, tolerance)
    let expected = [
        ("process_cpu_seconds_total", cpu, 1.25 + cpu * 0.2),
        ("process_resident_memory_bytes", rss, rss * 0.2),
        ("process_virtual_memory_bytes", vm, vm * 0.2),
        ("process_open_fds", fds, 16.0),
        ("process_max_fds", max_fds, 0.0),
        ("process_start_time_seconds", now - elapsed, 2.0),
        ("process_threads", threads, 8.0),
    ];
    for (name, read, tolerance) in expected {
        assert_near(name, value(&samples, name), read, tolerance);
    }
    assert!(value(&samples, "process_cpu_seconds_total") > 0.0);
    assert!(value(&samples, "process_threads") >= 25.0);
    drop(stop);
    for thread in extra {
        thread.join().unwrap();
    }
}
