//! Attribute names and keys, as constants: every comparison with user input goes through
//! these, so a key is spelled in one place (serde_derive's `symbol.rs`).

use std::fmt;

use syn::{Ident, Path};

/// An attribute name or key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Symbol(pub &'static str);

/// `#[metric_handles(...)]`, the container attribute of `MetricHandles`.
pub const METRIC_HANDLES: Symbol = Symbol("metric_handles");
/// `#[metric(...)]`, the field attribute of `MetricHandles`.
pub const METRIC: Symbol = Symbol("metric");
/// `#[metrics(...)]`: not an attribute of the derive, but registered as one, so that the
/// derive can say what to write (rustc would suggest the field attribute `#[metric]`).
pub const METRICS: Symbol = Symbol("metrics");
/// `#[label(...)]`, the container, field and variant attribute of `LabelSet`/`LabelEnum`.
pub const LABEL_ATTR: Symbol = Symbol("label");
/// `#[doc = "..."]`: doc comments are help text.
pub const DOC: Symbol = Symbol("doc");
/// `#[cfg(...)]`: copied to every item generated for a field.
pub const CFG: Symbol = Symbol("cfg");
/// The lint-level attributes, copied from a field to its handle and from the struct to the
/// handles struct; `#[expect]` is copied as `#[allow]`.
pub const LINT_LEVELS: [Symbol; 5] = [
    Symbol("allow"),
    Symbol("expect"),
    Symbol("warn"),
    Symbol("deny"),
    Symbol("forbid"),
];
/// `#[expect(...)]`: copied as `#[allow(...)]`.
pub const EXPECT: Symbol = Symbol("expect");

// `#[metric_handles(...)]` keys.
pub const HANDLES: Symbol = Symbol("handles");
pub const LABELS: Symbol = Symbol("labels");
pub const CRATE: Symbol = Symbol("crate");

// `#[metric(...)]` keys.
pub const NAME: Symbol = Symbol("name");
pub const HELP: Symbol = Symbol("help");
pub const UNIT: Symbol = Symbol("unit");
pub const BUCKETS: Symbol = Symbol("buckets");
pub const LABEL: Symbol = Symbol("label");
pub const POSITIONS: Symbol = Symbol("positions");
pub const MAX_SERIES: Symbol = Symbol("max_series");
pub const MAX_LABEL_SETS: Symbol = Symbol("max_label_sets");
pub const IDLE_TIMEOUT: Symbol = Symbol("idle_timeout");
pub const ALIAS: Symbol = Symbol("alias");
pub const SKIP: Symbol = Symbol("skip");

// `alias(...)` keys (`name` is shared with `#[metric]`).
pub const DEPRECATED_IN: Symbol = Symbol("deprecated_in");

// Bucket generators and their arguments.
pub const EXPONENTIAL: Symbol = Symbol("exponential");
pub const LINEAR: Symbol = Symbol("linear");
pub const ONE_TWO_FIVE: Symbol = Symbol("one_two_five");
pub const START: Symbol = Symbol("start");
pub const FACTOR: Symbol = Symbol("factor");
pub const WIDTH: Symbol = Symbol("width");
pub const COUNT: Symbol = Symbol("count");
pub const MAX: Symbol = Symbol("max");

// `#[label(...)]` keys.
pub const RENAME: Symbol = Symbol("rename");
pub const RENAME_ALL: Symbol = Symbol("rename_all");

// Type names the derive recognises by their last path segment (for its messages only: what a
// member is comes from its `FamilyMember` implementation).
pub const FAMILY: Symbol = Symbol("Family");
pub const COUNTER: Symbol = Symbol("Counter");
pub const GAUGE: Symbol = Symbol("Gauge");
pub const HISTOGRAM: Symbol = Symbol("Histogram");
pub const INFO: Symbol = Symbol("Info");
pub const STATE_SET: Symbol = Symbol("StateSet");
pub const GAUGE_HISTOGRAM: Symbol = Symbol("GaugeHistogram");
pub const BY_LABEL: Symbol = Symbol("ByLabel");
pub const BY_LABELS: Symbol = Symbol("ByLabels");
pub const BY_POSITION: Symbol = Symbol("ByPosition");
pub const POSITION: Symbol = Symbol("Position");
pub const DYNAMIC: Symbol = Symbol("Dynamic");

impl Symbol {
    /// The symbol's text.
    pub fn as_str(self) -> &'static str {
        self.0
    }
}

impl PartialEq<Symbol> for Ident {
    fn eq(&self, word: &Symbol) -> bool {
        self == word.0
    }
}

impl PartialEq<Symbol> for &Ident {
    fn eq(&self, word: &Symbol) -> bool {
        *self == word.0
    }
}

impl PartialEq<Symbol> for Path {
    fn eq(&self, word: &Symbol) -> bool {
        self.is_ident(word.0)
    }
}

impl PartialEq<Symbol> for &Path {
    fn eq(&self, word: &Symbol) -> bool {
        self.is_ident(word.0)
    }
}

impl fmt::Display for Symbol {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str(self.0)
    }
}

// `#[metric(native(...))]` and its keys.
pub const NATIVE: Symbol = Symbol("native");
pub const BUCKET_FACTOR: Symbol = Symbol("bucket_factor");
pub const SCHEMA: Symbol = Symbol("schema");
pub const ZERO_THRESHOLD: Symbol = Symbol("zero_threshold");
pub const MAX_BUCKETS: Symbol = Symbol("max_buckets");
pub const MIN_RESET: Symbol = Symbol("min_reset");
pub const MAX_ZERO_THRESHOLD: Symbol = Symbol("max_zero_threshold");
