#![doc = include_str!("../README.md")]
// The other lint levels are the workspace's (`[workspace.lints]` in the root `Cargo.toml`).
#![deny(missing_docs)]
#![forbid(unsafe_code)]

// The derives generate `::metric_handles::...` paths; this makes them resolve inside the
// crate too (the vLLM metrics are declared with the derive).
extern crate self as metric_handles;

// The rooms, in the order a metric passes through them: declared, recorded, kept per series,
// registered, exposed.
mod const_eq;
mod created;
mod declare;
mod expose;
mod names;
mod record;
mod registry;
mod render;
mod sanitize;
mod series;
mod sync;
#[cfg(test)]
mod test_support;

pub use declare::buckets;
pub use expose::catalogue;
#[doc = include_str!("../docs/guide.md")]
pub mod guide {}
#[doc = include_str!("../docs/attributes.md")]
pub mod attributes {}
pub mod http;
#[cfg(feature = "http-layer")]
#[path = "http/layer.rs"]
pub mod http_layer;
pub mod plugin;
#[cfg(feature = "process")]
pub mod process;
#[cfg(feature = "serve")]
pub mod serve;
pub mod testing;
#[cfg(feature = "tokio-runtime")]
pub mod tokio_runtime;
#[cfg(feature = "vllm")]
pub mod vllm;

pub use buckets::Buckets;
pub use declare::descriptor::{
    Alias, LabelAxis, MetricDescriptor, MetricKind, DEFAULT_MAX_LABEL_SETS, DEFAULT_MAX_SERIES,
    MAX_PRERESOLVED_POSITIONS,
};
pub use expose::exposition::{EncodeOptions, ExpositionFormat, NameEscaping, Negotiated};
pub use record::counter::{rejected_counter_increments, Counter, CounterValue};
pub use record::exemplar::{
    dropped_exemplars, rejected_exemplars, EncodedLabels, ExemplarBuffer, ExemplarError,
    ExemplarLabelSet, ExemplarLabels, ExemplarRead, ExemplarSlot, ExemplarSlots, ExemplarView,
    LabelPairs, EXEMPLAR_LABEL_BYTES, MAX_EXEMPLAR_CHARS, READ_ATTEMPTS,
};
pub use record::gauge::Gauge;
pub use record::gauge_histogram::GaugeHistogram;
pub use record::histogram::{
    Histogram, HistogramSnapshot, NativeConfig, NativeSnapshot, NativeSpans, NATIVE_EXEMPLARS,
};
pub use record::in_flight::{InFlightGauge, InFlightGuard};
pub use record::info::Info;
pub use record::local::{
    HistogramBuffer, Local, LocalCounter, LocalHistogram, DEFAULT_FLUSH_INTERVAL,
};
pub use record::timer::{Timer, TimerTarget};
pub use registry::options::RegisterOptions;
pub use registry::{
    register_build_info, try_register_build_info, RegisteredFamily, RegistrationError, Registry,
};
pub use series::axis::{ByLabel, ByPosition, Dynamic, PositionSeries};
pub use series::family::Family;
pub use series::grid::{
    ByLabels, EveryCombination, GridAxes, GridAxis, GridKey, GridLookup, Position,
    SomeCombinations, MAX_GRID_AXES,
};
pub use series::label_size::{MAX_LABEL_SET_LEN, MAX_LABEL_VALUE_LEN};
pub use series::labels::{LabelEnum, LabelSet, NoLabels};
pub use series::member::{AxisShape, FamilyMember, SeriesSpec};
pub use series::outcome::{OutcomeCounters, OutcomeGuard};
pub use series::state_set::StateSet;

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
#[path = "private/mod.rs"]
pub mod __private;
