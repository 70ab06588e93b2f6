//! The runtime without the vLLM layer: families under concurrent recording and scraping, the
//! histogram against prometheus-client's, the escaping of every label value and help text,
//! the size rule of record-time labels, plug-in families and the registration check.

#[path = "../support/mod.rs"]
mod support;

// `pub`, as each was its own crate root: the fields of the structs they derive are read by
// generated code only, which a private module would report as never read.
pub mod concurrency;
pub mod created;
pub mod escaping;
pub mod exemplars;
pub mod guards;
pub mod histogram_consistency;
pub mod histogram_parity;
pub mod idle_expiry;
pub mod label_size;
#[cfg(feature = "metrics-facade")]
pub mod metrics_facade;
pub mod module_graph;
pub mod native_declared;
pub mod native_parity;
#[cfg(feature = "protobuf")]
pub mod native_validity;
pub mod openmetrics_types;
#[cfg(feature = "otlp")]
pub mod otlp;
pub mod plugin;
pub mod process;
#[cfg(feature = "protobuf")]
pub mod protobuf;
pub mod registration;
#[cfg(feature = "http-layer")]
pub mod route_service;
pub mod scrapers;
pub mod tokio_runtime;
