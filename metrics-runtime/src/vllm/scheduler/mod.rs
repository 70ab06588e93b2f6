//! What an engine's scheduler stats record: the stats themselves (`input.rs`), the scheduler
//! families (`metrics.rs`) and the bounded CUDA-graph shape counts (`cudagraph.rs`). The
//! connector telemetry and sleep snapshot the stats carry are recorded by `connectors` and
//! `sleep`.

pub(crate) mod cudagraph;
pub(crate) mod input;
pub(crate) mod metrics;
pub(crate) mod record;
