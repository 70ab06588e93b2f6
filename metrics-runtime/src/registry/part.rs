//! [`TextPart`]: a family of this crate as a level of the tree writes it, and [`Level`],
//! which renders one (its header lines and sample heads, once, at registration).
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::{Metric, Unit};

#[cfg(feature = "protobuf")]
use super::scope::Inner;
use super::scope::Scope;
use crate::descriptor::MetricKind;
use crate::render::once::{self, Headers};
use crate::render::{SampleHeads, TextFamily, TextFormat};

/// A family of this crate as the text encoder writes it.
#[derive(Debug)]
pub(crate) struct TextPart {
    /// Its `# HELP`/`# TYPE`/`# UNIT` lines, rendered at registration.
    pub(crate) headers: Headers,
    /// The start of its sample lines (name, const labels), rendered at registration: for
    /// OpenMetrics, then for the classic text.
    heads: [SampleHeads; 2],
    pub(crate) family: Box<dyn TextFamily>,
    /// How the protobuf exposition writes the family.
    #[cfg(feature = "protobuf")]
    pub(crate) protobuf: ProtobufPart,
}

/// How the protobuf exposition writes a family of this crate.
#[cfg(feature = "protobuf")]
#[derive(Debug)]
pub(crate) enum ProtobufPart {
    /// From its series, with the fields rendered at registration.
    Written(crate::render::protobuf::FamilyHeads),
    /// Through prometheus-client's protobuf encoder: a family holding a member kind the
    /// protobuf writer does not know, in a registry of its own.
    Encoded(Inner),
}

impl TextPart {
    /// The header lines and sample heads of `format`.
    pub(crate) fn rendered(&self, format: TextFormat) -> (&str, &SampleHeads) {
        match format {
            TextFormat::OpenMetrics => (&self.headers.openmetrics, &self.heads[0]),
            TextFormat::Prometheus => (&self.headers.prometheus, &self.heads[1]),
        }
    }
}

/// One level of the tree as its families are rendered: its prefix and const labels.
#[derive(Clone, Copy)]
pub(crate) struct Level<'a> {
    pub(crate) scope: &'a Scope,
    pub(crate) const_labels: &'a str,
}

impl Level<'_> {
    /// `family` as the text (and protobuf) encoder writes it at this level: its header lines
    /// and sample heads rendered now, once per format. Gives `family` back should rendering
    /// fail, which prometheus-client's encoder never does for a valid name.
    pub(crate) fn text_part<F>(
        self,
        name: &str,
        help: &str,
        unit: Option<&str>,
        kind: MetricKind,
        family: F,
    ) -> Result<TextPart, F>
    where
        F: TextFamily + Metric + Clone,
    {
        let Ok(headers) = once::headers(
            self.scope.inner(),
            name,
            help,
            unit.map(unit_from_str),
            kind,
        ) else {
            return Err(family);
        };
        #[cfg(feature = "protobuf")]
        let protobuf = self.protobuf_part(name, help, unit, kind.metric_type(), &family);
        let unprefixed = name_with_unit(name, unit);
        let name = self.scope.full_name(name, unit);
        let heads = |format| {
            let le = family.bucket_labels(format);
            SampleHeads::new(format, &name, self.const_labels, le)
        };
        let mut classic = heads(TextFormat::Prometheus);
        if kind == MetricKind::GaugeHistogram {
            let [gcount, gsum] = ["_gcount", "_gsum"]
                .map(|suffix| self.gauge_part_headers(&unprefixed, suffix, help));
            classic = classic.with_gauge_histogram_parts(gcount, gsum);
        }
        let heads = [heads(TextFormat::OpenMetrics), classic];
        Ok(TextPart {
            headers,
            heads,
            family: Box::new(family),
            #[cfg(feature = "protobuf")]
            protobuf,
        })
    }

    /// How the protobuf exposition writes `family`: from its series, with its fields rendered
    /// now; or, for a family holding a member kind the protobuf writer does not know (or
    /// should rendering fail), through prometheus-client's protobuf encoder, from a registry
    /// of its own at this level's prefix and const labels (a clone of the family shares its
    /// series).
    #[cfg(feature = "protobuf")]
    fn protobuf_part<F>(
        self,
        name: &str,
        help: &str,
        unit: Option<&str>,
        metric_type: MetricType,
        family: &F,
    ) -> ProtobufPart
    where
        F: TextFamily + Metric + Clone,
    {
        if family.writes_protobuf() {
            let heads = crate::render::protobuf::heads::family_heads(
                self.scope.inner(),
                name,
                help,
                unit.map(unit_from_str),
                metric_type,
                &self.scope.labels,
            );
            if let Ok(heads) = heads {
                return ProtobufPart::Written(heads);
            }
        }
        // Registered under its own name: the full name is the prefix's and unit's to add.
        let mut metrics = self.scope.inner();
        match unit.map(unit_from_str) {
            Some(unit) => metrics.register_with_unit(name, help, unit, family.clone()),
            None => metrics.register(name, help, family.clone()),
        }
        ProtobufPart::Encoded(metrics)
    }

    /// The classic-text header lines of the gauge family `name` + `suffix` (a gauge
    /// histogram's `_gcount` or `_gsum`) at this level; empty if they cannot be rendered,
    /// which prometheus-client's encoder never fails to do.
    fn gauge_part_headers(self, name: &str, suffix: &str, help: &str) -> Box<str> {
        once::typed_headers(
            self.scope.inner(),
            &format!("{name}{suffix}"),
            help,
            None,
            MetricType::Gauge,
        )
        .map(|headers| headers.prometheus)
        .unwrap_or_default()
    }
}

/// prometheus-client's `Unit` for a unit suffix.
pub(crate) fn unit_from_str(unit: &str) -> Unit {
    match unit {
        "amperes" => Unit::Amperes,
        "bytes" => Unit::Bytes,
        "celsius" => Unit::Celsius,
        "grams" => Unit::Grams,
        "joules" => Unit::Joules,
        "meters" => Unit::Meters,
        "ratios" => Unit::Ratios,
        "seconds" => Unit::Seconds,
        "volts" => Unit::Volts,
        other => Unit::Other(other.to_owned()),
    }
}

/// `name` and `unit` joined by `_`, as a family's name is written before the level's prefix.
fn name_with_unit(name: &str, unit: Option<&str>) -> String {
    match unit {
        Some(unit) => format!("{name}_{unit}"),
        None => name.to_owned(),
    }
}
