//! vLLM's periodic log line ("Avg prompt throughput: ... tokens/s, ..."), the figures vLLM
//! logs but does not export: [`StatsLogger`](crate::vllm::StatsLogger) reads the metrics each
//! interval and computes a [`StatsLine`] (with its [`SpecDecodeLine`] when speculative decoding
//! is on) from two readings and what each engine's [`LogStatsInterval`] gathered in between
//! (drained from [`SchedulerStatsRecorder::drain_log_stats`]).
//!
//! [`SchedulerStatsRecorder::drain_log_stats`]: crate::vllm::SchedulerStatsRecorder::drain_log_stats

pub(crate) mod interval;
pub(crate) mod line;
pub(crate) mod warn_limit;

pub use interval::{LogStatsInterval, MAX_LOGGED_POSITIONS};
pub use line::{SpecDecodeLine, StatsLine};
