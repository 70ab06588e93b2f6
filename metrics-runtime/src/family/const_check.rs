//! The compile-time check of a plug-in family declared with
//! [`runtime_families!`](crate::runtime_families): the rules `RuntimeFamilies::register`
//! applies at run time, applied while the declaring crate compiles, with a message that names
//! the family.
//!
//! Runs in `const` evaluation, where `format!` is unavailable: the message is written into a
//! fixed buffer ([`Message`]).

use crate::buckets::Buckets;
use crate::declare::bucket_check::{assert_valid_buckets, assert_valid_generator};
use crate::declare::const_message::Message;
use crate::descriptor::{LabelAxis, MetricDescriptor, MetricKind};

use super::validate::{contains, is_reserved_key};
use crate::const_eq::bytes_eq;
use crate::names::{is_label_key, is_metric_name, is_unit};

/// Fails compilation when `descriptor` breaks a rule of a plug-in family: a valid Prometheus
/// name, no `_total` on a counter, a help text that is not blank and does not end in `.`, a
/// valid unit, buckets on histograms only (and valid ones), extra label keys only as a
/// [`LabelAxis::Dynamic`] axis, each a valid key, not reserved and repeating neither another
/// extra key nor a common one.
pub const fn assert_valid_plugin_family(descriptor: &MetricDescriptor) {
    let family = Message::new()
        .push_str("plug-in family `")
        .push_str(descriptor.name)
        .push_str("`: ");
    if !is_metric_name(descriptor.name) {
        family
            .push_str("not a valid metric name; use letters, digits, `_` and `:`, not starting with a digit")
            .fail();
    }
    if matches!(descriptor.kind, MetricKind::Counter)
        && ends_with(descriptor.name.as_bytes(), b"_total")
    {
        family
            .push_str("a counter's name must not end in `_total` (the exposition adds it); drop the suffix")
            .fail();
    }
    let help = trim_ascii_end(descriptor.help.as_bytes());
    if help.is_empty() {
        family.push_str("the help text is empty").fail();
    }
    if help[help.len() - 1] == b'.' {
        family
            .push_str("the help text must not end in `.` (the exposition adds it); remove it")
            .fail();
    }
    if let Some(unit) = descriptor.unit {
        if !is_unit(unit) {
            family
                .push_str("unit `")
                .push_str(unit)
                .push_str("` is not lower-case letters, digits and `_`, starting with a letter")
                .fail();
        }
    }
    match (descriptor.kind, descriptor.buckets) {
        (MetricKind::Histogram, None) => {
            family
                .push_str("a histogram needs buckets: add `.buckets(...)`")
                .fail();
        }
        (MetricKind::Histogram, Some(Buckets::Explicit(bounds))) => {
            assert_valid_buckets(descriptor.name, bounds)
        }
        (MetricKind::Histogram, Some(generator)) => assert_valid_generator(generator),
        (_, Some(_)) => {
            family
                .push_str("only a histogram has buckets: remove `.buckets(...)`")
                .fail();
        }
        (_, None) => {}
    }
    let keys: &[&str] = match descriptor.axis {
        None => &[],
        Some(LabelAxis::Dynamic { keys }) => keys,
        Some(_) => family
            .push_str("a plug-in family's extra label keys are an axis `LabelAxis::Dynamic { keys: &[...] }`")
            .fail(),
    };
    let mut i = 0;
    while i < keys.len() {
        let key = keys[i];
        let about_key = family.push_str("label key `").push_str(key).push_str("` ");
        if !is_label_key(key) {
            about_key
                .push_str("is not a valid label name; use letters, digits and `_`, not starting with a digit")
                .fail();
        }
        if is_reserved_key(key) {
            about_key
                .push_str(
                    "is reserved (`le`, `quantile`, `otel_metric_overflow`, `__*`); rename it",
                )
                .fail();
        }
        if contains(keys.split_at(i).0, key) || contains(descriptor.common_labels, key) {
            about_key
                .push_str("is given twice (among the extra keys, or as a common key); rename it")
                .fail();
        }
        i += 1;
    }
}

const fn ends_with(text: &[u8], suffix: &[u8]) -> bool {
    text.len() >= suffix.len() && bytes_eq(text.split_at(text.len() - suffix.len()).1, suffix)
}

/// `text` without trailing ASCII whitespace (the run-time check also trims other Unicode
/// whitespace).
const fn trim_ascii_end(text: &[u8]) -> &[u8] {
    let mut end = text.len();
    while end > 0 && text[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    text.split_at(end).0
}
