//! The limits that keep a family's memory and a scrape's size bounded, in one place.
//!
//! * How many series a family keeps: [`DEFAULT_MAX_LABEL_SETS`] common label sets and
//!   [`DEFAULT_MAX_SERIES`] label sets of a run-time axis, unless a field's
//!   `max_label_sets = N` / `max_series = N` (or [`RegisterOptions`](crate::RegisterOptions))
//!   says otherwise. Past a limit, records go to one overflow series labelled
//!   `otel_metric_overflow="true"`, so nothing recorded is lost.
//! * How large one label set may be: [`MAX_LABEL_VALUE_LEN`] bytes a value and
//!   [`MAX_LABEL_SET_LEN`] bytes a set.
//! * How many series an axis resolves ahead of time ([`MAX_PRERESOLVED_POSITIONS`]) and how
//!   many axes a grid has ([`MAX_GRID_AXES`]).
//!
//! The exemplar's limits are the exemplar's: [`crate::exemplar::MAX_EXEMPLAR_CHARS`].

/// The default limit on common label sets per family (see
/// [`MetricDescriptor::max_label_sets`](crate::descriptor::MetricDescriptor::max_label_sets)).
pub const DEFAULT_MAX_LABEL_SETS: usize = 2048;

/// The default limit on series per common label set (see [`MetricDescriptor::max_series`](crate::descriptor::MetricDescriptor::max_series)).
pub const DEFAULT_MAX_SERIES: usize = 2048;

/// The most positions a position axis pre-resolves, whatever `positions = N` or
/// `RegisterOptions::positions` asks for. Each pre-resolved position is a series exported from
/// the start (at 0) for every label set; positions past it still record, through the axis's
/// bounded lookup (created on first use, up to the field's `max_series`, then the overflow
/// series). vLLM drafts a handful of tokens per step.
pub const MAX_PRERESOLVED_POSITIONS: usize = 256;

/// The longest label value a [`Dynamic`](crate::Dynamic) series (or a plug-in family's extra
/// label) may carry, in bytes as written (escapes and control pictures included).
pub const MAX_LABEL_VALUE_LEN: usize = 1024;

/// The longest label set a [`Dynamic`](crate::Dynamic) series (or a plug-in family's extra
/// labels) may carry: its labels as written between `{` and `}`, in bytes.
pub const MAX_LABEL_SET_LEN: usize = 4096;

/// The most axes one [`ByLabels`](crate::axis::ByLabels) member may combine.
pub const MAX_GRID_AXES: usize = 4;
