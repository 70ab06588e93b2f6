//! The Tokio collector's exposition, of a named pair of runtimes, parses with Python's
//! prometheus_client in both formats (which reports every sample it read) and lints clean with
//! promtool, and what the parsers read is what the runtimes report.
#![cfg(feature = "tokio-runtime")]

use metric_handles::testing::Scrape;
use metric_handles::tokio_runtime::TokioCollector;
use metric_handles::{ExpositionFormat, Registry};
use tokio::runtime::Builder;

use crate::support::external_tool::{
    available_or_skip, prometheus_client_samples, promtool_check_metrics, runs,
};

#[test]
fn tokio_samples_parse_everywhere_and_match_the_runtimes() {
    let tools =
        runs("python3", &["-c", "import prometheus_client"]) && runs("promtool", &["--version"]);
    if !available_or_skip(
        tools,
        "tokio_samples_parse_everywhere_and_match_the_runtimes",
        "python3 with prometheus_client, and promtool",
        "PyPI package prometheus_client, Debian package prometheus",
    ) {
        return;
    }
    let io = Builder::new_current_thread().build().expect("a runtime");
    let compute = Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .expect("a runtime");
    let mut registry = Registry::default();
    registry.register_collector(Box::new(TokioCollector::named([
        ("io", io.handle().clone()),
        ("compute", compute.handle().clone()),
    ])));
    // Two tasks waiting in the io runtime's queue, which nothing drives.
    let _queued: Vec<_> = (0..2).map(|_| io.spawn(async {})).collect();

    let text = ExpositionFormat::PrometheusText.encode(&registry).unwrap();
    let problems = promtool_check_metrics(&text);
    assert!(problems.is_empty(), "promtool: {problems:?}\n{text}");
    let openmetrics = ExpositionFormat::OpenMetrics.encode(&registry).unwrap();
    for (format, exposition) in [("text", &text), ("openmetrics", &openmetrics)] {
        let samples = prometheus_client_samples(format, exposition);
        let ours = Scrape::parse(exposition).expect("parses");
        assert_eq!(samples.len(), ours.samples().count(), "{format}");
        for (name, value) in &samples {
            assert!(
                ours.samples().any(|s| &s.name == name && s.value == *value),
                "{format}: Python read {name} {value}, which the exposition does not hold"
            );
        }
    }
    let scrape = Scrape::parse(&openmetrics).expect("parses");
    assert_eq!(
        scrape.value("tokio_workers", &[("runtime", "compute")]),
        Some(2.0)
    );
    assert_eq!(
        scrape.value("tokio_workers", &[("runtime", "io")]),
        Some(1.0)
    );
    assert_eq!(
        scrape.value("tokio_global_queue_depth", &[("runtime", "io")]),
        Some(2.0)
    );
    // One series per worker of each runtime, for every per-worker family.
    assert_eq!(
        scrape
            .family("tokio_worker_busy_seconds")
            .map(|f| f.samples.len()),
        Some(3)
    );
}
