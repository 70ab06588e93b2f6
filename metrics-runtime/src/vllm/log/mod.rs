//! vLLM's periodic log line: the per-interval accumulator, the line's arithmetic and text, the
//! logger that reads the metrics into it, and the rate limit on repeated warnings.

pub(crate) mod interval;
pub(crate) mod line;
pub(crate) mod logger;
pub(crate) mod warn_limit;
