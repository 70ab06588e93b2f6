// The label derives: a label set with a renamed key, an enum with renamed values.
#[derive(LabelSet)]
pub struct EngineLabels {
    #[label(rename = "model")]
    pub model_name: String,
    pub engine: u32,
}

#[derive(LabelEnum)]
#[label(rename_all = "snake_case")]
pub enum FinishReason {
    Stop,
    #[label(rename = "too_long")]
    Length,
    AbortedByUser,
}
