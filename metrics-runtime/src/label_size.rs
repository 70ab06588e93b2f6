//! The size rule of record-time label sets ([`Dynamic`](crate::Dynamic)).
//!
//! A label set is measured as the exposition writes it (escapes included): each label value
//! at most [`MAX_LABEL_VALUE_LEN`] bytes and the whole `{...}` at most [`MAX_LABEL_SET_LEN`].
//! A label set over either limit gets no series of its own: its records go to the family's
//! overflow series (`otel_metric_overflow="true"`), so no count is lost, and it is counted in
//! `Dynamic::oversized_lookups`. Measuring encodes the label set once, only when it would
//! create a new series.

use std::fmt::{self, Write};

use prometheus_client::encoding::{text, EncodeMetric, MetricEncoder};
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Registry;

use crate::labels::LabelSet;

/// The longest label value a [`Dynamic`](crate::Dynamic) series may carry, in bytes as written
/// (escapes included).
pub const MAX_LABEL_VALUE_LEN: usize = 1024;

/// The longest label set a [`Dynamic`](crate::Dynamic) series may carry: its labels as written
/// between `{` and `}`, in bytes.
pub const MAX_LABEL_SET_LEN: usize = 4096;

/// Encodes one gauge under the probed label set.
#[derive(Debug)]
struct Probe<D>(D);

impl<D: LabelSet> EncodeMetric for Probe<D> {
    fn encode(&self, mut encoder: MetricEncoder) -> fmt::Result {
        Gauge::<i64>::default().encode(encoder.encode_family(&self.0)?)
    }

    fn metric_type(&self) -> MetricType {
        MetricType::Gauge
    }
}

/// A `String` that refuses to grow past `limit` bytes.
struct Bounded {
    text: String,
    limit: usize,
}

impl Write for Bounded {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if self.text.len() + s.len() > self.limit {
            return Err(fmt::Error);
        }
        self.text.push_str(s);
        Ok(())
    }
}

/// Whether `labels` is within [`MAX_LABEL_VALUE_LEN`] and [`MAX_LABEL_SET_LEN`].
pub(crate) fn label_set_fits<D: LabelSet>(labels: &D) -> bool {
    let mut registry = Registry::default();
    registry.register("p", "p", Probe(labels.clone()));
    // HELP and TYPE lines and the sample's name and value take well under 64 bytes.
    let mut out = Bounded {
        text: String::new(),
        limit: MAX_LABEL_SET_LEN + 64,
    };
    if text::encode_registry(&mut out, &registry).is_err() {
        return false;
    }
    let Some(sample) = out.text.lines().find(|l| !l.starts_with('#')) else {
        return true;
    };
    let (Some(open), Some(close)) = (sample.find('{'), sample.rfind('}')) else {
        return true; // no labels
    };
    let set = &sample[open + 1..close];
    set.len() <= MAX_LABEL_SET_LEN && longest_value(set) <= MAX_LABEL_VALUE_LEN
}

/// The longest quoted value in `k1="v1",k2="v2"`, in bytes as written.
fn longest_value(set: &str) -> usize {
    let (mut longest, mut current) = (0, 0);
    let (mut quoted, mut escaped) = (false, false);
    for byte in set.bytes() {
        if !quoted {
            if byte == b'"' {
                quoted = true;
                current = 0;
            }
        } else if escaped {
            escaped = false;
            current += 2;
        } else if byte == b'\\' {
            escaped = true;
        } else if byte == b'"' {
            quoted = false;
            longest = longest.max(current);
        } else {
            current += 1;
        }
    }
    longest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Debug, Hash, PartialEq, Eq)]
    struct Two {
        a: String,
        b: String,
    }

    impl prometheus_client::encoding::EncodeLabelSet for Two {
        fn encode(
            &self,
            encoder: &mut prometheus_client::encoding::LabelSetEncoder,
        ) -> fmt::Result {
            [("a", self.a.as_str()), ("b", self.b.as_str())].encode(encoder)
        }
    }

    impl LabelSet for Two {
        const KEYS: &'static [&'static str] = &["a", "b"];
    }

    fn two(a: usize, b: usize) -> Two {
        Two {
            a: "x".repeat(a),
            b: "y".repeat(b),
        }
    }

    #[test]
    fn values_and_sets_are_measured_as_written() {
        assert!(label_set_fits(&two(MAX_LABEL_VALUE_LEN, 10)));
        assert!(!label_set_fits(&two(MAX_LABEL_VALUE_LEN + 1, 10)));
        assert!(!label_set_fits(&two(1 << 20, 1)));
        // Escapes count as written: 600 quotes are 1200 bytes.
        assert!(!label_set_fits(&Two {
            a: "\"".repeat(600),
            b: String::new(),
        }));
        assert_eq!(longest_value(r#"a="x\"y",b="zz""#), 4);
    }
}
