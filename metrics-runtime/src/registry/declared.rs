//! Registering the families a [`MetricDescriptor`] table declares: a derived struct's, the
//! HTTP families, vLLM's.
//!
//! A table registers in two steps: [`check_registration`] claims every name of every family in
//! the ledger (all or nothing), then `family::register::register_family` registers each family, which can no
//! longer clash.

use super::{FamilyClaim, Registry, Scope};
use crate::descriptor::MetricDescriptor;
use crate::registry::RegisterOptions;
use crate::registry::{RegisteredFamily, RegistrationError};

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
pub(crate) fn shown_names<'a>(
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
