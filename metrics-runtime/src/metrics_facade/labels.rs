//! Names and label sets as the facade hands them over, made into ones every scraper accepts.
//!
//! The `metrics` facade takes any string as a name or a label key (`tokio.workers`,
//! `http-status`); the Prometheus formats do not. Like metrics-exporter-prometheus, the
//! recorder replaces each character a name or key may not hold with `_` rather than drop the
//! metric. Beyond that, a label key the exposition reserves (`le`, `quantile`,
//! `otel_metric_overflow`, or one starting with `__`) is renamed `exported_<key>`, as a
//! Prometheus server renames a scraped label that clashes with its own; a key given twice in
//! one label set keeps its first value. Label values are written escaped, as every label value
//! of this crate is.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelSetEncoder};

use crate::labels::is_reserved_label_key;

/// `name` with each character a metric name may not hold (`[a-zA-Z_:][a-zA-Z0-9_:]*`)
/// replaced by `_`; `_` for an empty name.
pub(crate) fn metric_name(name: &str) -> String {
    sanitised(name, |c| c == ':')
}

/// `key` as a label key every scraper accepts: each character outside `[a-zA-Z0-9_]` (and a
/// leading digit) replaced by `_`, and a reserved key, or one of the registry's const label
/// keys `taken`, renamed `exported_<key>`.
pub(crate) fn label_key(key: &str, taken: &[String]) -> String {
    let key = sanitised(key, |_| false);
    if is_reserved_label_key(&key) || taken.contains(&key) {
        format!("exported_{key}")
    } else {
        key
    }
}

/// `text` with every character outside `[a-zA-Z0-9_]` and those `extra` allows replaced by
/// `_`, and a leading digit too.
fn sanitised(text: &str, extra: impl Fn(char) -> bool) -> String {
    if text.is_empty() {
        return "_".to_owned();
    }
    text.chars()
        .enumerate()
        .map(|(i, c)| {
            let allowed = c.is_ascii_alphabetic() || c == '_' || extra(c);
            if allowed || (i > 0 && c.is_ascii_digit()) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The label set of one series recorded through the facade: its keys made valid, each once,
/// sorted by key (so the facade's `a="1", b="2"` and `b="2", a="1"`, one series to the
/// facade, are one here too).
///
/// Shared (an `Arc`): the series map keeps it as the series' key and the recorder's handle
/// cache keeps the same one to recognise the facade's key, rather than a copy of it.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct FacadeLabels(Arc<[(Box<str>, Box<str>)]>);

impl FacadeLabels {
    /// The labels of `key`, made valid beside the registry's const label keys `taken`, and
    /// whether they are `key`'s own (no key renamed, none given twice): then
    /// [`is_of`](Self::is_of) recognises `key` from them.
    pub(crate) fn of(key: &metrics::Key, taken: &[String]) -> (Self, bool) {
        let mut labels: Vec<(Box<str>, Box<str>)> = Vec::with_capacity(key.labels().len());
        let mut own = true;
        for label in key.labels() {
            let name = label_key(label.key(), taken);
            own &= name == label.key();
            // A key given twice (or two keys made the same) keeps its first value.
            if labels.iter().all(|(existing, _)| **existing != *name) {
                labels.push((name.into(), label.value().into()));
            } else {
                own = false;
            }
        }
        labels.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        (FacadeLabels(labels.into()), own)
    }

    /// The order `labels` (this set's own, in any order) come in: the position in this set of
    /// each, 4 bits apiece; [`LabelOrder::UNKNOWN`] past 15 labels.
    pub(crate) fn order_of(&self, labels: &[metrics::Label]) -> LabelOrder {
        if labels.len() > LabelOrder::MAX_LABELS {
            return LabelOrder::UNKNOWN;
        }
        let mut packed = 0;
        for (i, label) in labels.iter().enumerate() {
            match self.0.binary_search_by(|(key, _)| (**key).cmp(label.key())) {
                Ok(at) => packed |= (at as u64) << (4 * i),
                Err(_) => return LabelOrder::UNKNOWN,
            }
        }
        LabelOrder(packed)
    }

    /// Whether `labels` are these, given in `order`: compared pair by pair, the fast path of
    /// a macro call, whose labels come in the same order every time.
    #[inline]
    pub(crate) fn is_in_order(&self, labels: &[metrics::Label], order: LabelOrder) -> bool {
        order != LabelOrder::UNKNOWN
            && labels.len() == self.0.len()
            && labels.iter().enumerate().all(|(i, label)| {
                let (key, value) = &self.0[((order.0 >> (4 * i)) & 15) as usize];
                **key == *label.key() && **value == *label.value()
            })
    }

    /// Whether `labels`, in any order, are these (for labels that are some key's own).
    #[inline]
    pub(crate) fn is_of(&self, labels: &[metrics::Label]) -> bool {
        labels.len() == self.0.len()
            && labels.iter().all(|label| {
                self.0
                    .binary_search_by(|(key, _)| (**key).cmp(label.key()))
                    .is_ok_and(|at| *self.0[at].1 == *label.value())
            })
    }

    /// The `(key, value)` pairs, sorted by key.
    pub(crate) fn pairs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (&**k, &**v))
    }
}

/// The order a key gave its labels in, against their sorted set (see
/// [`FacadeLabels::order_of`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LabelOrder(u64);

impl LabelOrder {
    /// The order of a key with more labels than fit: such keys are compared in any order.
    pub(crate) const UNKNOWN: LabelOrder = LabelOrder(u64::MAX);
    const MAX_LABELS: usize = 15;
}

impl Hash for FacadeLabels {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl fmt::Debug for FacadeLabels {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.pairs()).finish()
    }
}

impl EncodeLabelSet for FacadeLabels {
    fn encode(&self, encoder: &mut LabelSetEncoder<'_>) -> Result<(), fmt::Error> {
        for (key, value) in self.pairs() {
            let mut label = encoder.encode_label();
            let mut key_encoder = label.encode_label_key()?;
            fmt::Write::write_str(&mut key_encoder, key)?;
            let mut value_encoder = key_encoder.encode_label_value()?;
            EncodeLabelValue::encode(&value, &mut value_encoder)?;
            value_encoder.finish()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_keep_what_scrapers_accept_and_replace_the_rest() {
        assert_eq!(metric_name("tokio.workers_count"), "tokio_workers_count");
        assert_eq!(metric_name("vllm:num_requests"), "vllm:num_requests");
        assert_eq!(metric_name("9lives"), "_lives");
        assert_eq!(metric_name("a-b c\u{e9}"), "a_b_c_");
        assert_eq!(metric_name(""), "_");
    }

    #[test]
    fn label_keys_lose_colons_and_reserved_keys_are_renamed() {
        let none: &[String] = &[];
        assert_eq!(label_key("http.status", none), "http_status");
        assert_eq!(label_key("a:b", none), "a_b");
        assert_eq!(label_key("1st", none), "_st");
        assert_eq!(label_key("le", none), "exported_le");
        assert_eq!(label_key("quantile", none), "exported_quantile");
        assert_eq!(label_key("__name__", none), "exported___name__");
        assert_eq!(
            label_key("otel_metric_overflow", none),
            "exported_otel_metric_overflow"
        );
        assert_eq!(label_key("route", none), "route");
        assert_eq!(
            label_key("region", &["region".to_owned()]),
            "exported_region"
        );
    }

    #[test]
    fn a_label_set_is_sorted_with_each_key_once() {
        let key = metrics::Key::from_parts(
            "m",
            vec![
                metrics::Label::new("b", "2"),
                metrics::Label::new("a.x", "1"),
                metrics::Label::new("a_x", "ignored"),
                metrics::Label::new("b", "also ignored"),
            ],
        );
        let (labels, own) = FacadeLabels::of(&key, &[]);
        assert_eq!(
            labels.pairs().collect::<Vec<_>>(),
            [("a_x", "1"), ("b", "2")]
        );
        assert!(!own, "renamed and repeated keys");
        let reordered = [
            metrics::Label::new("b", "2"),
            metrics::Label::new("a_x", "1"),
        ];
        let reordered_key = metrics::Key::from_parts("m", reordered.to_vec());
        assert_eq!(
            FacadeLabels::of(&reordered_key, &[]),
            (labels.clone(), true)
        );
        assert!(labels.is_of(&reordered));
        let order = labels.order_of(&reordered);
        assert!(labels.is_in_order(&reordered, order));
        let sorted = [
            metrics::Label::new("a_x", "1"),
            metrics::Label::new("b", "2"),
        ];
        assert!(
            !labels.is_in_order(&sorted, order),
            "another order: compared in any order"
        );
        assert!(labels.is_in_order(&sorted, labels.order_of(&sorted)));
        assert!(!labels.is_in_order(&reordered, LabelOrder::UNKNOWN));
        let other = [
            metrics::Label::new("b", "2"),
            metrics::Label::new("a_x", "2"),
        ];
        assert!(!labels.is_of(&other));
        assert!(!labels.is_of(&other[..1]));
    }
}
