use std::time::{Duration, UNIX_EPOCH};

use prometheus_client::encoding::prometheus_protobuf::prometheus_data_model::{LabelPair, Metric};
use prost::Message;

use super::*;
use crate::created::Created;
use crate::render::once;

fn pair(name: &str, value: &str) -> LabelPair {
    LabelPair {
        name: name.to_owned(),
        value: value.to_owned(),
    }
}

/// The one `Metric` `write` appends, decoded (the `metric` field's tag and length stripped).
fn decode_metric(write: impl FnOnce(&mut Vec<u8>)) -> Metric {
    let mut out = Vec::new();
    write(&mut out);
    let mut body = &out[..];
    assert_eq!(body[0], (FAMILY_METRIC << 3 | 2) as u8);
    body = &body[1..];
    Metric::decode_length_delimited(body).expect("one Metric")
}

#[test]
fn rendered_labels_are_read_back_unescaped() {
    let values = [
        "plain",
        "",
        "q\"uote",
        "back\\slash",
        "line\nfeed",
        "\\n",
        "é\r",
    ];
    let labels: Vec<(String, String)> = values
        .iter()
        .enumerate()
        .map(|(i, v)| (format!("k{i}"), (*v).to_owned()))
        .collect();
    let rendered = once::label_set(&labels).unwrap();
    let mut out = Vec::new();
    rendered_pairs(&mut out, &rendered).unwrap();
    let decoded = Metric::decode(&out[..]).unwrap();
    let expected: Vec<LabelPair> = values
        .iter()
        .enumerate()
        .map(|(i, v)| pair(&format!("k{i}"), &v.replace('\r', "\u{240d}")))
        .collect();
    assert_eq!(decoded.label, expected);
    let mut none = Vec::new();
    rendered_pairs(&mut none, "").unwrap();
    assert!(none.is_empty());
}

#[test]
fn labels_the_renderer_does_not_write_fail_the_series() {
    for bad in ["k", "k=v", "k=\"v", "k=\"v\"x", "k=\"a\\q\"", "k=\"v\","] {
        let result = rendered_pairs(&mut Vec::new(), bad);
        // A trailing comma leaves an empty rest, which reads as nothing more.
        if bad.ends_with(',') {
            assert!(result.is_ok(), "{bad}");
        } else {
            assert!(result.is_err(), "{bad}");
        }
    }
}

#[test]
fn a_counter_metric_carries_every_label_piece_its_exemplar_and_creation_time() {
    let created = Created::at(UNIX_EPOCH + Duration::new(1_764_771_234, 42));
    let heads = MetricHeads {
        const_labels: {
            let mut out = Vec::new();
            label_pair(&mut out, LABEL, "zone", "w");
            out.into()
        },
        family_name: "requests".into(),
    };
    let labels = LabelStack::new(Label::Rendered("engine=\"e\\\"0\""), created)
        .with(Label::Pair("reason", "stop\r"))
        .unwrap()
        .with(Label::Position("position", 12))
        .unwrap();
    let exemplar = ExemplarData {
        labels: [("trace_id", "abc")],
        value: 1.0,
        timestamp: None,
    };
    let metric = decode_metric(|out| {
        counter(out, &heads, &labels, 7.0, Some(exemplar)).unwrap();
    });
    assert_eq!(
        metric.label,
        [
            pair("zone", "w"),
            pair("engine", "e\"0"),
            pair("reason", "stop\u{240d}"),
            pair("position", "12"),
        ]
    );
    let counter = metric.counter.expect("a counter");
    assert_eq!(counter.value, 7.0);
    let start = counter.start_timestamp.expect("a start timestamp");
    assert_eq!((start.seconds, start.nanos), (1_764_771_234, 42));
    let exemplar = counter.exemplar.expect("an exemplar");
    assert_eq!(
        (exemplar.label, exemplar.value),
        (vec![pair("trace_id", "abc")], 1.0)
    );
    assert!(metric.gauge.is_none() && metric.histogram.is_none());
}

#[test]
fn a_gauge_metric_has_no_creation_time_and_a_zero_value_is_still_a_gauge() {
    let heads = MetricHeads {
        const_labels: Box::default(),
        family_name: "requests".into(),
    };
    let labels = LabelStack::new(Label::Rendered(""), Created::default());
    let metric = decode_metric(|out| gauge(out, &heads, &labels, 0.0).unwrap());
    assert!(metric.label.is_empty());
    assert_eq!(metric.gauge.map(|g| g.value), Some(0.0));
    assert!(metric.counter.is_none());
}

#[test]
fn a_state_set_is_a_gauge_per_state_labelled_last_with_the_family_name() {
    let heads = MetricHeads {
        const_labels: {
            let mut out = Vec::new();
            label_pair(&mut out, LABEL, "zone", "w");
            out.into()
        },
        family_name: "gw_phase".into(),
    };
    let labels = LabelStack::new(Label::Rendered("engine=\"0\""), Created::default());
    let mut out = Vec::new();
    state_set(&mut out, &heads, &labels, &["starting", "ser\rving"], 1).unwrap();
    let mut body = &out[..];
    let mut metrics = Vec::new();
    while !body.is_empty() {
        assert_eq!(body[0], (FAMILY_METRIC << 3 | 2) as u8);
        body = &body[1..];
        metrics.push(Metric::decode_length_delimited(&mut body).expect("a Metric"));
    }
    let seen: Vec<(Vec<LabelPair>, Option<f64>)> = metrics
        .into_iter()
        .map(|m| (m.label, m.gauge.map(|g| g.value)))
        .collect();
    let labelled = |state| {
        vec![
            pair("zone", "w"),
            pair("engine", "0"),
            pair("gw_phase", state),
        ]
    };
    assert_eq!(
        seen,
        [
            (labelled("starting"), Some(0.0)),
            // A control character as the text formats write it.
            (labelled("ser\u{240d}ving"), Some(1.0)),
        ]
    );
}

#[test]
fn histogram_exemplars_go_to_their_buckets_and_the_native_list() {
    let heads = MetricHeads {
        const_labels: Box::default(),
        family_name: "requests".into(),
    };
    let labels = LabelStack::new(Label::Rendered("a=\"b\""), Created::default());
    let classic = Histogram::new([1.0, 2.0]);
    classic.observe(0.5);
    classic
        .observe_with_exemplar(1.5, &[("trace_id", "t\r")])
        .unwrap();
    let decoded = decode_metric(|out| histogram_metric(out, &heads, &labels, &classic))
        .histogram
        .expect("a histogram");
    assert_eq!((decoded.sample_count, decoded.sample_sum), (2, 2.0));
    let with_exemplar: Vec<bool> = decoded
        .bucket
        .iter()
        .map(|b| b.exemplar.is_some())
        .collect();
    assert_eq!(with_exemplar, [false, true, false]);
    let exemplar = decoded.bucket[1].exemplar.as_ref().unwrap();
    assert_eq!(exemplar.label, [pair("trace_id", "t\u{240d}")]);
    assert_eq!(exemplar.value, 1.5);
    assert!(exemplar.timestamp.is_some());
    assert!(decoded.exemplars.is_empty());

    let native = Histogram::new_native(crate::histogram::NativeConfig::default());
    native
        .observe_with_exemplar(3.0, &[("trace_id", "n")])
        .unwrap();
    native.observe(4.0);
    let decoded = decode_metric(|out| histogram_metric(out, &heads, &labels, &native))
        .histogram
        .expect("a histogram");
    assert_eq!(decoded.exemplars.len(), 1);
    assert_eq!(decoded.exemplars[0].value, 3.0);
    assert_eq!(decoded.exemplars[0].label, [pair("trace_id", "n")]);
}

#[test]
fn a_histogram_without_exemplars_writes_none() {
    let heads = MetricHeads {
        const_labels: Box::default(),
        family_name: "requests".into(),
    };
    let labels = LabelStack::new(Label::Rendered(""), Created::default());
    let histogram = Histogram::new([1.0]);
    histogram.observe(0.5);
    let decoded = decode_metric(|out| histogram_metric(out, &heads, &labels, &histogram))
        .histogram
        .expect("a histogram");
    assert!(decoded.bucket.iter().all(|b| b.exemplar.is_none()));
    assert!(decoded.exemplars.is_empty());
}

fn histogram_metric(
    out: &mut Vec<u8>,
    heads: &MetricHeads,
    labels: &LabelStack<'_>,
    histogram: &Histogram,
) {
    super::histogram(out, heads, labels, histogram, &mut Scratch::default()).unwrap();
}
