//! The size rule of record-time label sets: a [`Dynamic`](crate::Dynamic) axis's label sets
//! and the extra label values of a plug-in family
//! ([`RuntimeFamily`](crate::family::RuntimeFamily)).
//!
//! A label set is measured as the exposition writes it (escapes included, and each control
//! character as the 3-byte control picture it is written as): each label value at most
//! [`MAX_LABEL_VALUE_LEN`] bytes and the whole `{...}` at most [`MAX_LABEL_SET_LEN`]. A label
//! set over either limit gets no series of its own: its records go to the family's overflow
//! series (`otel_metric_overflow="true"`), so no count is lost, and it is counted in
//! `oversized_lookups`. Only a label set that would create a new series is measured.
//!
//! Rejecting must stay cheap, since whoever sends huge label values can send them on every
//! record. Encoding needs an owned copy of the label set (prometheus-client encodes only what
//! a `Registry` owns) and scans each value whole, so a label set is first weighed by what its
//! `Hash` feeds the hasher, which costs one addition per `write` whatever the sizes: past
//! [`HASHED_BYTES_REJECTED`] it is rejected without being copied or encoded. A string is
//! hashed as its bytes and written at least as long, so this only rejects what the exact rule
//! would; a smaller label set is encoded and measured as written, stopping at the first byte
//! over a limit.

use std::fmt::{self, Write};
use std::hash::{Hash, Hasher};

use prometheus_client::encoding::{text, EncodeLabelSet, EncodeMetric, MetricEncoder};
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Registry;

use crate::labels::LabelSet;
use crate::limits::{MAX_LABEL_SET_LEN, MAX_LABEL_VALUE_LEN};
use crate::sanitize::written_len;

/// Bytes a label set may feed its `Hash` before it is rejected unencoded: 16 times
/// [`MAX_LABEL_SET_LEN`], so that a label type whose `Hash` covers more than its label writes
/// (a value encoded as a short digest of a longer one, say) is still measured as written
/// unless it hashes a 64 KiB key.
const HASHED_BYTES_REJECTED: usize = 16 * MAX_LABEL_SET_LEN;

/// Whether `labels` is within [`MAX_LABEL_VALUE_LEN`] and [`MAX_LABEL_SET_LEN`].
pub(crate) fn label_set_fits<D: LabelSet>(labels: &D) -> bool {
    hashed_bytes(labels) <= HASHED_BYTES_REJECTED && fits_as_written(labels.clone())
}

/// Whether the extra labels of a plug-in series could be within the limits, judged without
/// copying them: false past [`HASHED_BYTES_REJECTED`] bytes of values, which are written at
/// least as long. [`extra_labels_fit`] decides the rest.
pub(crate) fn extra_values_may_fit(values: &[&str]) -> bool {
    values
        .iter()
        .try_fold(0usize, |sum, value| {
            Some(sum.saturating_add(value.len())).filter(|&n| n <= HASHED_BYTES_REJECTED)
        })
        .is_some()
}

/// Whether the extra labels `keys[i]="values[i]"` of a plug-in series are within
/// [`MAX_LABEL_VALUE_LEN`] and [`MAX_LABEL_SET_LEN`], measured as written (as a `Dynamic`
/// label set is).
pub(crate) fn extra_labels_fit(keys: &[String], values: &[&str]) -> bool {
    extra_values_may_fit(values) && {
        let pairs: Vec<(String, String)> = keys
            .iter()
            .zip(values)
            .map(|(key, &value)| (key.clone(), value.to_owned()))
            .collect();
        fits_as_written(pairs)
    }
}

/// How many bytes `labels` feeds a hasher (integers count their width).
fn hashed_bytes<D: Hash>(labels: &D) -> usize {
    let mut weigh = ByteCount(0);
    labels.hash(&mut weigh);
    weigh.0
}

/// A "hasher" that only adds up the lengths it is fed.
struct ByteCount(usize);

impl Hasher for ByteCount {
    fn write(&mut self, bytes: &[u8]) {
        self.0 = self.0.saturating_add(bytes.len());
    }

    fn finish(&self) -> u64 {
        self.0 as u64
    }
}

/// Encodes one gauge under the probed label set.
#[derive(Debug)]
struct Probe<D>(D);

impl<D: EncodeLabelSet + fmt::Debug + Send + Sync + 'static> EncodeMetric for Probe<D> {
    fn encode(&self, mut encoder: MetricEncoder) -> fmt::Result {
        Gauge::<i64>::default().encode(encoder.encode_family(&self.0)?)
    }

    fn metric_type(&self) -> MetricType {
        MetricType::Gauge
    }
}

/// Whether the label set of the one sample in `labels`' probe exposition is within the limits.
fn fits_as_written<D: EncodeLabelSet + fmt::Debug + Send + Sync + 'static>(labels: D) -> bool {
    let mut registry = Registry::default();
    registry.register("p", "p", Probe(labels));
    let mut measure = Measure::default();
    // Only `Measure` fails, and only past a limit.
    text::encode_registry(&mut measure, &registry).is_ok()
}

/// Where [`Measure`] is in the probe's exposition.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Place {
    /// At the start of a line.
    #[default]
    LineStart,
    /// In a `# HELP` or `# TYPE` line.
    Comment,
    /// In the sample line, outside its label set.
    Elsewhere,
    /// Between the sample's `{` and `}`, outside a quoted value.
    InSet,
    /// In a quoted value; `escaped` after a backslash.
    InValue { escaped: bool },
}

/// Measures the sample's label set as it is written, without keeping it: fails as soon as
/// the set or one of its values passes its limit.
#[derive(Debug, Default)]
struct Measure {
    place: Place,
    set_len: usize,
    value_len: usize,
}

impl Write for Measure {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let mut rest = s.as_bytes();
        while let Some(&byte) = rest.first() {
            let taken = match self.place {
                // Plain bytes of a value, as one run up to the next quote or backslash: a
                // huge value is looked at only up to one byte past what the limits allow.
                // Each is counted as written after the encoder: a control character becomes
                // its 3-byte control picture (see `crate::sanitize`).
                Place::InValue { escaped: false } if byte != b'"' && byte != b'\\' => {
                    let budget = (MAX_LABEL_VALUE_LEN - self.value_len)
                        .min(MAX_LABEL_SET_LEN - self.set_len)
                        + 1;
                    let window = &rest[..rest.len().min(budget)];
                    let run = window
                        .iter()
                        .position(|&b| b == b'"' || b == b'\\')
                        .unwrap_or(window.len());
                    self.count_value_bytes(written_len(&window[..run]))?;
                    run
                }
                // The HELP and TYPE lines are not measured.
                Place::Comment => rest
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(rest.len(), |newline| newline + 1),
                _ => {
                    self.step(byte)?;
                    1
                }
            };
            if self.place == Place::Comment && rest[..taken].last() == Some(&b'\n') {
                self.place = Place::LineStart;
            }
            rest = &rest[taken..];
        }
        Ok(())
    }
}

impl Measure {
    /// Moves past one byte outside a run of plain value bytes.
    fn step(&mut self, byte: u8) -> fmt::Result {
        self.place = match (self.place, byte) {
            // A line break in a value is written escaped: a raw one ends the line.
            (_, b'\n') => Place::LineStart,
            (Place::LineStart, b'#') => Place::Comment,
            (Place::LineStart | Place::Elsewhere, b'{') => Place::InSet,
            (Place::LineStart | Place::Elsewhere | Place::Comment, _) => Place::Elsewhere,
            (Place::InSet, b'}') => Place::Elsewhere,
            (Place::InSet, b'"') => {
                self.value_len = 0;
                self.count_set_bytes(1)?;
                Place::InValue { escaped: false }
            }
            (Place::InSet, _) => {
                self.count_set_bytes(1)?;
                Place::InSet
            }
            (Place::InValue { escaped: false }, b'"') => {
                self.count_set_bytes(1)?;
                Place::InSet
            }
            (Place::InValue { escaped }, _) => {
                self.count_value_bytes(written_len(&[byte]))?;
                Place::InValue {
                    escaped: !escaped && byte == b'\\',
                }
            }
        };
        Ok(())
    }

    fn count_value_bytes(&mut self, n: usize) -> fmt::Result {
        self.count_set_bytes(n)?;
        self.value_len += n;
        if self.value_len > MAX_LABEL_VALUE_LEN {
            return Err(fmt::Error);
        }
        Ok(())
    }

    fn count_set_bytes(&mut self, n: usize) -> fmt::Result {
        self.set_len += n;
        if self.set_len > MAX_LABEL_SET_LEN {
            return Err(fmt::Error);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Debug, Hash, PartialEq, Eq)]
    struct Two {
        a: String,
        b: String,
    }

    impl EncodeLabelSet for Two {
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
    }

    #[test]
    fn control_characters_count_as_the_pictures_they_are_written_as() {
        let crs = |n: usize| Two {
            a: "\r".repeat(n),
            b: String::new(),
        };
        // 341 carriage returns are written as 1,023 bytes, 342 as 1,026.
        assert!(label_set_fits(&crs(MAX_LABEL_VALUE_LEN / 3)));
        assert!(!label_set_fits(&crs(MAX_LABEL_VALUE_LEN / 3 + 1)));
        // One control character in a value at the limit takes it past the limit.
        let mut at_limit = "x".repeat(MAX_LABEL_VALUE_LEN - 1);
        assert!(label_set_fits(&Two {
            a: at_limit.clone() + "y",
            b: String::new(),
        }));
        at_limit.push('\u{7f}');
        assert!(!label_set_fits(&Two {
            a: at_limit,
            b: String::new(),
        }));
        // The set: four values of 1,000 bytes fit (4,019 bytes between the braces); with ten
        // tabs in each, every value still fits (1,020 bytes) but the set does not (4,099).
        let keys: Vec<String> = ["a", "b", "c", "d"].map(str::to_owned).to_vec();
        let plain = "x".repeat(1000);
        assert!(extra_labels_fit(&keys, &[plain.as_str(); 4]));
        let tabbed = format!("{}{}", "\t".repeat(10), "x".repeat(990));
        assert!(!extra_labels_fit(&keys, &[tabbed.as_str(); 4]));
    }

    #[test]
    fn extra_labels_are_measured_as_written_and_huge_ones_without_a_copy() {
        let keys = ["tier".to_owned()];
        assert!(extra_labels_fit(&keys, &[&"v".repeat(MAX_LABEL_VALUE_LEN)]));
        assert!(!extra_labels_fit(
            &keys,
            &[&"v".repeat(MAX_LABEL_VALUE_LEN + 1)]
        ));
        // 600 quotes are 1,200 bytes as written.
        assert!(!extra_labels_fit(&keys, &[&"\"".repeat(600)]));
        let huge = "h".repeat(1 << 20);
        assert!(!extra_values_may_fit(&[&huge]));
        assert!(!extra_values_may_fit(
            &[&huge[..HASHED_BYTES_REJECTED / 2 + 1]; 2]
        ));
        assert!(extra_values_may_fit(
            &[&huge[..HASHED_BYTES_REJECTED / 2]; 2]
        ));
    }

    /// What `Measure` concludes about a written probe exposition.
    fn measured(exposition: &str) -> bool {
        let mut measure = Measure::default();
        // Fed in uneven pieces, as an encoder may write it.
        let (head, tail) = exposition.split_at(exposition.len() / 3);
        measure.write_str(head).is_ok() && measure.write_str(tail).is_ok()
    }

    #[test]
    fn the_measure_counts_the_sample_set_and_its_values_as_written() {
        let sample = |set: &str| format!("# HELP p p.\n# TYPE p gauge\np{{{set}}} 0\n");
        let value = |n: usize| format!("a=\"{}\"", "x".repeat(n));
        assert!(measured(&sample(&value(MAX_LABEL_VALUE_LEN))));
        assert!(!measured(&sample(&value(MAX_LABEL_VALUE_LEN + 1))));
        // An escape is two bytes as written, and a quote inside it does not end the value.
        let escaped = format!("a=\"{}\"", "\\\"".repeat(MAX_LABEL_VALUE_LEN / 2));
        assert!(measured(&sample(&escaped)));
        let escaped = format!("a=\"x{}\"", "\\\"".repeat(MAX_LABEL_VALUE_LEN / 2));
        assert!(!measured(&sample(&escaped)));
        // The set: six values of 1000 bytes are fine one by one, not together.
        let six = vec![value(1000); 6].join(",");
        assert!(!measured(&sample(&six)));
        let four = vec![value(1000); 4].join(",");
        assert!(measured(&sample(&four)));
        // Braces in the help text or inside a value are not the set.
        let braces = format!("# HELP p {{{}}}.\np{{a=\"}}{{\"}} 0\n", "x".repeat(5000));
        assert!(measured(&braces));
    }

    #[test]
    fn a_key_hashing_past_the_bound_is_rejected_without_encoding() {
        assert_eq!(hashed_bytes(&"abc".to_owned()), 4); // the bytes and a 0xff terminator
        assert!(!label_set_fits(&two(HASHED_BYTES_REJECTED, 0)));
        // Within the bound, the exposition decides: a value over the limit as written.
        assert!(!label_set_fits(&two(MAX_LABEL_VALUE_LEN + 1, 0)));
        // A label type whose `Hash` covers more than it writes is measured as written.
        #[derive(Clone, Debug, PartialEq, Eq)]
        struct Digest(String);
        impl Hash for Digest {
            fn hash<H: Hasher>(&self, state: &mut H) {
                self.0.hash(state);
            }
        }
        impl EncodeLabelSet for Digest {
            fn encode(
                &self,
                encoder: &mut prometheus_client::encoding::LabelSetEncoder,
            ) -> fmt::Result {
                [("len", self.0.len().to_string().as_str())].encode(encoder)
            }
        }
        impl LabelSet for Digest {
            const KEYS: &'static [&'static str] = &["len"];
        }
        assert!(label_set_fits(&Digest("d".repeat(10_000))));
        assert!(!label_set_fits(&Digest("d".repeat(HASHED_BYTES_REJECTED))));
    }
}
