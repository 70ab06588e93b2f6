//! vLLM's periodic log line: the per-interval accumulator, the line's arithmetic and text
//! (written by [`StatsLogger`](crate::vllm::StatsLogger)), and the rate limit on repeated
//! warnings.

pub(crate) mod interval;
pub(crate) mod line;
pub(crate) mod warn_limit;

pub use interval::{LogStatsInterval, MAX_LOGGED_POSITIONS};
pub use line::{SpecDecodeLine, StatsLine};
