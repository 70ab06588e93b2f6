//! The label set and label enum traits, and the label sets the crate composes from them.

use std::fmt;
use std::hash::Hash;

use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelSetEncoder};

/// The common label set of a `#[derive(MetricHandles)]` struct.
///
/// Implemented by `#[derive(LabelSet)]`; implement it by hand only for a type that already
/// implements prometheus-client's `EncodeLabelSet` in the same key order as [`LabelSet::KEYS`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a label set",
    label = "not a label set",
    note = "add `#[derive(LabelSet)]` to `{Self}` (a struct whose fields are the label keys), or use `NoLabels`; `#[derive(LabelSet)]` also implements prometheus-client's `EncodeLabelSet`, so it replaces that derive"
)]
pub trait LabelSet:
    EncodeLabelSet + Clone + Hash + Eq + fmt::Debug + Send + Sync + 'static
{
    /// The label keys, in the order they are encoded. Feeds the descriptor table.
    const KEYS: &'static [&'static str];
}

/// A metrics struct without common labels: `#[metric_handles(...)]` without `labels = ...`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NoLabels;

// Not offered in "other types implement" lists: the note already names `NoLabels`.
#[diagnostic::do_not_recommend]
impl EncodeLabelSet for NoLabels {
    fn encode(&self, _encoder: &mut LabelSetEncoder) -> Result<(), fmt::Error> {
        Ok(())
    }
}

#[diagnostic::do_not_recommend]
impl LabelSet for NoLabels {
    const KEYS: &'static [&'static str] = &[];
}

/// A label whose values are a fixed, known list: a fieldless enum.
///
/// `#[derive(LabelEnum)]` implements this trait and prometheus-client's `EncodeLabelValue`:
///
/// ```
/// use metric_handles::LabelEnum;
///
/// #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
/// #[label(rename_all = "snake_case")]
/// enum Source {
///     LocalCompute,
///     LocalCacheHit,
///     #[label(rename = "external_kv_transfer")]
///     External,
/// }
///
/// assert_eq!(Source::External.label_value(), "external_kv_transfer");
/// assert_eq!(Source::LocalCacheHit.index(), 1);
/// assert_eq!(Source::VALUES, &["local_compute", "local_cache_hit", "external_kv_transfer"]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a label enum",
    label = "not a label enum",
    note = "add `#[derive(LabelEnum)]` to `{Self}`: a fieldless enum listing every value of the label; it also implements prometheus-client's `EncodeLabelValue`, so it replaces that derive"
)]
pub trait LabelEnum: Copy + EncodeLabelValue + fmt::Debug + Send + Sync + 'static {
    /// Every variant, in declaration order.
    const VARIANTS: &'static [Self];
    /// The label value of every variant, in declaration order.
    const VALUES: &'static [&'static str];
    /// The variant's position in [`LabelEnum::VARIANTS`]: a dense index, so a pre-resolved
    /// array can be indexed without hashing.
    fn index(self) -> usize;
    /// The variant's label value.
    fn label_value(self) -> &'static str {
        Self::VALUES.get(self.index()).copied().unwrap_or("")
    }
}

/// The label that marks the overflow series: `otel_metric_overflow="true"`, the name
/// OpenTelemetry's Prometheus exporter gives its overflow attribute.
pub(crate) const OVERFLOW_LABEL: &str = "otel_metric_overflow";

/// One extra label appended to a label set: `(base, key = value)`. Used when encoding the
/// children of [`ByLabel`](crate::ByLabel), [`ByPosition`](crate::ByPosition) and
/// [`Dynamic`](crate::Dynamic) so that every series carries the common labels first.
pub(crate) struct WithLabel<'a, B: ?Sized, V> {
    pub(crate) base: &'a B,
    pub(crate) key: &'static str,
    pub(crate) value: V,
}

impl<B: EncodeLabelSet + ?Sized, V: EncodeLabelValue> EncodeLabelSet for WithLabel<'_, B, V> {
    fn encode(&self, encoder: &mut LabelSetEncoder) -> Result<(), fmt::Error> {
        self.base.encode(encoder)?;
        let mut label = encoder.encode_label();
        let mut key = label.encode_label_key()?;
        fmt::Write::write_str(&mut key, self.key)?;
        let mut value = key.encode_label_value()?;
        self.value.encode(&mut value)?;
        value.finish()
    }
}

/// Extra labels appended to a label set: `(base, extra...)`.
pub(crate) struct WithLabels<'a, B: ?Sized, E: ?Sized> {
    pub(crate) base: &'a B,
    pub(crate) extra: &'a E,
}

impl<B: EncodeLabelSet + ?Sized, E: EncodeLabelSet + ?Sized> EncodeLabelSet
    for WithLabels<'_, B, E>
{
    fn encode(&self, encoder: &mut LabelSetEncoder) -> Result<(), fmt::Error> {
        self.base.encode(encoder)?;
        self.extra.encode(encoder)
    }
}

/// Whether `key` is a label name the exposition can carry: `[a-zA-Z_][a-zA-Z0-9_]*`.
pub(crate) fn is_label_name(key: &str) -> bool {
    let mut chars = key.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether `key` is reserved: by Prometheus (`le` on histogram buckets, `quantile` on
/// summaries, every key starting with `__`) or by this crate (the overflow series' label).
pub(crate) fn is_reserved_label_key(key: &str) -> bool {
    key.starts_with("__") || ["le", "quantile", OVERFLOW_LABEL].contains(&key)
}
