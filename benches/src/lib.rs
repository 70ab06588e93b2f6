//! Shared fixtures of the comparative benchmarks: the vLLM label set, bucket bounds and
//! observation values, a multi-threaded timing helper, and a `metrics` recorder.
//!
//! Every benchmark runs the alternatives side by side in the same process, so the report can
//! state ratios that hold on any machine rather than absolute figures that hold on one.

pub mod baseline;
pub mod batched;
pub mod contended;
pub mod cpu;
pub mod facade;
pub mod fixtures;
pub mod idle;
pub mod itl;
pub mod labels;
pub mod memory;
pub mod otlp_sdk;
pub mod recorder;
pub mod report;
pub mod runner;
pub mod same_shape;
pub mod search;
pub mod vllm_fixtures;
