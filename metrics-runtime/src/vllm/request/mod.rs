//! What a request records, from arrival to finish: what the engine reports of it (`input.rs`),
//! the request families (`metrics.rs`), the pure lifecycle arithmetic (`lifecycle.rs`) and the
//! inter-token latencies the tracker merges in batches (`pending.rs`).

pub(crate) mod input;
pub(crate) mod lifecycle;
pub(crate) mod metrics;
pub(crate) mod pending;
