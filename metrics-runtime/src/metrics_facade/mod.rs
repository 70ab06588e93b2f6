//! A recorder for the [`metrics`](https://docs.rs/metrics) facade, backed by this crate's
//! families (feature `metrics-facade`).
//!
//! Most Rust libraries that emit metrics do it through the facade's macros
//! (`metrics::counter!`, `gauge!`, `histogram!`). [`FacadeRecorder`] records them into the
//! same [`Registry`](crate::Registry) as the program's derived families: one `/metrics`, in
//! every format this crate writes, serves a service and all its dependencies, with the same
//! ledger refusing a name two families would write.
//!
//! ```
//! use metric_handles::metrics_facade::FacadeBuilder;
//! use metric_handles::{ExpositionFormat, Registry};
//!
//! let mut registry = Registry::default();
//! // Once, at start-up (`install` makes it the process's global recorder).
//! let recorder = FacadeBuilder::new().build(&mut registry);
//! metrics::with_local_recorder(&recorder, || {
//!     metrics::describe_counter!("cache_hits", "Cache lookups that found their key");
//!     metrics::counter!("cache_hits", "tier" => "memory").increment(3);
//!     // A handle kept records at the cost of an atomic add.
//!     let latency = metrics::histogram!("lookup_seconds");
//!     latency.record(0.002);
//! });
//! let text = ExpositionFormat::PrometheusText.encode(&registry).unwrap();
//! assert!(text.contains("# HELP cache_hits_total Cache lookups that found their key.\n"));
//! assert!(text.contains(r#"cache_hits_total{tier="memory"} 3"#));
//! assert!(text.contains("lookup_seconds_count 1"));
//! ```
//!
//! Histograms are this crate's lock-free histogram: classic buckets
//! ([`DEFAULT_BUCKETS`] unless [`FacadeBuilder::buckets_for`] chooses others by name) and,
//! if asked for, native buckets. Nothing is buffered between scrapes, so memory does not grow
//! with traffic (metrics-exporter-prometheus keeps every observation until its next render).

mod cache;
mod families;
mod handles;
mod labels;
mod options;
mod recorder;

pub use families::Refusal;
pub use options::{FacadeBuilder, FacadeError, Matcher, DEFAULT_BUCKETS, DEFAULT_MAX_FAMILIES};
pub use recorder::FacadeRecorder;
