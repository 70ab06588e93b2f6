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

impl Registry {
    /// Checks that the families of several declarations could all be registered at this
    /// level, and claims nothing: each `(owner, descriptors, options)` is a struct's name (for
    /// the error), its `DESCRIPTORS` and the options it is to be registered with. Register them
    /// afterwards (`try_register_with`), each claiming its own names: none can clash then, so
    /// a set of structs registers all or nothing. The error names the first clash, with a name
    /// already in the tree or between two of the declarations.
    ///
    /// ```
    /// use metric_handles::{Counter, Family, MetricHandles, NoLabels, RegisterOptions, Registry};
    ///
    /// #[derive(MetricHandles)]
    /// struct Frontend {
    ///     /// Requests received
    ///     #[metric(name = "app:requests")]
    ///     requests: Family<NoLabels, Counter>,
    /// }
    ///
    /// #[derive(MetricHandles)]
    /// struct Engine {
    ///     /// Requests scheduled
    ///     #[metric(name = "app:requests")]
    ///     requests: Family<NoLabels, Counter>,
    /// }
    ///
    /// let mut registry = Registry::default();
    /// let options = RegisterOptions::new();
    /// let error = registry
    ///     .check_available(&[
    ///         ("Frontend", Frontend::DESCRIPTORS, &options),
    ///         ("Engine", Engine::DESCRIPTORS, &options),
    ///     ])
    ///     .unwrap_err();
    /// assert!(error.to_string().contains("app:requests"));
    /// // Nothing was claimed: one of them still registers.
    /// assert!(Frontend::try_register_with(&mut registry, &options).is_ok());
    /// ```
    pub fn check_available(
        &self,
        declarations: &[(&str, &[MetricDescriptor], &RegisterOptions)],
    ) -> Result<(), RegistrationError> {
        let claims: Vec<FamilyClaim> = declarations
            .iter()
            .flat_map(|&(owner, descriptors, options)| {
                declared_claims(self.scope(), owner, descriptors, Some(options))
            })
            .collect();
        self.check(&claims)
    }
}
