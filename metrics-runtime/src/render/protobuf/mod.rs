//! This crate's families as `io.prometheus.client.MetricFamily` messages (prometheus/client_model
//! `metrics.proto`), written straight into the scrape's buffer from the same series the text
//! writer reads: no message structs are built.
//!
//! * [`heads`]: what a family renders once, at registration: its name, help, type and unit
//!   fields (through prometheus-client's own protobuf encoder, so they are the fields it
//!   writes), and its level's const labels as encoded `LabelPair`s.
//! * [`wire`]: varints, doubles and length-delimited fields; [`fields`]: the label pair and
//!   timestamp fields every message kind shares.
//! * [`exemplar`]: the `Exemplar` message from plain data, and from what a read of a series'
//!   exemplar slot copied.
//! * [`counter`], [`gauge`] (an info too), [`state_set`] (a `Metric` per state),
//!   [`histogram`], [`gauge_histogram`]: the `Metric` messages of a series, called by
//!   [`SeriesWriter`](super::SeriesWriter) in place of its text lines.
//!
//! What a message holds beyond prometheus-client's: a counter's and a histogram's
//! `created_timestamp` (`start_timestamp` in prometheus-client's copy of the schema), the
//! series' creation time. Label values and help carry control characters as the text formats
//! write them (the exposition's module documentation says why): a series' labels are read back
//! from the text the series rendered when it was created, whose only escapes are `\\`, `\"` and
//! `\n`.

pub(crate) mod exemplar;
pub(crate) mod fields;
pub(crate) mod heads;
pub(crate) mod wire;

use std::fmt;

use crate::exemplar::ExemplarBuffer;
use crate::histogram::GaugeHistogram;
use crate::histogram::{BucketRuns, Histogram};
use crate::render::labels::{Label, LabelStack};
use crate::render::scratch::Scratch;
use crate::sanitize::replace_controls;
pub(crate) use exemplar::ExemplarData;
use exemplar::{write_exemplar, BUCKET_EXEMPLAR, COUNTER_EXEMPLAR, HISTOGRAM_EXEMPLARS};
use fields::{label_pair, timestamp, LABEL};
pub(crate) use heads::{FamilyHeads, MetricHeads};
use wire::{delimited, double, message, sint, string, uint, varint, zigzag};

/// `MetricFamily.metric`.
pub(crate) const FAMILY_METRIC: u32 = 4;
/// `Metric.gauge`, `Metric.counter`, `Metric.histogram`.
const METRIC_GAUGE: u32 = 2;
const METRIC_COUNTER: u32 = 3;
const METRIC_HISTOGRAM: u32 = 7;
/// `Counter.created_timestamp`; `Histogram.created_timestamp`.
const COUNTER_CREATED: u32 = 3;
const HISTOGRAM_CREATED: u32 = 15;

/// Appends one `Metric` of a counter: the series' labels, its value, its exemplar if it has
/// one, and its creation time.
pub(crate) fn counter<'l, L>(
    out: &mut Vec<u8>,
    heads: &MetricHeads,
    labels: &LabelStack<'_>,
    value: f64,
    exemplar: Option<ExemplarData<L>>,
) -> Result<(), fmt::Error>
where
    L: IntoIterator<Item = (&'l str, &'l str)> + Clone,
{
    message(out, FAMILY_METRIC, 1, |out| {
        write_labels(out, heads, labels)?;
        message(out, METRIC_COUNTER, 1, |out| {
            double(out, 1, value);
            if let Some(exemplar) = &exemplar {
                write_exemplar(out, COUNTER_EXEMPLAR, exemplar);
            }
            timestamp(out, COUNTER_CREATED, labels.created());
        });
        Ok(())
    })
}

/// Appends one `Metric` of a gauge.
pub(crate) fn gauge(
    out: &mut Vec<u8>,
    heads: &MetricHeads,
    labels: &LabelStack<'_>,
    value: f64,
) -> Result<(), fmt::Error> {
    message(out, FAMILY_METRIC, 1, |out| {
        write_labels(out, heads, labels)?;
        message(out, METRIC_GAUGE, 1, |out| double(out, 1, value));
        Ok(())
    })
}

/// Appends the `Metric`s of a state set: one gauge per state of `states`, 1 for the one at
/// `current` and 0 for the others, each labelled with the series' labels and then the
/// family's name as the key and the state as the value (the sample `name{labels,name="state"}`
/// of the text formats).
pub(crate) fn state_set(
    out: &mut Vec<u8>,
    heads: &MetricHeads,
    labels: &LabelStack<'_>,
    states: &[&str],
    current: usize,
) -> Result<(), fmt::Error> {
    for (index, state) in states.iter().enumerate() {
        message(out, FAMILY_METRIC, 1, |out| {
            write_labels(out, heads, labels)?;
            label_pair(out, LABEL, &heads.family_name, &replace_controls(state));
            let set = if index == current { 1.0 } else { 0.0 };
            message(out, METRIC_GAUGE, 1, |out| double(out, 1, set));
            Ok::<(), fmt::Error>(())
        })?;
    }
    Ok(())
}

/// Appends one `Metric` of a histogram: its count, sum and cumulative classic buckets (`+Inf`
/// included) with their exemplars, its native buckets when it has them, its creation time,
/// and its native buckets' exemplars.
pub(crate) fn histogram(
    out: &mut Vec<u8>,
    heads: &MetricHeads,
    labels: &LabelStack<'_>,
    histogram: &Histogram,
    scratch: &mut Scratch,
) -> Result<(), fmt::Error> {
    // A histogram that never had an exemplar has no slot worth reading.
    let has_exemplars = histogram.has_exemplars();
    let mut buffer = ExemplarBuffer::new();
    // A histogram with native buckets is read through a whole snapshot (which drains them and
    // keeps them within their limit); one without is read into the thread's scratch.
    let snapshot = histogram.native_config().map(|_| histogram.snapshot());
    let (sum, counts) = match &snapshot {
        Some(snapshot) => (snapshot.sum(), snapshot.bucket_counts()),
        None => {
            let sum = histogram.read_into(&mut scratch.counts);
            (sum, &scratch.counts[..])
        }
    };
    let bounds = histogram.bounds();
    // One count per finite bound, and the `+Inf` bucket's.
    if counts.len() != bounds.len() + 1 {
        return Err(fmt::Error);
    }
    message(out, FAMILY_METRIC, 2, |out| {
        write_labels(out, heads, labels)?;
        message(out, METRIC_HISTOGRAM, 2, |out| {
            classic_buckets(out, sum, bounds, counts, |out, i| {
                let exemplar = match has_exemplars {
                    true => histogram.bucket_exemplar(i, &mut buffer),
                    false => None,
                };
                if let Some(view) = exemplar {
                    write_exemplar(out, BUCKET_EXEMPLAR, &ExemplarData::of_view(&view));
                }
            });
            if let Some(native) = snapshot.as_ref().and_then(|s| s.native()) {
                sint(out, 5, i64::from(native.schema()));
                double(out, 6, native.zero_threshold());
                uint(out, 7, native.zero_count());
                native_side(out, 9, 10, native.negative_runs());
                native_side(out, 12, 13, native.positive_runs());
                if native.needs_native_marker() {
                    span(out, 12, 0, 0);
                }
            }
            timestamp(out, HISTOGRAM_CREATED, labels.created());
            if has_exemplars {
                histogram.native_exemplars(&mut buffer, |view| {
                    write_exemplar(out, HISTOGRAM_EXEMPLARS, &ExemplarData::of_view(&view));
                });
            }
        });
        Ok(())
    })
}

/// Appends one `Metric` of a gauge histogram: its count, sum and cumulative buckets (`+Inf`
/// included) in the `histogram` field. No creation time: a gauge histogram's counts go down
/// as well as up, so it counts nothing since a start.
///
/// Its family stays typed `HISTOGRAM`, as prometheus-client's encoder types it (the heads come
/// from there), though the data model has `GAUGE_HISTOGRAM`: Prometheus 2.42 (Debian 12's)
/// stores nothing of a `GAUGE_HISTOGRAM` family with classic buckets scraped over protobuf,
/// and stores a `HISTOGRAM` one's `_bucket`, `_count` and `_sum` (`e2e_openmetrics_types`
/// checks that). Only the metadata's type is lost; OpenMetrics text keeps it.
pub(crate) fn gauge_histogram(
    out: &mut Vec<u8>,
    heads: &MetricHeads,
    labels: &LabelStack<'_>,
    histogram: &GaugeHistogram,
    scratch: &mut Scratch,
) -> Result<(), fmt::Error> {
    let sum = histogram.read_into(&mut scratch.counts);
    let counts = &scratch.counts[..];
    let bounds = histogram.bounds();
    if counts.len() != bounds.len() + 1 {
        return Err(fmt::Error);
    }
    message(out, FAMILY_METRIC, 2, |out| {
        write_labels(out, heads, labels)?;
        message(out, METRIC_HISTOGRAM, 2, |out| {
            classic_buckets(out, sum, bounds, counts, |_, _| {});
        });
        Ok(())
    })
}

/// Appends a `Histogram` message's count, sum and cumulative classic buckets from `counts`,
/// one per bound of `bounds` and the `+Inf` bucket's; `bucket_tail` appends what follows a
/// bucket's bound in its message (its exemplar) given the bucket's index.
fn classic_buckets(
    out: &mut Vec<u8>,
    sum: f64,
    bounds: &[f64],
    counts: &[u64],
    mut bucket_tail: impl FnMut(&mut Vec<u8>, usize),
) {
    uint(out, 1, counts.iter().copied().fold(0, u64::wrapping_add));
    double(out, 2, sum);
    let upper_bounds = bounds.iter().copied().chain([f64::INFINITY]);
    let mut cumulative = 0u64;
    for (i, (&count, upper_bound)) in counts.iter().zip(upper_bounds).enumerate() {
        cumulative = cumulative.wrapping_add(count);
        message(out, 3, 1, |out| {
            uint(out, 1, cumulative);
            double(out, 2, upper_bound);
            bucket_tail(out, i);
        });
    }
}

/// One side of a native histogram: its `BucketSpan`s, then its count deltas, packed.
fn native_side(out: &mut Vec<u8>, spans_field: u32, deltas_field: u32, runs: BucketRuns<'_>) {
    runs.spans(|offset, length| span(out, spans_field, offset, length));
    // A packed `repeated sint64`, left out when it is empty.
    if !runs.is_empty() {
        message(out, deltas_field, 1, |out| {
            runs.deltas(|delta| varint(out, zigzag(delta)));
        });
    }
}

/// One `BucketSpan` message.
fn span(out: &mut Vec<u8>, field: u32, offset: i32, length: u32) {
    message(out, field, 1, |out| {
        sint(out, 1, i64::from(offset));
        uint(out, 2, u64::from(length));
    });
}

/// The `label` fields of a series: the level's const labels (encoded at registration), then
/// each piece of the series' labels.
fn write_labels(
    out: &mut Vec<u8>,
    heads: &MetricHeads,
    labels: &LabelStack<'_>,
) -> Result<(), fmt::Error> {
    out.extend_from_slice(&heads.const_labels);
    for piece in labels.pieces() {
        match *piece {
            Label::Rendered(rendered) => rendered_pairs(out, rendered)?,
            Label::Pair(key, value) => label_pair(out, LABEL, key, &replace_controls(value)),
            Label::Position(key, position) => {
                label_pair(out, LABEL, key, itoa::Buffer::new().format(position))
            }
        }
    }
    Ok(())
}

/// The `LabelPair`s of labels rendered for the text formats (`k="v",k2="v2"`, escaped and
/// sanitised): each value unescaped (`\\`, `\"`, `\n`) as it is copied. Anything else is not
/// what the renderer writes, and fails the scrape rather than send a wrong label.
fn rendered_pairs(out: &mut Vec<u8>, rendered: &str) -> Result<(), fmt::Error> {
    let mut rest = rendered.as_bytes();
    while !rest.is_empty() {
        let equals = rest.iter().position(|&b| b == b'=').ok_or(fmt::Error)?;
        let name = &rest[..equals];
        let value = rest[equals + 1..].strip_prefix(b"\"").ok_or(fmt::Error)?;
        rest = message(out, LABEL, 1, |out| {
            string(out, 1, name);
            if value.first() == Some(&b'"') {
                return Ok(&value[1..]);
            }
            message(out, 2, 1, |out| unescape_value(out, value))
        })?;
        match rest.split_first() {
            Some((b',', after)) => rest = after,
            Some(_) => return Err(fmt::Error),
            None => {}
        }
    }
    Ok(())
}

/// Copies the escaped label value at the start of `text` up to its closing quote, unescaped;
/// returns what follows the quote.
fn unescape_value<'t>(out: &mut Vec<u8>, mut text: &'t [u8]) -> Result<&'t [u8], fmt::Error> {
    loop {
        let special = text
            .iter()
            .position(|&b| b == b'"' || b == b'\\')
            .ok_or(fmt::Error)?;
        out.extend_from_slice(&text[..special]);
        if text[special] == b'"' {
            return Ok(&text[special + 1..]);
        }
        let escaped = match text.get(special + 1) {
            Some(b'\\') => b'\\',
            Some(b'"') => b'"',
            Some(b'n') => b'\n',
            _ => return Err(fmt::Error),
        };
        out.push(escaped);
        text = &text[special + 2..];
    }
}

/// Appends `family`'s delimited `MetricFamily`: the fields rendered at registration around
/// the `Metric`s `metrics` writes.
pub(crate) fn family(
    out: &mut Vec<u8>,
    family: &FamilyHeads,
    metrics: impl FnOnce(&mut Vec<u8>) -> Result<(), fmt::Error>,
) -> Result<(), fmt::Error> {
    delimited(out, 3, |out| {
        out.extend_from_slice(&family.head);
        metrics(out)?;
        out.extend_from_slice(&family.unit);
        Ok(())
    })
}

#[cfg(test)]
mod tests;
