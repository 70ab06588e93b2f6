//! What the fast encoder renders once: a family's `# HELP`/`# TYPE`/`# UNIT` lines, the const
//! labels of a registry level, each series' label set, a histogram family's `le` values.
//!
//! Each is rendered by prometheus-client's own encoders on a scratch registry holding one
//! family, then sanitised as a scrape is: so every label set (a derived one, a hand-written
//! `EncodeLabelSet`) and every help text comes out exactly as prometheus-client writes it.
//! This is the slow path (a registration, a new series), never a scrape.

use std::fmt;

use prometheus_client::encoding::MetricEncoder;
use prometheus_client::encoding::{prometheus_text, text, EncodeLabelSet, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::{Registry as Inner, Unit};

use crate::descriptor::{type_name, MetricKind};
use crate::histogram::Histogram;
use crate::sanitize::{replace_controls, sanitize};

/// The name the scratch registries register their one family under.
const SCRATCH: &str = "x";

/// A family that writes its descriptor and no sample: what renders the header lines.
#[derive(Debug)]
struct DescriptorOnly(MetricType);

impl EncodeMetric for DescriptorOnly {
    fn encode(&self, _encoder: MetricEncoder) -> Result<(), fmt::Error> {
        Ok(())
    }

    fn metric_type(&self) -> MetricType {
        self.0
    }
}

/// A gauge family of one sample, `x{labels} 0`: what renders a label set.
#[derive(Debug)]
struct OneSample<L>(L);

impl<L: EncodeLabelSet + fmt::Debug + Send + Sync + 'static> EncodeMetric for OneSample<L> {
    fn encode(&self, mut encoder: MetricEncoder) -> Result<(), fmt::Error> {
        encoder.encode_family(&self.0)?.encode_gauge(&0i64)
    }

    fn metric_type(&self) -> MetricType {
        MetricType::Gauge
    }
}

/// The header lines of a family of `kind` in OpenMetrics and in the classic text, as `scope`
/// (an empty prometheus-client registry with the level's prefix and const labels) writes them
/// for the type its encoders know; a state set's and a gauge histogram's OpenMetrics
/// `# TYPE` line then names their own type.
pub(crate) fn headers(
    scope: Inner,
    name: &str,
    help: &str,
    unit: Option<Unit>,
    kind: MetricKind,
) -> Result<Headers, fmt::Error> {
    let mut headers = typed_headers(scope, name, help, unit, kind.metric_type())?;
    if kind.as_str() != type_name(kind.metric_type()) {
        headers.openmetrics = retyped(&headers.openmetrics, kind.as_str())?;
    }
    Ok(headers)
}

/// `headers` with the type word of its `# TYPE` line replaced by `metric_type`.
fn retyped(headers: &str, metric_type: &str) -> Result<Box<str>, fmt::Error> {
    let mut out = String::with_capacity(headers.len() + metric_type.len());
    let mut retyped = false;
    for line in headers.split_inclusive('\n') {
        match line.strip_prefix("# TYPE ") {
            Some(rest) if !retyped => {
                let (family, _) = rest
                    .trim_end_matches('\n')
                    .rsplit_once(' ')
                    .ok_or(fmt::Error)?;
                out.push_str("# TYPE ");
                out.push_str(family);
                out.push(' ');
                out.push_str(metric_type);
                out.push('\n');
                retyped = true;
            }
            _ => out.push_str(line),
        }
    }
    retyped.then(|| out.into_boxed_str()).ok_or(fmt::Error)
}

/// The header lines of a family as prometheus-client writes `metric_type`.
pub(crate) fn typed_headers(
    scope: Inner,
    name: &str,
    help: &str,
    unit: Option<Unit>,
    metric_type: MetricType,
) -> Result<Headers, fmt::Error> {
    let scope = descriptor_registry(scope, name, help, unit, metric_type);
    let mut openmetrics = String::new();
    text::encode_registry(&mut openmetrics, &scope)?;
    let mut classic = String::new();
    prometheus_text::encode(&mut classic, &scope)?;
    Ok(Headers {
        openmetrics: sanitize(openmetrics, true).into_boxed_str(),
        prometheus: sanitize(classic, false).into_boxed_str(),
    })
}

/// `scope` (an empty prometheus-client registry with a level's prefix and const labels) with
/// one family registered that writes its descriptor and no sample: what prometheus-client's
/// encoders render a family's header from.
pub(crate) fn descriptor_registry(
    mut scope: Inner,
    name: &str,
    help: &str,
    unit: Option<Unit>,
    metric_type: MetricType,
) -> Inner {
    let descriptor = DescriptorOnly(metric_type);
    match unit {
        Some(unit) => scope.register_with_unit(name, help, unit, descriptor),
        None => scope.register(name, help, descriptor),
    }
    scope
}

/// A family's header lines in each text format.
#[derive(Debug)]
pub(crate) struct Headers {
    pub(crate) openmetrics: Box<str>,
    pub(crate) prometheus: Box<str>,
}

/// `labels` as they appear between the braces of a sample line (`k="v",k2="v2"`, escaped and
/// sanitised; empty for a label set without labels). An error is the label set's own.
pub(crate) fn label_set<L>(labels: &L) -> Result<Box<str>, fmt::Error>
where
    L: EncodeLabelSet + Clone + fmt::Debug + Send + Sync + 'static,
{
    one_sample_labels(Inner::default(), OneSample(labels.clone()))
}

/// The const labels of `scope` (a prometheus-client registry with a level's const labels) as
/// they appear between the braces of a sample line.
pub(crate) fn const_labels(scope: Inner) -> Result<Box<str>, fmt::Error> {
    one_sample_labels(scope, OneSample(Vec::<(String, String)>::new()))
}

fn one_sample_labels<L>(mut scratch: Inner, sample: OneSample<L>) -> Result<Box<str>, fmt::Error>
where
    L: EncodeLabelSet + fmt::Debug + Send + Sync + 'static,
{
    scratch.register(SCRATCH, "", sample);
    let mut exposition = String::new();
    prometheus_text::encode(&mut exposition, &scratch)?;
    // `# HELP`, `# TYPE`, then the sample; a label value's line feeds are escaped, so the
    // sample is one line.
    let sample = exposition.split('\n').nth(2).ok_or(fmt::Error)?;
    let labels = sample
        .strip_prefix(SCRATCH)
        .and_then(|rest| rest.strip_suffix(" 0"))
        .ok_or(fmt::Error)?;
    let labels = match labels.strip_prefix('{') {
        Some(braced) => braced.strip_suffix('}').ok_or(fmt::Error)?,
        None if labels.is_empty() => "",
        None => return Err(fmt::Error),
    };
    Ok(replace_controls(labels).into())
}

/// The `le="..."` label of each bucket of a histogram with `bounds` (`+Inf` last), in
/// OpenMetrics and in the classic text (which spells bounds as Go does).
pub(crate) fn bucket_labels(bounds: &[f64]) -> Result<BucketLabels, fmt::Error> {
    let mut scratch = Inner::default();
    scratch.register(SCRATCH, "", Histogram::new(bounds.iter().copied()));
    let mut openmetrics = String::new();
    text::encode_registry(&mut openmetrics, &scratch)?;
    let mut classic = String::new();
    prometheus_text::encode(&mut classic, &scratch)?;
    Ok(BucketLabels {
        openmetrics: le_labels(&openmetrics)?,
        prometheus: le_labels(&classic)?,
    })
}

/// The `le` label of each bucket of a histogram family, in each format.
#[derive(Debug, Default)]
pub(crate) struct BucketLabels {
    pub(crate) openmetrics: Box<[Box<str>]>,
    pub(crate) prometheus: Box<[Box<str>]>,
}

fn le_labels(exposition: &str) -> Result<Box<[Box<str>]>, fmt::Error> {
    let bucket_line = concat!("x", "_bucket{");
    exposition
        .split('\n')
        .filter_map(|line| line.strip_prefix(bucket_line))
        .map(|rest| {
            let (labels, _) = rest.rsplit_once('}').ok_or(fmt::Error)?;
            Ok(labels.into())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_sets_render_escaped_and_sanitised() {
        let labels = vec![
            ("a".to_owned(), "q\"\\\n\r".to_owned()),
            ("b".into(), "".into()),
        ];
        assert_eq!(
            &*label_set(&labels).unwrap(),
            "a=\"q\\\"\\\\\\n\u{240d}\",b=\"\""
        );
        assert_eq!(&*label_set(&Vec::<(String, String)>::new()).unwrap(), "");
        let scope = Inner::with_labels([("k".into(), "v".into())].into_iter());
        assert_eq!(&*const_labels(scope).unwrap(), "k=\"v\"");
    }

    #[test]
    fn bucket_labels_follow_each_format() {
        let labels = bucket_labels(&[0.5, 1.0, 1e7]).unwrap();
        let om: Vec<&str> = labels.openmetrics.iter().map(|l| &**l).collect();
        let text: Vec<&str> = labels.prometheus.iter().map(|l| &**l).collect();
        assert_eq!(
            om,
            [
                "le=\"0.5\"",
                "le=\"1.0\"",
                "le=\"10000000.0\"",
                "le=\"+Inf\""
            ]
        );
        assert_eq!(
            text,
            ["le=\"0.5\"", "le=\"1\"", "le=\"1e+07\"", "le=\"+Inf\""]
        );
    }

    #[test]
    fn headers_carry_prefix_unit_and_escaped_help() {
        let scope = Inner::with_prefix("p");
        let headers = headers(
            scope,
            "n",
            "Say \"hi\"",
            Some(Unit::Seconds),
            MetricKind::Counter,
        )
        .unwrap();
        assert_eq!(
            &*headers.openmetrics,
            "# HELP p_n_seconds Say \\\"hi\\\".\n# TYPE p_n_seconds counter\n# UNIT p_n_seconds seconds\n"
        );
        assert_eq!(
            &*headers.prometheus,
            "# HELP p_n_seconds_total Say \"hi\".\n# TYPE p_n_seconds_total counter\n"
        );
    }

    #[test]
    fn state_sets_and_gauge_histograms_name_their_type_in_openmetrics_only() {
        let cases = [
            (MetricKind::StateSet, "stateset", "gauge"),
            (MetricKind::GaugeHistogram, "gaugehistogram", "histogram"),
        ];
        for (kind, openmetrics, classic) in cases {
            let headers = headers(Inner::default(), "n", "A TYPE n gauge", None, kind).unwrap();
            assert_eq!(
                &*headers.openmetrics,
                format!("# HELP n A TYPE n gauge.\n# TYPE n {openmetrics}\n")
            );
            assert_eq!(
                &*headers.prometheus,
                format!("# HELP n A TYPE n gauge.\n# TYPE n {classic}\n")
            );
        }
    }
}
