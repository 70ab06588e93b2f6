//! The vLLM per-engine label set (`model_name`, `engine`), usable both as a prometheus-client
//! `Family` key (the baseline) and as a `metric_handles` common label set.

use prometheus_client::encoding::EncodeLabelSet;

use crate::fixtures::MODEL_NAME;

/// What vLLM's frontend keys every per-engine family by.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct EngineLabels {
    /// The served model's name.
    pub model_name: String,
    /// The engine-core index.
    pub engine: u32,
}

// prometheus-client's derive encodes the fields in declaration order, matching `KEYS`.
impl metric_handles::LabelSet for EngineLabels {
    const KEYS: &'static [&'static str] = &["model_name", "engine"];
}

impl EngineLabels {
    /// The label set of engine `engine` serving [`MODEL_NAME`].
    pub fn engine(engine: u32) -> Self {
        EngineLabels {
            model_name: MODEL_NAME.to_owned(),
            engine,
        }
    }
}
