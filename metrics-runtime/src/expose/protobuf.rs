//! The Prometheus protobuf exposition: varint-length-delimited `io.prometheus.client.MetricFamily`
//! messages (prometheus/client_model `metrics.proto`), the format that carries native
//! histograms and start timestamps to Prometheus.
//!
//! Each prometheus-client registry of the tree is encoded by prometheus-client's own protobuf
//! encoder, which applies that level's prefix and const labels as its text encoders do, so a
//! family's name, labels and values are those of the text. Every family of this crate encodes
//! through prometheus-client's `MetricEncoder`, which only prometheus-client can build: an
//! encoder of our own would see none of them, nor the foreign metrics and collectors beside
//! them.
//!
//! What the messages hold, family by family:
//! * a counter's family is named with `_total` (as client_golang names it) and typed `COUNTER`;
//!   an info metric's is named with `_info` and typed `GAUGE`, one series of value 1; a
//!   prometheus-client `Unknown` metric is `UNTYPED`;
//! * a unit is in the name (`_seconds`) and in the family's `unit` field;
//! * a classic histogram has cumulative bucket counts, the `+Inf` bucket included, its count and
//!   its sum;
//! * label values carry the control characters the text formats write as Unicode control
//!   pictures (`\r` as `␍`) the same way, so a series keeps one identity whichever format
//!   scraped it: Prometheus would otherwise store a label value with a raw carriage return from
//!   protobuf and a `␍` from text as two series. A line feed stays a line feed, which the text
//!   formats escape and their parsers restore. Help text gets the same treatment.

use std::borrow::Cow;
use std::fmt;

use prometheus_client::encoding::prometheus_protobuf::{encode, prometheus_data_model};
use prost::Message;

use crate::registry::{ExposedPart, Registry};
use crate::sanitize::replace_controls;

/// The `Content-Type` of the answer, as client_golang's `expfmt` (`FmtProtoDelim`) writes it:
/// Prometheus reads the media type and its `proto` and `encoding` parameters.
pub(crate) const CONTENT_TYPE: &str =
    "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited";

/// The media type a scraper asks for, and the two parameters its range must carry.
pub(crate) const MEDIA_TYPE: &str = "application/vnd.google.protobuf";
/// The `proto` parameter: the message type of each delimited message.
pub(crate) const PROTO: &str = "io.prometheus.client.MetricFamily";
/// The `encoding` parameter: varint-length-delimited binary messages.
pub(crate) const ENCODING: &str = "delimited";

/// Appends `registry`'s families to `out`, each a varint-length-delimited `MetricFamily`.
pub(crate) fn encode_into(registry: &Registry, out: &mut Vec<u8>) -> Result<(), fmt::Error> {
    registry.for_each_part(&mut |part| {
        let metrics = match part {
            ExposedPart::Text(family) => &family.metrics,
            ExposedPart::Foreign(metrics) => metrics,
        };
        for mut family in encode(metrics)? {
            replace_family_controls(&mut family);
            // Writing into a `Vec` grows it: prost's only error, too little room, cannot occur.
            family
                .encode_length_delimited(out)
                .map_err(|_| fmt::Error)?;
        }
        Ok(())
    })
}

/// Writes the control characters of `family`'s help text and label values as the text
/// formats do (the module documentation says why).
fn replace_family_controls(family: &mut prometheus_data_model::MetricFamily) {
    replace_in_place(&mut family.help);
    for metric in &mut family.metric {
        for label in &mut metric.label {
            replace_in_place(&mut label.value);
        }
    }
}

fn replace_in_place(text: &mut String) {
    if let Cow::Owned(replaced) = replace_controls(text) {
        *text = replaced;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prometheus_client::metrics::gauge::Gauge;

    fn decode_all(mut bytes: &[u8]) -> Vec<prometheus_data_model::MetricFamily> {
        let mut families = Vec::new();
        while !bytes.is_empty() {
            families.push(
                prometheus_data_model::MetricFamily::decode_length_delimited(&mut bytes)
                    .expect("a delimited MetricFamily"),
            );
        }
        families
    }

    #[test]
    fn control_characters_become_pictures_and_line_feeds_stay() {
        let mut registry = Registry::default();
        let labelled =
            registry.sub_registry_with_label(("origin".into(), "a\rb\u{0}c\nd\u{7f}".into()));
        labelled.register("kv_keys", "Keys\u{1b} stored", Gauge::<i64>::default());
        let mut body = Vec::new();
        encode_into(&registry, &mut body).unwrap();
        let families = decode_all(&body);
        assert_eq!(families.len(), 1);
        assert_eq!(families[0].help, "Keys\u{241b} stored.");
        let label = &families[0].metric[0].label[0];
        assert_eq!(
            (label.name.as_str(), label.value.as_str()),
            ("origin", "a\u{240d}b\u{2400}c\nd\u{2421}")
        );
    }

    #[test]
    fn an_empty_registry_is_an_empty_body() {
        let mut body = vec![7];
        encode_into(&Registry::default(), &mut body).unwrap();
        assert_eq!(body, [7]);
    }
}
