//! What a family writes in every protobuf scrape, rendered once at registration.

use std::borrow::Cow;
use std::fmt;

use prometheus_client::encoding::prometheus_protobuf::encode;
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::{Registry as Inner, Unit};
use prost::Message;

use super::fields::{label_pair, LABEL};
use crate::render::once;
use crate::sanitize::replace_controls;

/// A family's `MetricFamily` fields besides its metrics, encoded.
#[derive(Debug)]
pub(crate) struct FamilyHeads {
    /// `name`, `help` and `type`, as prometheus-client's protobuf encoder writes them for the
    /// family (prefix, unit and a counter's `_total` in the name; help with its final `.`).
    pub(crate) head: Box<[u8]>,
    /// `unit`, written after the metrics (field order); empty without a unit.
    pub(crate) unit: Box<[u8]>,
    /// What each `Metric` starts with.
    pub(crate) metric: MetricHeads,
}

/// What every `Metric` of a family starts with: its level's const labels, as `label` fields;
/// and the family's name, which a state set's metrics carry as the key of their state label.
#[derive(Debug)]
pub(crate) struct MetricHeads {
    pub(crate) const_labels: Box<[u8]>,
    pub(crate) family_name: Box<str>,
}

/// The heads of the family `name` of `metric_type` registered at a level with the prefix and
/// const labels of `scope` (an empty prometheus-client registry of that level), whose const
/// labels are `const_labels`.
pub(crate) fn family_heads(
    scope: Inner,
    name: &str,
    help: &str,
    unit: Option<Unit>,
    metric_type: MetricType,
    const_labels: &[(Cow<'static, str>, Cow<'static, str>)],
) -> Result<FamilyHeads, fmt::Error> {
    let registry = once::descriptor_registry(scope, name, help, unit, metric_type);
    let mut families = encode(&registry)?;
    let mut family = families.pop().ok_or(fmt::Error)?;
    if !families.is_empty() {
        return Err(fmt::Error);
    }
    family.help = replace_controls(&family.help).into_owned();
    let unit = std::mem::take(&mut family.unit);
    let mut unit_field = Vec::new();
    super::wire::string(&mut unit_field, 5, unit.as_bytes());
    let mut labels = Vec::new();
    for (name, value) in const_labels {
        label_pair(&mut labels, LABEL, name, &replace_controls(value));
    }
    Ok(FamilyHeads {
        head: family.encode_to_vec().into(),
        unit: unit_field.into(),
        metric: MetricHeads {
            const_labels: labels.into(),
            family_name: family.name.as_str().into(),
        },
    })
}
