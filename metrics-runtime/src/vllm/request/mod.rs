//! What a request records, from arrival to finish: the request families, the pure lifecycle
//! arithmetic, the per-request tracker and the per-output records it merges in batches.

pub(crate) mod lifecycle;
pub(crate) mod metrics;
pub(crate) mod pending;
pub(crate) mod tracker;
