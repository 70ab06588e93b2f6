//! What the test crates of this folder share, one module each includes with `mod support;`
//! and uses a part of: [`prometheus_text`] for the derive tests, [`demo`] for the tests that
//! run the `frontend` example (building and starting it, an HTTP client, an exposition
//! parser, a process guard), [`exposition_server`] (a registry served over HTTP for a real
//! Prometheus), [`prometheus`] (a real Prometheus server and its query API) and
//! [`external_tool`] (the runtime tests' rule for tests that need Prometheus, promtool or
//! Python's parsers, shared by path).
#![allow(dead_code)] // Each test crate uses a different subset.

pub mod demo;
pub mod exposition_server;
#[path = "../../metrics-runtime/tests/support/external_tool.rs"]
pub mod external_tool;
pub mod prometheus;

use metric_handles::ExpositionFormat;
use metric_handles::Registry;

/// `true` when Python 3 can import the official `openai` client; otherwise skips (or fails
/// under `METRIC_HANDLES_REQUIRE_TOOLS=1`, as `.ci/run` sets).
pub fn openai_or_skip(test: &str) -> bool {
    external_tool::available_or_skip(
        external_tool::runs("python3", &["-c", "import openai"]),
        test,
        "Python's openai package",
        "pip install openai",
    )
}

/// The registry in Prometheus' text format.
pub fn prometheus_text(registry: &Registry) -> String {
    ExpositionFormat::PrometheusText.encode(registry).unwrap()
}
