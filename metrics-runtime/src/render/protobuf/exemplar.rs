//! The `Exemplar` message (`metrics.proto`) from plain data: the labels, value and timestamp
//! a series keeps for its latest exemplar. A counter carries one in `Counter.exemplar`, a
//! classic bucket in `Bucket.exemplar`, a native histogram its list in `Histogram.exemplars`.

use std::time::SystemTime;

use super::fields::{label_pair, timestamp};
use super::wire;
use crate::created::Created;
use crate::exemplar::{ExemplarView, LabelPairs};
use crate::sanitize::replace_controls;

/// `Counter.exemplar`.
pub(crate) const COUNTER_EXEMPLAR: u32 = 2;
/// `Bucket.exemplar`.
pub(crate) const BUCKET_EXEMPLAR: u32 = 3;
/// `Histogram.exemplars` (repeated).
pub(crate) const HISTOGRAM_EXEMPLARS: u32 = 16;

/// One exemplar as the protobuf writes it: its label pairs (`L` yields them in order, and is
/// cloned to walk them), its value and its timestamp, as plain data.
#[derive(Clone, Debug)]
pub(crate) struct ExemplarData<L> {
    /// Its label pairs, in order (a trace id, say).
    pub(crate) labels: L,
    /// The observed value (an observation, or a counter's increment).
    pub(crate) value: f64,
    /// When it was recorded, if known.
    pub(crate) timestamp: Option<SystemTime>,
}

impl<'b> ExemplarData<LabelPairs<'b>> {
    /// The exemplar a read of a series' exemplar slot copied into its buffer.
    pub(crate) fn of_view(view: &ExemplarView<'b>) -> Self {
        ExemplarData {
            labels: view.labels(),
            value: view.value(),
            timestamp: view.timestamp(),
        }
    }
}

/// Appends `exemplar` as the `Exemplar` field `field`. Label values carry control characters
/// as the text formats write them, as a series' own labels do.
pub(crate) fn write_exemplar<'l, L>(out: &mut Vec<u8>, field: u32, exemplar: &ExemplarData<L>)
where
    L: IntoIterator<Item = (&'l str, &'l str)> + Clone,
{
    wire::message(out, field, 1, |out| {
        for (name, value) in exemplar.labels.clone() {
            label_pair(out, 1, name, &replace_controls(value));
        }
        wire::double(out, 2, exemplar.value);
        if let Some(at) = exemplar.timestamp {
            timestamp(out, 3, Created::at(at));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use prometheus_client::encoding::prometheus_protobuf::prometheus_data_model::{
        Bucket, Counter, Exemplar, LabelPair,
    };
    use prost::Message;
    use std::time::{Duration, UNIX_EPOCH};

    fn pair(name: &str, value: &str) -> LabelPair {
        LabelPair {
            name: name.to_owned(),
            value: value.to_owned(),
        }
    }

    #[test]
    fn a_counter_exemplar_decodes_to_its_labels_value_and_timestamp() {
        let at = UNIX_EPOCH + Duration::new(1_764_771_234, 5_000);
        let mut body = Vec::new();
        wire::double(&mut body, 1, 3.0);
        write_exemplar(
            &mut body,
            COUNTER_EXEMPLAR,
            &ExemplarData {
                labels: [("trace_id", "abc\r1"), ("span_id", "")],
                value: 0.25,
                timestamp: Some(at),
            },
        );
        let counter = Counter::decode(&body[..]).unwrap();
        assert_eq!(counter.value, 3.0);
        let exemplar = counter.exemplar.unwrap();
        assert_eq!(
            exemplar.label,
            [pair("trace_id", "abc\u{240d}1"), pair("span_id", "")]
        );
        assert_eq!(exemplar.value, 0.25);
        let timestamp = exemplar.timestamp.unwrap();
        assert_eq!((timestamp.seconds, timestamp.nanos), (1_764_771_234, 5_000));
    }

    #[test]
    fn bucket_and_histogram_exemplars_sit_in_their_fields() {
        let data = ExemplarData {
            labels: [("trace_id", "t")],
            value: 0.5,
            timestamp: None,
        };
        let mut bucket = Vec::new();
        wire::uint(&mut bucket, 1, 4);
        write_exemplar(&mut bucket, BUCKET_EXEMPLAR, &data);
        let decoded = Bucket::decode(&bucket[..]).unwrap();
        assert_eq!(decoded.cumulative_count, 4);
        let expected = Exemplar {
            label: vec![pair("trace_id", "t")],
            value: 0.5,
            timestamp: None,
        };
        assert_eq!(decoded.exemplar.as_ref(), Some(&expected));
        let mut histogram = Vec::new();
        write_exemplar(&mut histogram, HISTOGRAM_EXEMPLARS, &data);
        write_exemplar(&mut histogram, HISTOGRAM_EXEMPLARS, &data);
        let decoded =
            prometheus_client::encoding::prometheus_protobuf::prometheus_data_model::Histogram::decode(
                &histogram[..],
            )
            .unwrap();
        assert_eq!(decoded.exemplars, [expected.clone(), expected]);
    }
}
