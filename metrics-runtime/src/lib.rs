//! Runtime support for `#[derive(MetricHandles)]`: zero-lookup Prometheus metrics.
//!
//! Recording a labelled metric through prometheus-client's `Family` hashes the label set and
//! takes a lock on every call. This crate, with the derive it re-exports, resolves every series
//! once into a struct of cached handles, after which recording is only atomic operations.
//!
//! The [`vllm`] module is built on it: vLLM's complete scheduler and request metric set, with
//! its recorders, ready for an LLM serving frontend.
//!
//! ```
//! use metric_handles::{Counter, Family, Gauge, Histogram, LabelSet, MetricHandles};
//! use prometheus_client::registry::Registry;
//!
//! #[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
//! pub struct EngineLabels {
//!     pub model_name: String,
//!     pub engine: u32,
//! }
//!
//! #[derive(MetricHandles)]
//! #[metric_handles(handles = EngineHandles, labels = EngineLabels)]
//! pub struct EngineMetrics {
//!     /// Number of requests in model execution batches
//!     #[metric(name = "demo:num_requests_running")]
//!     pub running: Family<EngineLabels, Gauge>,
//!     /// Number of generation tokens processed
//!     #[metric(name = "demo:generation_tokens")]
//!     pub generation_tokens: Family<EngineLabels, Counter>,
//!     /// Time to first token in seconds
//!     #[metric(name = "demo:time_to_first_token_seconds", buckets = [0.01, 0.1, 1.0])]
//!     pub ttft: Family<EngineLabels, Histogram>,
//! }
//!
//! let mut registry = Registry::default();
//! let metrics = EngineMetrics::register(&mut registry);
//! let engine0 = metrics.resolve(&EngineLabels { model_name: "m".into(), engine: 0 });
//! engine0.running.set(3);
//! engine0.generation_tokens.inc_by(128);
//! engine0.ttft.observe(0.05);
//! let text = metric_handles::encode_prometheus_text(&registry).unwrap();
//! assert!(text.contains(r#"demo:generation_tokens_total{model_name="m",engine="0"} 128"#));
//! ```
#![deny(missing_docs)]

// The derives generate `::metric_handles::...` paths; this makes them resolve inside the
// crate too (the vLLM metrics are declared with the derive).
extern crate self as metric_handles;

mod axis;
mod bounded;
mod bucket_check;
pub mod buckets;
mod descriptor;
mod exposition;
mod family;
mod grid;
mod histogram;
pub mod http;
#[cfg(feature = "http-layer")]
pub mod http_layer;
mod labels;
mod member;
mod options;
pub mod plugin;
pub mod vllm;

pub use axis::{ByLabel, ByPosition, Dynamic, PositionSeries};
pub use bounded::OVERFLOW_LABEL;
pub use buckets::Buckets;
pub use descriptor::{
    Alias, LabelAxis, MetricDescriptor, MetricKind, DEFAULT_MAX_LABEL_SETS, DEFAULT_MAX_SERIES,
};
pub use exposition::{
    encode_openmetrics, encode_prometheus_text, ExpositionFormat, OPENMETRICS_CONTENT_TYPE,
    PROMETHEUS_TEXT_CONTENT_TYPE,
};
pub use family::Family;
pub use grid::{ByLabels, GridAxes, GridAxis, Position, MAX_GRID_AXES};
pub use histogram::{Histogram, HistogramSnapshot};
pub use labels::{LabelEnum, LabelSet, NoLabels};
pub use member::{AxisShape, FamilyMember, SeriesSpec};
pub use options::RegisterOptions;

pub use metric_handles_derive::{LabelEnum, LabelSet, MetricHandles};

/// prometheus-client, re-exported so users and generated code name the same version.
pub use prometheus_client;

/// A `u64` counter (prometheus-client's). `Counter<f64, AtomicU64>` counts fractions.
pub type Counter<N = u64, A = std::sync::atomic::AtomicU64> =
    prometheus_client::metrics::counter::Counter<N, A>;

/// An `i64` gauge (prometheus-client's). `Gauge<f64, AtomicU64>` and `Gauge<u64, AtomicU64>`
/// hold other value types.
pub type Gauge<N = i64, A = std::sync::atomic::AtomicI64> =
    prometheus_client::metrics::gauge::Gauge<N, A>;

/// Items the derive's generated code refers to. Not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use prometheus_client;
    pub use prometheus_client::registry::Registry;
    pub use std;

    /// Fails compilation (in a `const _: () = ...` item) when an axis label key repeats one of
    /// the struct's common label keys: the series would carry the same key twice.
    pub const fn assert_axis_key_is_free(common: &[&str], axis_key: &str) {
        let mut i = 0;
        while i < common.len() {
            if str_eq(common[i], axis_key) {
                panic!("an axis label key repeats a key of the struct's common label set: rename it with `label = \"...\"`");
            }
            i += 1;
        }
    }

    pub use crate::bucket_check::{assert_valid_buckets, assert_valid_generator, bucket_count};

    use crate::{AxisShape, LabelAxis};

    /// The descriptor's axis, from the member's declared shape, the field's `label = ...` keys,
    /// the grid's axes (built by [`grid_axis`]) and the declared position count. `None` when
    /// the keys do not fit the shape: a generated check reports that, naming the field.
    pub const fn describe_axis(
        shape: AxisShape,
        keys: &'static [&'static str],
        grid: &'static [LabelAxis],
        positions: usize,
    ) -> Option<LabelAxis> {
        match (shape, keys) {
            (AxisShape::Enum(values), [key]) => Some(LabelAxis::Enum { key, values }),
            (AxisShape::Position, [key]) => Some(LabelAxis::Position {
                key,
                count: positions,
            }),
            (AxisShape::Dynamic(keys), _) => Some(LabelAxis::Dynamic { keys }),
            (AxisShape::Grid(axes), _) if axes.len() == grid.len() => {
                Some(LabelAxis::Grid { axes: grid })
            }
            _ => None,
        }
    }

    /// Axis `index` of a grid member, labelled `key`.
    pub const fn grid_axis(
        shape: AxisShape,
        index: usize,
        key: &'static str,
        positions: usize,
    ) -> LabelAxis {
        match shape {
            AxisShape::Grid(axes) if index < axes.len() => match axes[index] {
                Some(values) => LabelAxis::Enum { key, values },
                None => LabelAxis::Position {
                    key,
                    count: positions,
                },
            },
            _ => LabelAxis::Position { key, count: 0 },
        }
    }

    /// The keys of a `Dynamic` axis, empty for every other shape.
    pub const fn dynamic_keys(shape: AxisShape) -> &'static [&'static str] {
        match shape {
            AxisShape::Dynamic(keys) => keys,
            _ => &[],
        }
    }

    /// The field type of the stub handles struct the derive emits, on error, for a field whose
    /// type it could not read.
    #[derive(Clone, Copy, Debug)]
    pub struct Unresolved;

    /// Whether the member is a counter (for the generated `_total` check).
    pub const fn is_counter(kind: crate::MetricKind) -> bool {
        matches!(kind, crate::MetricKind::Counter)
    }

    /// Whether the member is a histogram (for the generated `buckets` checks).
    pub const fn is_histogram(kind: crate::MetricKind) -> bool {
        matches!(kind, crate::MetricKind::Histogram)
    }

    /// Fails compilation when a `Dynamic<D, _>` axis repeats one of the struct's common label
    /// keys (`D::KEYS` against `L::KEYS`).
    pub const fn assert_axis_keys_are_free(common: &[&str], axis_keys: &[&str]) {
        let mut i = 0;
        while i < axis_keys.len() {
            let mut j = 0;
            while j < common.len() {
                if str_eq(common[j], axis_keys[i]) {
                    panic!("a `Dynamic` axis label key repeats a key of the struct's common label set: rename one of them with `#[label(rename = \"...\")]`");
                }
                j += 1;
            }
            i += 1;
        }
    }

    /// Implemented only for `L` itself: generated `resolve`/`remove` pass the struct's label
    /// set through [`same_labels`], so a field whose `Family<L, _>` uses another label set is
    /// reported once, at that field, with this message.
    #[diagnostic::on_unimplemented(
        message = "this field's `Family` uses label set `{L}`, but the struct's label set is `{Self}`",
        label = "expected `{Self}` here",
        note = "every field of a `#[derive(MetricHandles)]` struct uses the struct's label set: declare it with `#[metric_handles(labels = ...)]` (the default is `NoLabels`) and use it in every `Family<L, _>`"
    )]
    pub trait SameLabels<L> {
        /// `self`, as the field's label set.
        fn as_field_labels(&self) -> &L;
    }

    impl<L> SameLabels<L> for L {
        fn as_field_labels(&self) -> &L {
            self
        }
    }

    /// The struct's label set as the field's: the identity, or the error above.
    #[inline]
    pub fn same_labels<L, S: SameLabels<L>>(labels: &S) -> &L {
        labels.as_field_labels()
    }

    const fn str_eq(a: &str, b: &str) -> bool {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        if a.len() != b.len() {
            return false;
        }
        let mut i = 0;
        while i < a.len() {
            if a[i] != b[i] {
                return false;
            }
            i += 1;
        }
        true
    }
}
