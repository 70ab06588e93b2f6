//! The Prometheus protobuf exposition: varint-length-delimited `io.prometheus.client.MetricFamily`
//! messages (prometheus/client_model `metrics.proto`), the format that carries native
//! histograms and start timestamps to Prometheus.
//!
//! This crate's families (every member kind, under any axis) are written straight from their
//! series by the protobuf writer of `render` (the bytes of
//! each message, no message structs), with the fields prometheus-client's encoder cannot
//! write: each counter's and histogram's `created_timestamp`, the time its series was created.
//! Everything else keeps prometheus-client's own protobuf encoder, in its place in the
//! registry's order: foreign metrics, collectors (the plug-in families among them), included
//! registries, and a family of this crate holding a member kind the writer does not know. That
//! encoder applies each level's prefix and const labels as its text encoders do, and the writer
//! renders each family's name, help, type and unit through it at registration, so a family's
//! name, labels and values are those of the text whichever encoder writes it.
//!
//! What the messages hold, family by family:
//! * a counter's family is named with `_total` (as client_golang names it) and typed `COUNTER`;
//!   an info metric's is named with `_info` and typed `GAUGE`, one series of value 1; a state
//!   set's is typed `GAUGE`, one series per state (1 for the current one) labelled with the
//!   family's name; a prometheus-client `Unknown` metric is `UNTYPED`;
//! * a unit is in the name (`_seconds`) and in the family's `unit` field;
//! * a classic histogram has cumulative bucket counts, the `+Inf` bucket included, its count and
//!   its sum; a gauge histogram the same, in a family typed `HISTOGRAM` (its writer says why);
//! * label values carry the control characters the text formats write as Unicode control
//!   pictures (`\r` as `␍`) the same way, so a series keeps one identity whichever format
//!   scraped it: Prometheus would otherwise store a label value with a raw carriage return from
//!   protobuf and a `␍` from text as two series. A line feed stays a line feed, which the text
//!   formats escape and their parsers restore. Help text gets the same treatment.

use std::borrow::Cow;
use std::fmt;

use prometheus_client::encoding::prometheus_protobuf::{encode, prometheus_data_model};
use prometheus_client::registry::Registry as Inner;
use prost::Message;

use crate::registry::{ExposedPart, ProtobufPart, Registry};
use crate::render::{protobuf as writer, Scratch, SeriesWriter};
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

/// Appends `registry`'s families to `out`, each a varint-length-delimited `MetricFamily`;
/// `scratch` is what histograms are read into.
pub(crate) fn encode_into(
    registry: &Registry,
    out: &mut Vec<u8>,
    scratch: &mut Scratch,
) -> Result<(), fmt::Error> {
    registry.for_each_part(&mut |part| match part {
        ExposedPart::Text(part) => match &part.protobuf {
            ProtobufPart::Written(heads) => writer::family(out, heads, |out| {
                let mut series = SeriesWriter::protobuf(out, &heads.metric, scratch);
                part.family.write_samples(&mut series)?;
                series.finish()
            }),
            ProtobufPart::Encoded(metrics) => encode_foreign(metrics, out),
        },
        ExposedPart::Foreign(metrics) => encode_foreign(metrics, out),
    })
}

/// Appends the families of `metrics` through prometheus-client's protobuf encoder.
fn encode_foreign(metrics: &Inner, out: &mut Vec<u8>) -> Result<(), fmt::Error> {
    for mut family in encode(metrics)? {
        replace_family_controls(&mut family);
        // Writing into a `Vec` grows it: prost's only error, too little room, cannot occur.
        family
            .encode_length_delimited(out)
            .map_err(|_| fmt::Error)?;
    }
    Ok(())
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
        encode_into(&registry, &mut body, &mut Scratch::default()).unwrap();
        let families = decode_all(&body);
        assert_eq!(families.len(), 1);
        assert_eq!(families[0].help, "Keys\u{241b} stored.");
        let label = &families[0].metric[0].label[0];
        assert_eq!(
            (label.name.as_str(), label.value.as_str()),
            ("origin", "a\u{240d}b\u{2400}c\nd\u{2421}")
        );
    }

    /// A member of a kind the protobuf writer does not know: a counter leaf that writes text
    /// but not protobuf (as a member kind added later would be until it is taught).
    #[derive(Clone, Debug, Default)]
    struct Untaught(crate::Counter);

    impl crate::member::FamilyMember for Untaught {
        const KIND: crate::descriptor::MetricKind = crate::descriptor::MetricKind::Counter;
        const AXIS: crate::member::AxisShape = crate::member::AxisShape::None;
        const WRITES_TEXT: bool = true;

        fn build(_spec: &crate::member::SeriesSpec) -> Self {
            Self::default()
        }

        fn encode_member<L: prometheus_client::encoding::EncodeLabelSet>(
            &self,
            labels: &L,
            encoder: &mut prometheus_client::encoding::MetricEncoder<'_>,
        ) -> Result<(), fmt::Error> {
            use prometheus_client::encoding::EncodeMetric;
            self.0.encode(encoder.encode_family(labels)?)
        }

        fn write_text(
            &self,
            labels: &crate::render::LabelStack<'_>,
            writer: &mut SeriesWriter<'_>,
        ) -> Result<(), fmt::Error> {
            writer.counter(labels, self.0.get());
            Ok(())
        }
    }

    type Engine = Vec<(String, String)>;

    #[test]
    fn a_member_kind_the_writer_does_not_know_goes_through_prometheus_client_in_its_place() {
        use crate::descriptor::{MetricDescriptor, MetricKind};
        use crate::family::register::register_family;
        use crate::{Family, RegisterOptions};
        let mut registry = Registry::default();
        let descriptor = |name| {
            MetricDescriptor::new(name, name, MetricKind::Counter, "", "Help")
                .common_labels(&["engine"])
        };
        let options = RegisterOptions::default();
        let before: Family<Engine, crate::Counter> =
            register_family(&mut registry, &descriptor("before"), &options);
        let untaught: Family<Engine, Untaught> =
            register_family(&mut registry, &descriptor("untaught"), &options);
        let after: Family<Engine, crate::Counter> =
            register_family(&mut registry, &descriptor("after"), &options);
        let engine = vec![("engine".to_owned(), "e\r0".to_owned())];
        before.get_or_create(&engine).inc_by(1);
        untaught.get_or_create(&engine).0.inc_by(2);
        after.get_or_create(&engine).inc_by(3);
        let mut body = Vec::new();
        encode_into(&registry, &mut body, &mut Scratch::default()).unwrap();
        let families = decode_all(&body);
        let seen: Vec<(&str, f64, bool)> = families
            .iter()
            .map(|family| {
                let counter = family.metric[0].counter.as_ref().unwrap();
                (
                    family.name.as_str(),
                    counter.value,
                    counter.start_timestamp.is_some(),
                )
            })
            .collect();
        // The untaught family has no start timestamp: prometheus-client's encoder wrote it.
        assert_eq!(
            seen,
            [
                ("before_total", 1.0, true),
                ("untaught_total", 2.0, false),
                ("after_total", 3.0, true)
            ]
        );
        for family in &families {
            assert_eq!(family.metric[0].label, families[0].metric[0].label);
        }
    }

    #[test]
    fn an_empty_registry_is_an_empty_body() {
        let mut body = vec![7];
        encode_into(&Registry::default(), &mut body, &mut Scratch::default()).unwrap();
        assert_eq!(body, [7]);
    }
}
