//! Both exposition formats of a registry holding every vLLM metric, recorded, parse with
//! Python's real `prometheus_client` parsers (`scripts/check_exposition.py`).
//!
//! Without Python's `prometheus_client` the test prints a `SKIPPED:` line and passes, unless
//! `METRIC_HANDLES_REQUIRE_TOOLS=1` (set by `.ci/run`), where it fails.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::exposition::{encode_openmetrics, encode_text};
use crate::support::vllm::*;
use metric_handles::descriptor::MetricKind;
use metric_handles::vllm::cache_config::CacheConfig;
use metric_handles::vllm::request::{FinishReason, RequestMetrics, RequestParams};
use metric_handles::vllm::scheduler::SchedulerMetrics;
use metric_handles::vllm::{VllmMetrics, VllmMetricsConfig};

fn record_everything(metrics: &VllmMetrics) {
    for engine in [0, 3] {
        metrics.scheduler().record(
            engine,
            // Three accepted positions, one beyond the two configured: the looked-up series.
            &busy_scheduler_stats(),
        );
        metrics.scheduler().record_iteration_tokens(engine, 300);
        metrics.cache_config().set(
            engine,
            &CacheConfig {
                num_gpu_blocks: Some(2048),
                kv_cache_size_tokens: Some(32768),
                kv_cache_max_concurrency: Some(2.58203125),
                ..CacheConfig::default()
            },
        );
        for (i, reason) in [
            FinishReason::Stop,
            FinishReason::Length,
            FinishReason::Abort,
            FinishReason::Error,
            FinishReason::Repetition,
        ]
        .into_iter()
        .enumerate()
        {
            let start = 1_700_000_000.0 + i as f64;
            let mut t = metrics.requests().track(
                engine,
                RequestParams {
                    arrival_time: start,
                    prompt_len: 120,
                    max_tokens_param: Some(16),
                    n_param: 2,
                },
            );
            t.observe_output(
                10.0,
                start + 0.2,
                &with_prefill(
                    with_events(
                        tokens(1),
                        &[
                            (metric_handles::vllm::request::EventType::Queued, 9.5),
                            (metric_handles::vllm::request::EventType::Scheduled, 9.75),
                        ],
                    ),
                    120,
                    64,
                ),
            );
            t.observe_output(10.1, start + 0.3, &tokens(3));
            t.observe_output(10.3, start + 0.5, &finishing(tokens(1), reason));
        }
        // A parallel-sampling parent.
        for mut child in metrics.requests().track_parallel(
            engine,
            RequestParams {
                arrival_time: 1_700_000_100.0,
                prompt_len: 8,
                max_tokens_param: None,
                n_param: 3,
            },
        ) {
            child.observe_output(
                1.0,
                1_700_000_100.5,
                &finishing(tokens(2), FinishReason::Stop),
            );
        }
    }
}

fn unique_temp_dir() -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let dir = std::env::temp_dir().join(format!(
        "metric-handles-exposition-{}-{nanos}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/check_exposition.py")
}

#[test]
fn both_formats_parse_with_pythons_prometheus_client() {
    let available =
        crate::support::external_tool::runs("python3", &["-c", "import prometheus_client"]);
    if !crate::support::external_tool::available_or_skip(
        available,
        "both_formats_parse_with_pythons_prometheus_client",
        "python3 with prometheus_client",
        "PyPI package prometheus_client",
    ) {
        return;
    }
    let dir = unique_temp_dir();
    for version in ["0.10", "0.11"] {
        let (registry, metrics) = setup(VllmMetricsConfig {
            model_name: "meta-llama/Llama-3.1-8B-Instruct".into(),
            num_speculative_tokens: 2,
            max_model_len: 8192,
            show_hidden_metrics_for_version: Some(version.into()),
            ..VllmMetricsConfig::default()
        });
        record_everything(&metrics);
        let text = encode_text(&registry);
        let openmetrics = encode_openmetrics(&registry);
        let expected: Vec<&str> = SchedulerMetrics::DESCRIPTORS
            .iter()
            .chain(RequestMetrics::DESCRIPTORS)
            .flat_map(|d| {
                std::iter::once(d.name).chain(
                    d.aliases
                        .iter()
                        .filter(|a| a.deprecated_in == version)
                        .map(|a| a.name),
                )
            })
            .chain(["vllm:cache_config_info"])
            .collect();
        assert!(expected.len() >= 40, "{expected:?}");
        assert!(SchedulerMetrics::DESCRIPTORS
            .iter()
            .any(|d| d.kind == MetricKind::Counter));
        let text_path = dir.join(format!("metrics-{version}.txt"));
        let om_path = dir.join(format!("metrics-{version}.om.txt"));
        let expected_path = dir.join(format!("expected-{version}.txt"));
        std::fs::write(&text_path, &text).expect("write");
        std::fs::write(&om_path, &openmetrics).expect("write");
        std::fs::write(&expected_path, expected.join("\n")).expect("write");

        let output = Command::new("python3")
            .arg(script())
            .args([&text_path, &om_path, &expected_path])
            .output()
            .expect("run python3");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        println!("aliases {version}: {stdout}");
        assert!(
            output.status.success(),
            "check_exposition.py failed for aliases {version} (files in {}):\n{stdout}\n{stderr}",
            dir.display()
        );
        assert!(stdout.contains("check_exposition: OK"), "{stdout}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
