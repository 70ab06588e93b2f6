//! The `metrics` facade's shape of the same-shape benchmarks: `label_sets` label sets of
//! `{model_name, engine}`, each with [`COUNTERS`] counters, [`GAUGES`] gauges and
//! [`HISTOGRAMS`] histograms of the 19 ITL bounds, recorded through the facade's macros into
//! a recorder (ours, or metrics-exporter-prometheus's), with the values [`same_shape`] gives
//! this crate's derived families.
//!
//! [`same_shape`]: crate::same_shape

use metric_handles::metrics_facade::FacadeBuilder;
use metric_handles::Registry;
use metrics::Recorder;
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle, PrometheusRecorder};

use crate::fixtures::{observations, ITL_BUCKETS, MODEL_NAME};
use crate::same_shape::{COUNTERS, GAUGES, HISTOGRAMS};

/// Observations recorded into every histogram series (as in `same_shape`).
const OBSERVED: usize = 8;

/// Every family's name: `facade_counter_{i}`, `facade_gauge_{i}`, `facade_histogram_{i}`.
fn names(kind: &str, count: usize) -> Vec<&'static str> {
    (0..count)
        .map(|i| &*Box::leak(format!("facade_{kind}_{i}").into_boxed_str()))
        .collect()
}

/// A facade key of family `name` for engine `engine`.
fn key(name: &'static str, engine: u32) -> metrics::Key {
    metrics::Key::from_parts(
        name,
        vec![
            metrics::Label::new("model_name", MODEL_NAME),
            metrics::Label::new("engine", engine.to_string()),
        ],
    )
}

/// Records the shape through `recorder`; returns every histogram handle, label set by label
/// set, so a benchmark can record into them between scrapes.
pub fn record(recorder: &dyn Recorder, label_sets: u32) -> Vec<metrics::Histogram> {
    let metadata = metrics::Metadata::new(module_path!(), metrics::Level::INFO, None);
    let mut histograms = Vec::new();
    let [counters, gauges, families] = [
        names("counter", COUNTERS),
        names("gauge", GAUGES),
        names("histogram", HISTOGRAMS),
    ];
    for engine in 0..label_sets {
        for (i, name) in counters.iter().enumerate() {
            let counter = recorder.register_counter(&key(name, engine), &metadata);
            counter.increment(u64::from(engine) * 7 + i as u64);
        }
        for (i, name) in gauges.iter().enumerate() {
            let gauge = recorder.register_gauge(&key(name, engine), &metadata);
            gauge.set(f64::from(engine) * 3.0 - i as f64);
        }
        for (i, name) in families.iter().enumerate() {
            let histogram = recorder.register_histogram(&key(name, engine), &metadata);
            for k in 0..OBSERVED {
                histogram.record(observations()[(engine as usize + i + k) % observations().len()]);
            }
            histograms.push(histogram);
        }
    }
    histograms
}

/// Ours: the facade's recorder on a registry, with the shape recorded.
pub fn ours(label_sets: u32) -> (Registry, Vec<metrics::Histogram>) {
    let mut registry = Registry::default();
    let recorder = FacadeBuilder::new()
        .buckets(&ITL_BUCKETS)
        .expect("valid bounds")
        .build(&mut registry);
    let histograms = record(&recorder, label_sets);
    (registry, histograms)
}

/// metrics-exporter-prometheus's recorder (histograms, not summaries: the ITL bounds), with
/// the shape recorded, and the handle that renders it.
pub fn exporter(
    label_sets: u32,
) -> (
    PrometheusRecorder,
    PrometheusHandle,
    Vec<metrics::Histogram>,
) {
    let recorder = PrometheusBuilder::new()
        .set_buckets(&ITL_BUCKETS)
        .expect("valid bounds")
        .build_recorder();
    let handle = recorder.handle();
    let histograms = record(&recorder, label_sets);
    (recorder, handle, histograms)
}
