//! The labels every vLLM metric carries: `model_name` + `engine`.

use crate::LabelSet;

/// The labels every vLLM metric carries, in this order: `model_name`, `engine` (the engine-core
/// index as a decimal integer).
#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct EngineLabels {
    /// The served model's name.
    pub model_name: String,
    /// The engine-core index.
    pub engine: u32,
}
