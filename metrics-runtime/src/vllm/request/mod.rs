//! What a request records, from arrival to finish: the request families, the pure lifecycle
//! arithmetic and the per-output records the tracker merges in batches.

pub(crate) mod lifecycle;
pub(crate) mod metrics;
pub(crate) mod pending;
