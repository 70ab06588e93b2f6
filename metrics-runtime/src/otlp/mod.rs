//! Pushing the registry to an OpenTelemetry collector over OTLP/HTTP (feature `otlp`).
//!
//! Services in OpenTelemetry shops send metrics to a collector (or to Prometheus, which
//! ingests OTLP since 2.47) rather than being scraped. [`OtlpConfig::start`] starts an
//! [`OtlpExporter`] that pushes the whole registry (derived families, run-time families,
//! collectors and prometheus-client metrics alike) every interval, with cumulative
//! temporality and each series' start time, retries with backoff while the collector is
//! away, and flushes on shutdown. Recording is untouched: it stays an atomic operation on a
//! cached handle, and the exporter reads the registry as a scrape does, from its own thread.
//!
//! ```no_run
//! use std::sync::Arc;
//! use metric_handles::Registry;
//! use metric_handles::otlp::{OtlpConfig, OtlpMetrics};
//!
//! let mut registry = Registry::default();
//! // ... register the application's metrics ...
//! let exporter_metrics = OtlpMetrics::register(&mut registry);
//! let mut exporter = OtlpConfig::from_env() // OTEL_EXPORTER_OTLP_ENDPOINT, ...
//!     .service_name("frontend")
//!     .with_metrics(&exporter_metrics)
//!     .start(Arc::new(registry))?;
//! // ... serve ...
//! exporter.shutdown()?; // a last export
//! # Ok::<(), metric_handles::otlp::OtlpError>(())
//! ```
//!
//! What each Prometheus type becomes is the OpenTelemetry specification's mapping
//! ("Prometheus and OpenMetrics compatibility"), written down in [`OtlpEncoder`] and the
//! guide, which also lists where the output differs from `opentelemetry-otlp`'s for the same
//! workload.

mod config;
mod convert;
mod encode;
mod error;
mod exporter;
mod metrics;
mod transport;

#[cfg(feature = "otlp-trace")]
#[cfg_attr(docsrs, doc(cfg(feature = "otlp-trace")))]
pub mod trace;

pub use config::{Compression, OtlpConfig, DEFAULT_ENDPOINT, DEFAULT_INTERVAL, DEFAULT_TIMEOUT};
pub use convert::{ConvertStats, MAX_DENSE_BUCKETS};
pub use encode::{OtlpEncoder, SCOPE_NAME};
pub use error::OtlpError;
pub use exporter::{OtlpExporter, INITIAL_BACKOFF, MAX_BACKOFF};
pub use metrics::{FailureReason, OtlpHandles, OtlpMetrics};
