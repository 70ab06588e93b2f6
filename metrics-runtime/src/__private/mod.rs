//! Items the derive's generated code (and this repository's tests and benchmarks) refer to, as
//! `metric_handles::__private`. Not a stable API: anything here may change in any release.

mod field_ops;

pub use crate::axis::single::DynamicLabels;
pub use crate::family::declared::DeclaredFamilies;
pub use crate::family::register::register_family;
pub use crate::histogram::bucket_lookup::BucketLookup;
pub use crate::member::SeriesSpec;
pub use crate::registry::declared::check_registration;
pub use crate::render::{Label, LabelStack, Scratch, SeriesWriter};
pub use field_ops::{
    assert_family, field_ops, AnyFamily, DebugMember, FieldFamily, FieldLabels, FieldOps,
};
pub use prometheus_client;
pub use std;

/// An unregistered family whose members are built from `spec` (benchmarks and tests).
pub fn new_family<L: crate::LabelSet, M: crate::member::FamilyMember>(
    spec: SeriesSpec,
) -> crate::Family<L, M> {
    crate::Family::new(spec)
}

/// Gives `histogram` its shards, as the first record that meets another thread's on it does:
/// the memory benchmark measures a contended series so, whatever its threads' timing.
pub fn install_histogram_shards(histogram: &crate::Histogram) {
    histogram.install_shards();
}

/// `options` with the idle timeout a field declares (`#[metric(idle_timeout = "...")]`, in
/// milliseconds) for `metric`, unless they override it: what the generated `register_with`
/// gives that field's registration.
pub fn with_declared_idle_timeout<'a>(
    options: &'a crate::RegisterOptions,
    metric: &str,
    millis: u64,
) -> std::borrow::Cow<'a, crate::RegisterOptions> {
    options.with_declared_idle_timeout(metric, std::time::Duration::from_millis(millis))
}

/// Fails compilation (in a `const _: () = ...` item) when an axis label key repeats one of
/// the struct's common label keys: the series would carry the same key twice.
pub const fn assert_axis_key_is_free(common: &[&str], axis_key: &str) {
    let mut i = 0;
    while i < common.len() {
        if str_eq(common[i], axis_key) {
            panic!("an axis label key repeats a key of the struct's common label set: rename it with `label = \"...\"`");
        }
        i += 1;
    }
}

pub use crate::declare::bucket_check::{
    assert_valid_buckets, assert_valid_generator, bucket_count,
};

use crate::const_eq::bytes_eq;
use crate::declare::const_message::Message;
use crate::descriptor::LabelAxis;
use crate::member::AxisShape;

/// The descriptor's axis, from the member's declared shape, the field's `label = ...` keys,
/// the grid's axes (built by [`grid_axis`]) and the declared position count. `None` when
/// the keys do not fit the shape: a generated check reports that, naming the field.
pub const fn describe_axis(
    shape: AxisShape,
    keys: &'static [&'static str],
    grid: &'static [LabelAxis],
    positions: usize,
) -> Option<LabelAxis> {
    match (shape, keys) {
        (AxisShape::Enum(values), [key]) => Some(LabelAxis::Enum { key, values }),
        (AxisShape::Position, [key]) => Some(LabelAxis::Position {
            key,
            count: positions,
        }),
        (AxisShape::Dynamic(keys), _) => Some(LabelAxis::Dynamic { keys }),
        (AxisShape::Grid(axes), _) if axes.len() == grid.len() => {
            Some(LabelAxis::Grid { axes: grid })
        }
        _ => None,
    }
}

/// Axis `index` of a grid member, labelled `key`.
pub const fn grid_axis(
    shape: AxisShape,
    index: usize,
    key: &'static str,
    positions: usize,
) -> LabelAxis {
    match shape {
        AxisShape::Grid(axes) if index < axes.len() => match axes[index] {
            Some(values) => LabelAxis::Enum { key, values },
            None => LabelAxis::Position {
                key,
                count: positions,
            },
        },
        _ => LabelAxis::Position { key, count: 0 },
    }
}

/// Fails compilation when the fixed axes of field `field` pre-resolve more series per label set
/// than its `max_series`, saying how many (and of which axis lengths) against which limit.
pub const fn assert_fits_max_series(
    field: &str,
    shape: AxisShape,
    positions: usize,
    max_series: usize,
) {
    let product = shape.preresolved(positions);
    if product <= max_series {
        return;
    }
    let mut message = Message::new()
        .push_str("field `")
        .push_str(field)
        .push_str("`: its fixed axes pre-resolve ")
        .push_usize(product)
        .push_str(" series per label set");
    if let AxisShape::Grid(axes) = shape {
        message = message.push_str(" (");
        let mut i = 0;
        while i < axes.len() {
            if i > 0 {
                message = message.push_str(" x ");
            }
            message = match axes[i] {
                Some(values) => message.push_usize(values.len()),
                None => message.push_usize(positions).push_str(" positions"),
            };
            i += 1;
        }
        message = message.push_str(")");
    }
    message = message
        .push_str(", more than its `max_series` of ")
        .push_usize(max_series);
    message = if shape.has_position() {
        message.push_str(": raise `max_series`, or lower `positions`")
    } else {
        message
            .push_str(": raise `max_series` (every combination of its enum axes is pre-resolved)")
    };
    message.fail()
}

/// The keys of a `Dynamic` axis, empty for every other shape.
pub const fn dynamic_keys(shape: AxisShape) -> &'static [&'static str] {
    match shape {
        AxisShape::Dynamic(keys) => keys,
        _ => &[],
    }
}

/// The field type of the stub handles struct the derive emits, on error, for a field whose
/// type it could not read.
#[derive(Clone, Copy, Debug)]
pub struct Unresolved;

/// Whether the member is a counter (for the generated `_total` check).
pub const fn is_counter(kind: crate::descriptor::MetricKind) -> bool {
    matches!(kind, crate::descriptor::MetricKind::Counter)
}

/// Whether the member is a histogram (for the generated `native` checks).
pub const fn is_histogram(kind: crate::descriptor::MetricKind) -> bool {
    matches!(kind, crate::descriptor::MetricKind::Histogram)
}

/// Whether the member has buckets (for the generated `buckets` checks).
pub const fn has_buckets(kind: crate::descriptor::MetricKind) -> bool {
    kind.has_buckets()
}

/// Whether OpenMetrics allows the member a unit: not an info or a state set (for the
/// generated `unit` check).
pub const fn allows_unit(kind: crate::descriptor::MetricKind) -> bool {
    !matches!(
        kind,
        crate::descriptor::MetricKind::Info | crate::descriptor::MetricKind::StateSet
    )
}

/// Fails compilation when a `Dynamic<D, _>` axis repeats one of the struct's common label
/// keys (`D::KEYS` against `L::KEYS`).
pub const fn assert_axis_keys_are_free(common: &[&str], axis_keys: &[&str]) {
    let mut i = 0;
    while i < axis_keys.len() {
        let mut j = 0;
        while j < common.len() {
            if str_eq(common[j], axis_keys[i]) {
                panic!("a `Dynamic` axis label key repeats a key of the struct's common label set: rename one of them with `#[label(rename = \"...\")]`");
            }
            j += 1;
        }
        i += 1;
    }
}

/// A field of a `#[derive(LabelSet)]` struct: any prometheus-client `EncodeLabelValue`. A trait
/// of its own so that a field type that is not one is told which types are.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a label value",
    label = "not a label value",
    note = "each field of a `#[derive(LabelSet)]` struct is one label, whose value is a `String`, a `&'static str`, an integer, a `bool` or a `#[derive(LabelEnum)]` enum (any type that implements prometheus-client's `EncodeLabelValue`); several values are several fields, or a `Dynamic` axis"
)]
pub trait LabelValue {
    /// Writes the value.
    fn encode_value(
        &self,
        encoder: &mut prometheus_client::encoding::LabelValueEncoder<'_>,
    ) -> Result<(), std::fmt::Error>;
}

#[diagnostic::do_not_recommend]
impl<T: prometheus_client::encoding::EncodeLabelValue + ?Sized> LabelValue for T {
    #[inline]
    fn encode_value(
        &self,
        encoder: &mut prometheus_client::encoding::LabelValueEncoder<'_>,
    ) -> Result<(), std::fmt::Error> {
        self.encode(encoder)
    }
}

/// What `register` puts in a `#[metric(skip)]` field: its `Default`. A trait of its own so a
/// type without `Default` is reported at the field, with what to write.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no `Default`, which a `#[metric(skip)]` field needs",
    label = "`register` fills this field with `Default::default()`",
    note = "derive or implement `Default` for `{Self}`, or declare the field as `Option<{Self}>` and set it after `register`"
)]
pub trait SkippedField: Sized {
    /// The field's value after `register`.
    fn skipped() -> Self;
}

#[diagnostic::do_not_recommend]
impl<T: Default> SkippedField for T {
    fn skipped() -> T {
        T::default()
    }
}

/// The value of a `#[metric(skip)]` field after `register`.
pub fn skipped_field<T: SkippedField>() -> T {
    T::skipped()
}

const fn str_eq(a: &str, b: &str) -> bool {
    bytes_eq(a.as_bytes(), b.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::assert_fits_max_series;
    use crate::member::AxisShape;

    const METHODS: &[&str] = &["a", "b", "c"];

    #[test]
    fn a_grid_within_its_limit_passes() {
        assert_fits_max_series("f", AxisShape::Grid(&[Some(METHODS), None]), 4, 12);
    }

    #[test]
    #[should_panic(
        expected = "field `f`: its fixed axes pre-resolve 15 series per label set (3 x 5 positions), more than its `max_series` of 12: raise `max_series`, or lower `positions`"
    )]
    fn a_grid_over_its_limit_names_the_product_and_the_limit() {
        assert_fits_max_series("f", AxisShape::Grid(&[Some(METHODS), None]), 5, 12);
    }
}
