#![doc = include_str!("../README.md")]
// The other lint levels are the workspace's (`[workspace.lints]` in the root `Cargo.toml`).
#![deny(missing_docs)]
#![forbid(unsafe_code)]
// docs.rs marks each feature-gated item with the feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

// The derives generate `::metric_handles::...` paths; this makes them resolve inside the
// crate too (the vLLM metrics are declared with the derive).
extern crate self as metric_handles;

// The public modules are the concepts a user looks for (a type's module is its folder or file);
// the private ones are the stages a metric passes through behind them.
mod const_eq;
mod created;
mod declare;
mod info;
mod names;
mod render;
mod sanitize;
mod series;
mod state_set;
mod sync;
#[cfg(test)]
mod test_support;

#[doc = include_str!("../docs/attributes.md")]
pub mod attributes {}
pub mod axis;
pub mod buckets;
pub mod catalogue;
pub mod counter;
pub mod descriptor;
pub mod exemplar;
pub mod exposition;
pub mod family;
pub mod gauge;
#[doc = include_str!("../docs/guide.md")]
pub mod guide {}
pub mod histogram;
pub mod http;
pub mod labels;
pub mod limits;
pub mod local;
pub mod member;
#[cfg(feature = "metrics-facade")]
#[cfg_attr(docsrs, doc(cfg(feature = "metrics-facade")))]
pub mod metrics_facade;
#[cfg(feature = "otlp")]
#[cfg_attr(docsrs, doc(cfg(feature = "otlp")))]
pub mod otlp;
#[cfg(feature = "process")]
#[cfg_attr(docsrs, doc(cfg(feature = "process")))]
pub mod process;
pub mod registry;
#[cfg(feature = "serve")]
#[cfg_attr(docsrs, doc(cfg(feature = "serve")))]
pub mod serve;
pub mod testing;
pub mod timer;
#[cfg(feature = "tokio-runtime")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio-runtime")))]
pub mod tokio_runtime;
#[cfg(feature = "vllm")]
#[cfg_attr(docsrs, doc(cfg(feature = "vllm")))]
pub mod vllm;

// The names nearly every user writes: the derives, the registry, a family and its members, the
// label axes, bucket bounds and the exposition formats. Everything else is in its module.
pub use axis::{ByLabel, ByPosition, Dynamic};
pub use buckets::Buckets;
pub use counter::Counter;
pub use exposition::ExpositionFormat;
pub use family::Family;
pub use gauge::Gauge;
pub use histogram::Histogram;
pub use info::Info;
pub use labels::{LabelEnum, LabelSet, NoLabels};
pub use registry::{RegisterOptions, RegistrationError, Registry};
pub use state_set::StateSet;
pub use timer::Timer;

pub use metric_handles_derive::{LabelEnum, LabelSet, MetricHandles};

/// prometheus-client, re-exported so users and generated code name the same version.
///
/// Everything of prometheus-client is here under its own path, with one difference: the derives
/// `encoding::EncodeLabelSet` and `encoding::EncodeLabelValue` are equivalents that name
/// prometheus-client through this re-export. prometheus-client's own derives name
/// `::prometheus_client`, which a crate that depends only on `metric-handles` cannot resolve.
pub mod prometheus_client {
    pub use ::prometheus_client::*;

    /// prometheus-client's `encoding` module; its derives work through this re-export.
    pub mod encoding {
        pub use ::prometheus_client::encoding::*;
        pub use metric_handles_derive::{EncodeLabelSet, EncodeLabelValue};
    }
}

/// Items the derive's generated code (and this repository's tests and benchmarks) refer to.
/// Not a stable API: anything here may change in any release.
#[doc(hidden)]
pub mod __private;
