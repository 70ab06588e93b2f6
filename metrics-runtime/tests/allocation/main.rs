//! What allocates: nothing on the record paths once a label set is resolved (core members and
//! the vLLM recorders), and a bounded amount under an adversarial stream of label values. One
//! counting global allocator serves the binary ([`counting`]).

#[path = "../support/mod.rs"]
mod support;

// `pub`, as each was its own crate root: the fields of the structs they derive are read by
// generated code only, which a private module would report as never read.
pub mod cardinality;
pub mod core_records;
mod counting;
pub mod exemplars;
pub mod guards;
#[cfg(feature = "http-layer")]
pub mod http_bodies;
pub mod idle_expiry;
#[cfg(feature = "metrics-facade")]
pub mod metrics_facade;
pub mod native_histogram;
pub mod scrape;
pub mod series_memory;
pub mod timers;
#[cfg(feature = "vllm")]
pub mod vllm_records;
