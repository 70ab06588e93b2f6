//! [`NativeConfig`]: how a histogram's native (sparse exponential) buckets are laid out and
//! bounded.

use std::time::Duration;

use super::native_index::{schema_for_factor, MAX_SCHEMA, MIN_SCHEMA};

/// The configuration of a histogram's native buckets (Prometheus native histograms, also
/// called sparse or exponential histograms), with client_golang's semantics
/// (`NativeHistogramBucketFactor`, `NativeHistogramZeroThreshold`,
/// `NativeHistogramMaxBucketNumber`, `NativeHistogramMinResetDuration`,
/// `NativeHistogramMaxZeroThreshold` in its `prometheus/histogram.go`).
///
/// Bucket `k` holds `(2^((k-1) * 2^-schema), 2^(k * 2^-schema)]`, on each side of a zero bucket
/// holding every `|v| <= zero_threshold`. When a read finds more buckets than `max_buckets`,
/// the histogram resets if `min_reset` has passed since its last reset, else widens the zero
/// bucket (up to `max_zero_threshold`), else halves its resolution (schema - 1, neighbouring
/// buckets merged), until it fits or the schema is -4.
///
/// ```
/// use metric_handles::Histogram;
/// use metric_handles::histogram::NativeConfig;
/// use std::time::Duration;
///
/// let native = NativeConfig::from_factor(1.1)
///     .max_buckets(100)
///     .min_reset(Duration::from_secs(3600));
/// assert_eq!(native.schema(), 3);
/// let latency = Histogram::new_native(native);
/// latency.observe(0.25);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NativeConfig {
    schema: i8,
    zero_threshold: f64,
    max_buckets: u32,
    min_reset: Option<Duration>,
    max_zero_threshold: f64,
}

// Every float of a configuration is finite and non-negative (the setters ignore anything else,
// NaN included), so equality is reflexive and `Eq` holds: configurations containing one can be
// compared and used as keys.
impl Eq for NativeConfig {}

impl NativeConfig {
    /// The zero threshold unless one is set: 2^-128, client_golang's default (values that
    /// small are zero for any practical purpose).
    pub const DEFAULT_ZERO_THRESHOLD: f64 = 2.938735877055719e-39;
    /// The bucket limit unless one is set. client_golang's default is no limit; a lock-free
    /// histogram sizes its tables from the limit, so there is always one (160 is the limit
    /// client_golang's documentation suggests, and what Prometheus accepts by default).
    pub const DEFAULT_MAX_BUCKETS: u32 = 160;
    /// The finest schema, 8: 256 buckets per power of two (bucket factor 1.0027).
    pub const MAX_SCHEMA: i8 = MAX_SCHEMA;
    /// The coarsest schema, -4: one bucket per factor 2^16.
    pub const MIN_SCHEMA: i8 = MIN_SCHEMA;
    /// The schema unless one is set: 3, the schema of client_golang's suggested factor 1.1.
    pub const DEFAULT_SCHEMA: i8 = 3;

    /// Native buckets at `schema` (clamped to -4..=8), with every other setting at its default.
    pub const fn with_schema(schema: i8) -> Self {
        let schema = if schema < MIN_SCHEMA {
            MIN_SCHEMA
        } else if schema > MAX_SCHEMA {
            MAX_SCHEMA
        } else {
            schema
        };
        NativeConfig {
            schema,
            zero_threshold: Self::DEFAULT_ZERO_THRESHOLD,
            max_buckets: Self::DEFAULT_MAX_BUCKETS,
            min_reset: None,
            max_zero_threshold: 0.0,
        }
    }

    /// Native buckets at the schema whose bucket factor is the largest one `<= factor` (1.1
    /// gives schema 3, factor 1.0905). A factor that is not a number `> 1` gives the default
    /// schema (the derive rejects it at compile time).
    pub fn from_factor(factor: f64) -> Self {
        Self::with_schema(schema_for_factor(factor).unwrap_or(Self::DEFAULT_SCHEMA))
    }

    /// The schema whose bucket factor is the largest one `<= factor` (client_golang's
    /// `pickSchema`), clamped to -4..=8; `None` for a factor that is not a number `> 1`.
    pub fn schema_for_factor(factor: f64) -> Option<i8> {
        schema_for_factor(factor)
    }

    /// Values with `|v| <= threshold` count in the zero bucket. 0 keeps a zero bucket of
    /// exact zeros only; a negative or non-finite threshold is ignored.
    pub const fn zero_threshold(mut self, threshold: f64) -> Self {
        if threshold >= 0.0 && threshold < f64::INFINITY {
            self.zero_threshold = threshold;
        }
        self
    }

    /// The most buckets (both sides, the zero bucket not counted) a read leaves in place;
    /// at least 1.
    pub const fn max_buckets(mut self, max_buckets: u32) -> Self {
        self.max_buckets = if max_buckets == 0 { 1 } else { max_buckets };
        self
    }

    /// Past the bucket limit, reset the histogram instead of lowering its resolution once this
    /// long has passed since it was created or last reset. Zero disables resets (the default).
    pub const fn min_reset(mut self, duration: Duration) -> Self {
        self.min_reset = if duration.is_zero() {
            None
        } else {
            Some(duration)
        };
        self
    }

    /// How far the zero bucket may widen to stay within the bucket limit (0, the default,
    /// never widens it). A negative or non-finite value is ignored.
    pub const fn max_zero_threshold(mut self, threshold: f64) -> Self {
        if threshold >= 0.0 && threshold < f64::INFINITY {
            self.max_zero_threshold = threshold;
        }
        self
    }

    /// The schema: bucket boundaries at `2^(k * 2^-schema)`.
    pub const fn schema(&self) -> i8 {
        self.schema
    }

    /// The initial zero threshold.
    pub const fn threshold(&self) -> f64 {
        self.zero_threshold
    }

    /// The bucket limit.
    pub const fn bucket_limit(&self) -> u32 {
        self.max_buckets
    }

    /// The minimum time between two resets, if resets are enabled.
    pub const fn reset_after(&self) -> Option<Duration> {
        self.min_reset
    }

    /// The widest the zero bucket may become.
    pub const fn zero_threshold_limit(&self) -> f64 {
        self.max_zero_threshold
    }
}

impl Default for NativeConfig {
    fn default() -> Self {
        Self::with_schema(Self::DEFAULT_SCHEMA)
    }
}
