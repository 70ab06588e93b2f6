//! What a request records, from arrival to finish: what the engine reports of it (`input.rs`),
//! the request families (`metrics.rs`) and the pure lifecycle arithmetic (`lifecycle.rs`); the
//! tracker that writes it is in `recorders/requests.rs`.

pub(crate) mod input;
pub(crate) mod lifecycle;
pub(crate) mod metrics;
pub(crate) mod record;
