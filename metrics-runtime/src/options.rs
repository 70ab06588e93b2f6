//! Run-time choices made at registration: bucket overrides, position counts, series limits and
//! which deprecated names to expose.

use std::collections::HashMap;

use crate::buckets::{self, BucketError};
use crate::descriptor::{Alias, MetricDescriptor};

/// Options for `register_with`. The defaults reproduce exactly what the declaration says.
///
/// ```
/// use metrics_runtime::RegisterOptions;
///
/// let options = RegisterOptions::new()
///     .buckets("vllm:request_prompt_tokens", metrics_runtime::buckets::one_two_five(4096.0))
///     .expect("valid buckets")
///     .positions("vllm:spec_decode_num_accepted_tokens_per_pos", 3)
///     .max_series("vllm:num_requests_running", 64)
///     .show_hidden_metrics_for_version("0.10");
/// # let _ = options;
/// ```
#[derive(Clone, Debug, Default)]
pub struct RegisterOptions {
    buckets: HashMap<String, Vec<f64>>,
    positions: HashMap<String, usize>,
    max_series: HashMap<String, usize>,
    show_hidden_for: Option<String>,
}

impl RegisterOptions {
    /// Options that change nothing.
    pub fn new() -> Self {
        Self::default()
    }

    /// Replaces the buckets of the histogram registered as `metric` (its primary name).
    /// Fails, naming the bound, unless the list is non-empty, finite and strictly increasing.
    pub fn buckets(
        mut self,
        metric: impl Into<String>,
        bounds: Vec<f64>,
    ) -> Result<Self, BucketError> {
        buckets::validate(&bounds)?;
        self.buckets.insert(metric.into(), bounds);
        Ok(self)
    }

    /// Sets how many positions the position axis of `metric` pre-resolves.
    pub fn positions(mut self, metric: impl Into<String>, count: usize) -> Self {
        self.positions.insert(metric.into(), count);
        self
    }

    /// Sets how many label sets `metric` may hold before records go to its overflow series.
    /// A limit of 0 is raised to 1: a family always has room for one label set.
    pub fn max_series(mut self, metric: impl Into<String>, limit: usize) -> Self {
        self.max_series.insert(metric.into(), limit.max(1));
        self
    }

    /// Also exposes metric names deprecated in `version`, vLLM's
    /// `--show-hidden-metrics-for-version` semantics: a name hidden since version V is shown
    /// when the user asks for V. The alias shares the primary metric's series, so recording
    /// once updates both names at no extra cost.
    pub fn show_hidden_metrics_for_version(mut self, version: impl Into<String>) -> Self {
        self.show_hidden_for = Some(version.into());
        self
    }

    /// The bucket bounds for `descriptor`: the override if any, else the declared ones.
    pub fn bucket_bounds(&self, descriptor: &MetricDescriptor) -> Vec<f64> {
        match self.buckets.get(descriptor.name) {
            Some(bounds) => bounds.clone(),
            None => descriptor
                .buckets
                .as_ref()
                .map(|b| b.bounds())
                .unwrap_or_default(),
        }
    }

    /// The pre-resolved position count for `descriptor`, or `declared` when not overridden.
    pub fn position_count(&self, descriptor: &MetricDescriptor, declared: usize) -> usize {
        self.positions
            .get(descriptor.name)
            .copied()
            .unwrap_or(declared)
    }

    /// The series limit for `descriptor`.
    pub fn series_limit(&self, descriptor: &MetricDescriptor) -> usize {
        self.max_series
            .get(descriptor.name)
            .copied()
            .unwrap_or(descriptor.max_series)
            .max(1)
    }

    /// Whether `alias` is to be exposed under these options.
    pub fn shows(&self, alias: &Alias) -> bool {
        self.show_hidden_for.as_deref() == Some(alias.deprecated_in)
    }
}
