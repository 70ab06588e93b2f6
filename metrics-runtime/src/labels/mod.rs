//! Label sets and fixed-cardinality label values.
//!
//! * [`LabelSet`]: the common label set of a metrics struct (vLLM's `model_name` + `engine`).
//!   `#[derive(LabelSet)]` implements it together with prometheus-client's `EncodeLabelSet`.
//! * [`LabelEnum`]: an enum whose variants are the complete list of values of one label
//!   (`FinishReason` → `finished_reason`). `#[derive(LabelEnum)]` implements it; a field declared
//!   as `Family<L, ByLabel<TheEnum, Counter>>` with `#[metric(label = "key")]` pre-resolves one
//!   series per variant into a [`ByLabel`] array.
//!
//! [`ByLabel`]: crate::ByLabel

mod set;
pub(crate) mod size;

pub(crate) use set::{is_label_name, is_reserved_label_key, WithLabel, WithLabels, OVERFLOW_LABEL};
pub use set::{LabelEnum, LabelSet, NoLabels};
