//! [`RuntimeFamily`]: the series of one family registered at run time.

use std::fmt;
use std::sync::atomic::AtomicU64;

use crate::counter::Counter;
use prometheus_client::encoding::{
    DescriptorEncoder, EncodeLabelSet, EncodeLabelValue, LabelSetEncoder,
};
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Unit;

use super::error::FamilyError;
use crate::descriptor::MetricKind;
use crate::histogram::Histogram;
use crate::labels::size::{extra_labels_fit, extra_values_may_fit};
use crate::labels::NoLabels;
use crate::labels::{LabelSet, WithLabels};
use crate::member::{FamilyMember, SeriesSpec};
use crate::series::bounded::{encode_overflow, SeriesMap};

/// A member type a run-time family can hold: one series per label set. Implemented for
/// this crate's `Counter`, prometheus-client's `Gauge` (integer and float) and this crate's
/// [`Histogram`]: the very handles the derive hands out.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a member a plug-in family can hold",
    label = "a plug-in family holds one series per label set: use `Counter`, `Gauge` or `Histogram`"
)]
pub trait RuntimeMember: FamilyMember {}

impl RuntimeMember for Counter<u64, AtomicU64> {}
impl RuntimeMember for Counter<f64, AtomicU64> {}
impl RuntimeMember for Gauge<i64, std::sync::atomic::AtomicI64> {}
impl RuntimeMember for Gauge<u64, AtomicU64> {}
impl RuntimeMember for Gauge<f64, AtomicU64> {}
impl RuntimeMember for Histogram {}

/// The key of one series: the common label set and the extra label values.
type SeriesKey<L> = (L, Box<[String]>);

/// The series of a family registered with
/// [`RuntimeFamilies::register`](super::RuntimeFamilies::register).
///
/// [`get_or_create`](Self::get_or_create) is the slow path (validates, hashes, locks, maybe allocates) and
/// returns the handle (`Counter`, `Gauge`, `Histogram`): cache it, and every record through it
/// is the same atomic operation as through a derived field's handle. Past the spec's series
/// limit, `get_or_create` returns the shared overflow series (`otel_metric_overflow="true"`),
/// and so it does for extra label values too large to keep (a `Dynamic` axis's rule: each
/// value at most [`MAX_LABEL_VALUE_LEN`](crate::limits::MAX_LABEL_VALUE_LEN) bytes and all of them
/// at most [`MAX_LABEL_SET_LEN`](crate::limits::MAX_LABEL_SET_LEN), as written in the exposition).
/// Cloning is cheap; clones share the series.
pub struct RuntimeFamily<L, M> {
    inner: SeriesMap<SeriesKey<L>, M, Described>,
}

/// What a run-time family's spec says besides its series.
struct Described {
    name: String,
    /// Help text with the final `.` the exposition shows (as `Registry::register` adds it).
    help: String,
    unit: Option<Unit>,
    kind: MetricKind,
    extra_keys: Box<[String]>,
    /// The extra label values whose series are created at zero for each common label set
    /// declared present: the empty set for a family without extra keys, else the sets the
    /// spec declared (`FamilySpec::precreate`).
    precreated: Box<[Box<[String]>]>,
}

impl<L: LabelSet, M: RuntimeMember> RuntimeFamily<L, M> {
    pub(crate) fn new(
        name: String,
        help: &str,
        unit: Option<Unit>,
        extra_keys: Vec<String>,
        precreated: &[Vec<String>],
        spec: SeriesSpec,
    ) -> Self {
        // Every label of a family without extra keys is known once its common labels are.
        let precreated = if extra_keys.is_empty() {
            Box::new([Box::default()]) as Box<[_]>
        } else {
            precreated
                .iter()
                .map(|values| values.clone().into_boxed_slice())
                .collect()
        };
        let described = Described {
            // One line without surrounding whitespace, as a derived family's: line breaks
            // and tabs become spaces.
            help: crate::sanitize::exposed_help(help.trim()),
            name,
            unit,
            kind: M::KIND,
            extra_keys: extra_keys.into_boxed_slice(),
            precreated,
        };
        RuntimeFamily {
            inner: SeriesMap::new(spec.clone(), spec.max_series, spec.idle_timeout, described),
        }
    }

    /// The handle of the series `common` + `extra` (one value per extra label key, in order):
    /// found, created on first sight, or the overflow series: past the series limit, or for
    /// extra labels too large to keep (a value over
    /// [`MAX_LABEL_VALUE_LEN`](crate::limits::MAX_LABEL_VALUE_LEN) bytes, or all of them over
    /// [`MAX_LABEL_SET_LEN`](crate::limits::MAX_LABEL_SET_LEN), as written in the exposition; counted
    /// in [`oversized_lookups`](Self::oversized_lookups)). Either way the record is counted.
    /// Fails only when `extra` has the wrong length.
    pub fn get_or_create(&self, common: &L, extra: &[&str]) -> Result<M, FamilyError> {
        let inner = &self.inner;
        if extra.len() != inner.about.extra_keys.len() {
            return Err(FamilyError::LabelValueCount {
                name: inner.about.name.clone(),
                expected: inner.about.extra_keys.len(),
                got: extra.len(),
            });
        }
        // Values too long to be kept are never in the map: send them to the overflow series
        // before copying them into a key.
        if !extra_values_may_fit(extra) {
            return Ok(inner.oversized());
        }
        let key = (
            common.clone(),
            extra.iter().map(|&v| v.to_owned()).collect(),
        );
        if let Some(series) = inner.series.get(&key) {
            return Ok(series);
        }
        if !extra_labels_fit(&inner.about.extra_keys, extra) {
            return Ok(inner.oversized());
        }
        Ok(inner.resolve(&key))
    }

    /// Removes the series `common` + `extra` from the exposition; returns whether it existed.
    /// Handles resolved earlier keep working but are no longer exported.
    pub fn remove(&self, common: &L, extra: &[&str]) -> bool {
        let key = (
            common.clone(),
            extra.iter().map(|&v| v.to_owned()).collect(),
        );
        self.inner.series.remove(&key)
    }

    /// Removes every series whose common labels are `common`; returns how many.
    pub fn remove_common(&self, common: &L) -> usize {
        self.inner.series.retain(|(labels, _)| labels != common)
    }

    /// The registered name.
    pub fn name(&self) -> &str {
        &self.inner.about.name
    }

    /// The extra label keys, in encoding order.
    pub fn extra_label_keys(&self) -> &[String] {
        &self.inner.about.extra_keys
    }

    /// How many label sets have their own series (the overflow series not counted).
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// Whether no series has been resolved yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many `get_or_create` calls were routed to the overflow series.
    pub fn overflowed_lookups(&self) -> u64 {
        self.inner.overflowed_lookups()
    }

    /// Sweeps the series now, as a scrape does: with an idle timeout
    /// ([`FamilySpec::idle_timeout`](super::FamilySpec::idle_timeout)), the series not recorded
    /// nor looked up for it leave the exposition and dormant series recorded since come back,
    /// by the rules of a [`Dynamic`](crate::Dynamic#idle-series-expiry) axis. Returns how many
    /// series left. Without an idle timeout, does nothing.
    pub fn expire_idle(&self) -> usize {
        self.inner.series.sweep()
    }

    /// How many times a series went dormant for being idle, and how many dormant series were
    /// dropped to give their slot to a new label set.
    pub fn expired_series(&self) -> (u64, u64) {
        self.inner.series.expiry_counts()
    }

    /// How many `get_or_create` calls were routed to the overflow series because their extra
    /// labels were over the size limits (also counted in
    /// [`overflowed_lookups`](Self::overflowed_lookups)).
    pub fn oversized_lookups(&self) -> u64 {
        self.inner.oversized_lookups()
    }
}

impl<L, M> Clone for RuntimeFamily<L, M> {
    fn clone(&self) -> Self {
        RuntimeFamily {
            inner: self.inner.clone(),
        }
    }
}

impl<L, M> fmt::Debug for RuntimeFamily<L, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RuntimeFamily")
            .field("name", &self.inner.about.name)
            .field("kind", &self.inner.about.kind)
            .field("extra_label_keys", &self.inner.about.extra_keys)
            .finish_non_exhaustive()
    }
}

/// What the set of run-time families needs from each of them, whatever its member type.
pub(crate) trait ErasedFamily<L>: Send + Sync + fmt::Debug {
    /// Writes the family's descriptor and every series.
    fn encode(&self, encoder: &mut DescriptorEncoder<'_>) -> Result<(), fmt::Error>;
    /// Removes every series of the common label set `common`.
    fn remove_common(&self, common: &L) -> usize;
    /// Creates at zero the series of `common` whose every label is known now (the family has
    /// no extra label keys, or the spec declared the extra values), as far as the family has
    /// room (up to its limit, never the overflow series). They are pinned: idle expiry leaves
    /// them alone until `common` is removed.
    fn create_zero_series(&self, common: &L);
}

impl<L: LabelSet, M: RuntimeMember> ErasedFamily<L> for RuntimeFamily<L, M> {
    fn encode(&self, encoder: &mut DescriptorEncoder<'_>) -> Result<(), fmt::Error> {
        let inner = &*self.inner;
        let mut metric_encoder = encoder.encode_descriptor(
            &inner.about.name,
            &inner.about.help,
            inner.about.unit.as_ref(),
            inner.about.kind.metric_type(),
        )?;
        // The scrape is the sweep's clock: no record ever pays for expiry.
        inner.series.sweep();
        inner.series.for_each(|key, member| match key {
            Some((common, values)) => {
                let extra = ExtraLabels {
                    keys: &inner.about.extra_keys,
                    values,
                };
                let labels = WithLabels {
                    base: common,
                    extra: &extra,
                };
                member.encode_member(&labels, &mut metric_encoder)
            }
            None => encode_overflow(member, &NoLabels, &mut metric_encoder),
        })
    }

    fn remove_common(&self, common: &L) -> usize {
        RuntimeFamily::remove_common(self, common)
    }

    fn create_zero_series(&self, common: &L) {
        let inner = &*self.inner;
        // Other extra label values depend on the data: those series appear on their first
        // record.
        for values in &inner.about.precreated {
            let _ = inner.pin(&(common.clone(), values.clone()));
        }
    }
}

/// The extra `key="value"` pairs of one series.
struct ExtraLabels<'a> {
    keys: &'a [String],
    values: &'a [String],
}

impl EncodeLabelSet for ExtraLabels<'_> {
    fn encode(&self, encoder: &mut LabelSetEncoder) -> Result<(), fmt::Error> {
        for (key, value) in self.keys.iter().zip(self.values.iter()) {
            let mut label = encoder.encode_label();
            let mut key_encoder = label.encode_label_key()?;
            fmt::Write::write_str(&mut key_encoder, key)?;
            let mut value_encoder = key_encoder.encode_label_value()?;
            EncodeLabelValue::encode(&value.as_str(), &mut value_encoder)?;
            value_encoder.finish()?;
        }
        Ok(())
    }
}
