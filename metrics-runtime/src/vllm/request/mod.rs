//! What a request records, from arrival to finish: what the engine reports of it
//! ([`RequestOutput`] and its parts), the request families ([`RequestMetrics`], one set per
//! engine), the lifecycle arithmetic that turns outputs into records ([`RequestLifecycle`]) and
//! what each record writes, with the inter-token-latency merge interval
//! ([`FLUSH_INTERVAL_TOKENS`]). [`RequestMetricsTracker`](super::RequestMetricsTracker) records
//! one request.

pub(crate) mod input;
pub(crate) mod lifecycle;
pub(crate) mod metrics;
pub(crate) mod record;

pub use input::{EventType, FinishReason, PrefillStats, RequestOutput};
pub use lifecycle::{
    FinishRecord, OutputRecord, ParentFields, PromptRecord, RequestLifecycle, RequestParams,
};
pub use metrics::{PromptSource, RequestHandles, RequestMetrics};
pub use record::FLUSH_INTERVAL_TOKENS;
