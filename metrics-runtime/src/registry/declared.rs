//! Registering the families a [`MetricDescriptor`] table declares: a derived struct's, the
//! HTTP families, vLLM's.
//!
//! A table registers in two steps: [`check_registration`] claims every name of every family in
//! the ledger (all or nothing), then [`register_family`] registers each family, which can no
//! longer clash.

use std::fmt;
use std::hash::Hash;

use super::tree::unit_from_str;
use prometheus_client::encoding::EncodeLabelSet;

use super::{FamilyClaim, Registry, Scope};
use crate::declare::descriptor::{LabelAxis, MetricDescriptor, MAX_PRERESOLVED_POSITIONS};
use crate::registry::options::RegisterOptions;
use crate::registry::{RegisteredFamily, RegistrationError};
use crate::sanitize::help_line;
use crate::series::family::Family;
use crate::series::member::{FamilyMember, SeriesSpec};

/// Claims the names of every family `descriptors` declares (registered by the struct `owner`)
/// under `options`, unless one clashes with the registry tree or with another of them: then
/// nothing is claimed and the error names both. Generated `try_register_with` calls this
/// before registering any field.
pub fn check_registration(
    registry: &mut Registry,
    owner: &str,
    descriptors: &[MetricDescriptor],
    options: &RegisterOptions,
) -> Result<(), RegistrationError> {
    if let Some((option, name)) = options.unknown_override(descriptors) {
        return Err(RegistrationError::UnknownOverride {
            family: Box::new(RegisteredFamily {
                name: name.to_owned(),
                metric_type: "unknown",
                registered_by: format!("`RegisterOptions::{option}` given to `{owner}`"),
                const_labels: registry
                    .const_labels()
                    .map(|(k, v)| (k.to_owned(), v.to_owned()))
                    .collect(),
            }),
            option,
            known: descriptors
                .iter()
                .filter(|d| RegisterOptions::applies(option, d))
                .map(|d| d.name.to_owned())
                .collect(),
        });
    }
    registry.claim(declared_claims(
        registry.scope(),
        owner,
        descriptors,
        Some(options),
    ))
}

/// The claims of the families `descriptors` declares at the level `scope`: the primary name
/// and each alias `options` shows (every alias, without options), with its unit, as the
/// struct `owner`'s fields.
pub(crate) fn declared_claims(
    scope: &Scope,
    owner: &str,
    descriptors: &[MetricDescriptor],
    options: Option<&RegisterOptions>,
) -> Vec<FamilyClaim> {
    let mut claims = Vec::new();
    for descriptor in descriptors {
        let label_keys: Vec<String> = descriptor
            .label_keys()
            .into_iter()
            .map(str::to_owned)
            .collect();
        for name in shown_names(descriptor, options) {
            claims.push(FamilyClaim {
                family: scope.family(
                    name,
                    descriptor.unit,
                    descriptor.kind.as_str(),
                    format!("`{owner}.{}`", descriptor.field),
                ),
                label_keys: label_keys.clone(),
            });
        }
    }
    claims
}

/// The names `descriptor` is registered under: its own, then each alias `options` shows
/// (every alias, without options).
fn shown_names<'a>(
    descriptor: &'a MetricDescriptor,
    options: Option<&'a RegisterOptions>,
) -> impl Iterator<Item = &'static str> + 'a {
    std::iter::once(descriptor.name).chain(
        descriptor
            .aliases
            .iter()
            .filter(move |alias| options.is_none_or(|options| options.shows(alias)))
            .map(|alias| alias.name),
    )
}

/// Creates the family `descriptor` describes and registers it (and any alias `options`
/// switches on) in `registry`, whose names [`check_registration`] claimed. Generated
/// `register_with` calls this once per field.
pub fn register_family<L, M>(
    registry: &mut Registry,
    descriptor: &MetricDescriptor,
    options: &RegisterOptions,
) -> Family<L, M>
where
    L: EncodeLabelSet + Clone + Hash + Eq + Send + Sync + fmt::Debug + 'static,
    M: FamilyMember,
{
    let declared_positions = match descriptor.axis {
        Some(LabelAxis::Position { count, .. }) => count,
        _ => 0,
    };
    let (axis_key, grid): (&'static str, &'static [LabelAxis]) = match descriptor.axis {
        Some(LabelAxis::Enum { key, .. }) | Some(LabelAxis::Position { key, .. }) => (key, &[]),
        Some(LabelAxis::Grid { axes }) => ("", axes),
        _ => ("", &[]),
    };
    let declared_positions = match descriptor.axis {
        Some(LabelAxis::Grid { axes }) => axes
            .iter()
            .find_map(|axis| match axis {
                LabelAxis::Position { count, .. } => Some(*count),
                _ => None,
            })
            .unwrap_or(0),
        _ => declared_positions,
    };
    let spec = SeriesSpec::new()
        .with_buckets(options.bucket_bounds(descriptor))
        .with_native(options.native_config(descriptor))
        .with_axis_key(axis_key)
        .with_grid(grid)
        .with_positions(
            options
                .position_count(descriptor, declared_positions)
                .min(MAX_PRERESOLVED_POSITIONS),
        )
        .with_max_series(options.series_limit(descriptor))
        .with_max_label_sets(options.label_set_limit(descriptor))
        .with_family_name(&registry.exposed_name(descriptor.name, descriptor.unit))
        .with_idle_timeout(options.idle_timeout_for(descriptor));
    let family = Family::new(spec);
    // One line, as `# HELP` is: each line break or tab becomes a space.
    let help = help_line(descriptor.help);
    for name in shown_names(descriptor, Some(options)) {
        if M::WRITES_TEXT {
            registry.register_claimed_text(name, &help, descriptor.unit, M::KIND, family.clone());
        } else {
            let unit = descriptor.unit.map(unit_from_str);
            registry.register_claimed(name, help.clone(), unit, family.clone());
        }
    }
    family
}
