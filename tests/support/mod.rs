//! What the derive tests of this suite share (each includes it with `mod support;`).
#![allow(dead_code)] // Each test crate uses a different subset.

use metric_handles::ExpositionFormat;
use metric_handles::Registry;

/// The registry in Prometheus' text format.
pub fn prometheus_text(registry: &Registry) -> String {
    ExpositionFormat::PrometheusText.encode(registry).unwrap()
}
