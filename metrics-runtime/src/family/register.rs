//! [`register_family`]: creates the family a [`MetricDescriptor`] describes and registers it,
//! once [`check_registration`](crate::registry::declared::check_registration) has claimed its
//! names.

use std::fmt;
use std::hash::Hash;

use prometheus_client::encoding::EncodeLabelSet;

use super::Family;
use crate::descriptor::{LabelAxis, MetricDescriptor};
use crate::limits::MAX_PRERESOLVED_POSITIONS;
use crate::member::{FamilyMember, SeriesSpec};
use crate::registry::declared::shown_names;
use crate::registry::{unit_from_str, RegisterOptions, Registry};
use crate::sanitize::help_line;

/// Creates the family `descriptor` describes and registers it (and any alias `options`
/// switches on) in `registry`, whose names
/// [`check_registration`](crate::registry::declared::check_registration) claimed. Generated
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
    let exposed_name = registry.exposed_name(descriptor.name, descriptor.unit);
    let family = Family::new(series_spec(descriptor, options, &exposed_name));
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

/// What every series of the family `descriptor` describes is built from, with `options`'
/// overrides; `exposed_name` is the family's name as the exposition writes it (a state set's
/// label key).
pub(crate) fn series_spec(
    descriptor: &MetricDescriptor,
    options: &RegisterOptions,
    exposed_name: &str,
) -> SeriesSpec {
    let (axis_key, grid): (&'static str, &'static [LabelAxis]) = match descriptor.axis {
        Some(LabelAxis::Enum { key, .. }) | Some(LabelAxis::Position { key, .. }) => (key, &[]),
        Some(LabelAxis::Grid { axes }) => ("", axes),
        _ => ("", &[]),
    };
    let declared_positions = match descriptor.axis {
        Some(LabelAxis::Position { count, .. }) => count,
        Some(LabelAxis::Grid { axes }) => axes
            .iter()
            .find_map(|axis| match axis {
                LabelAxis::Position { count, .. } => Some(*count),
                _ => None,
            })
            .unwrap_or(0),
        _ => 0,
    };
    SeriesSpec::new()
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
        .with_family_name(exposed_name)
        .with_idle_timeout(options.idle_timeout_for(descriptor))
}
