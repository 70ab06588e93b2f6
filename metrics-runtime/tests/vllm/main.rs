//! The vLLM layer: every family against vLLM's list and the catalogue, request and scheduler
//! scenarios, bad input and bounds, recording under concurrency and churn, the property test,
//! and the exposition read by real parsers and vLLM's Grafana dashboard.

// The vLLM recorders exist only with the default `vllm` feature.
#![cfg(feature = "vllm")]

#[path = "../support/mod.rs"]
mod support;

// `pub`, as each was its own crate root: the fields of the structs they derive are read by
// generated code only, which a private module would report as never read.
pub mod bad_input;
pub mod bad_input_full_set;
pub mod bounds;
pub mod cache_config;
pub mod catalogue;
pub mod churn;
pub mod concurrency;
pub mod exemplars;
pub mod exposition_parsers;
pub mod full_set;
pub mod grafana_dashboard;
#[cfg(feature = "protobuf")]
pub mod native_latency;
pub mod props;
pub mod request_local;
pub mod requests;
pub mod scheduler;
pub mod spec_conformance;
pub mod third_party;
pub mod tracing_events;
