//! The checks across fields: every registered name unique, no two families exposing the same
//! sample, and `max_label_sets` where the struct's label sets make it mean something. They
//! only report; the plans stay, so each check sees every clash.

use std::collections::HashMap;

use quote::ToTokens;
use syn::Ident;

use super::MetricPlan;
use crate::ast::{Field, Input};
use crate::ctxt::Ctxt;
use crate::names;
use crate::ty::{Axis, Leaf};

/// `max_label_sets` limits the common label sets of a family, which two mistakes take for
/// another limit: on a struct without common labels (`NoLabels`: one label set per family) it
/// limits nothing, and on a `Dynamic` field it is easily meant for the axis's label sets (the
/// tenants), which `max_series` limits. The first is an error; the second is one unless the
/// field also gives `max_series`, so that it says which limit is which.
pub fn check_label_set_limits(cx: &Ctxt, input: &Input, plans: &[MetricPlan]) {
    let common = input
        .container
        .labels
        .as_ref()
        .or_else(|| plans.first().map(|plan| &plan.family.labels))
        .map(crate::ty::render);
    let no_labels = input.generics.params.is_empty()
        && common
            .as_deref()
            .is_none_or(|ty| ty.rsplit("::").next() == Some("NoLabels"));
    for plan in plans {
        let (Some(limit), Some(keyed)) = (&plan.max_label_sets, &plan.field.metric.max_label_sets)
        else {
            continue;
        };
        let (field, key) = (plan.field.ident, &keyed.key);
        let limit = crate::ty::render_tokens(limit);
        let axis = match &plan.family.axis {
            Some(Axis::Dynamic(keys)) => Some(crate::ty::render(keys)),
            _ => None,
        };
        if no_labels {
            let fix = match &axis {
                Some(keys) => format!("to limit the `{keys}` label sets of its `Dynamic` axis write `max_series = {limit}`"),
                None => "remove it".to_owned(),
            };
            cx.error_spanned_by(
                key,
                format!("`max_label_sets` limits how many common label sets a family holds, and this struct has none (`NoLabels`: each family holds one), so on field `{field}` it limits nothing: {fix}"),
            );
        } else if let (Some(keys), None) = (&axis, &plan.max_series) {
            let common = common.as_deref().unwrap_or("the struct's label set");
            cx.error_spanned_by(
                key,
                format!("`max_label_sets` limits how many `{common}` label sets the family of field `{field}` holds, not the `{keys}` label sets of its `Dynamic` axis: to limit those per `{common}`, write `max_series = {limit}`; to limit the `{common}` label sets, give `max_series` too (`max_series = metric_handles::limits::DEFAULT_MAX_SERIES` keeps the default), so the field says which limit is which"),
            );
        }
    }
}

/// Every registered name (primary or alias, with its unit suffix) must be unique across the
/// struct. Fields under different `#[cfg]`s may share a name: only one of them exists.
pub fn check_unique_names(cx: &Ctxt, plans: &[MetricPlan]) {
    struct First<'a> {
        field: &'a Ident,
        is_alias: bool,
        cfg: String,
        /// How the first name was written, when the unit makes it differ from the key.
        written: Option<String>,
    }
    let mut seen: HashMap<String, First> = HashMap::new();
    for plan in plans {
        let cfg = cfg_key(plan.field);
        let unit = plan.unit.as_deref();
        // prometheus-client registers `name_unit`: that is what must be unique.
        let registered = |name: &str| registered_name(name, unit);
        let own = registered(&plan.name.value());
        let names = std::iter::once((&plan.name, false))
            .chain(plan.aliases.iter().map(|(name, _)| (name, true)));
        for (lit, is_alias) in names {
            let written = lit.value();
            let key = registered(&written);
            if is_alias && key == own {
                cx.error_spanned_by(
                    lit,
                    format!("alias `{written}` is the metric's own name: remove the alias, or give the name it replaced"),
                );
                continue;
            }
            match seen.get(&key) {
                Some(first) if may_coexist(&first.cfg, &cfg) => {
                    let what = if is_alias { "alias" } else { "metric name" };
                    let shown = match unit {
                        Some(unit) => format!("`{key}` (`{written}` with `unit = \"{unit}\"`)"),
                        None => format!("`{key}`"),
                    };
                    let by = match (&first.written, first.is_alias) {
                        (Some(w), _) => format!("field `{}` (as `{w}` plus its unit)", first.field),
                        (None, true) => format!("an alias of field `{}`", first.field),
                        (None, false) => format!("field `{}`", first.field),
                    };
                    let message = if first.field == plan.field.ident {
                        format!(
                            "duplicate {what} {shown}: field `{}` already declares it; remove one",
                            first.field
                        )
                    } else {
                        format!("duplicate {what} {shown}: already registered by {by}; every metric needs its own name")
                    };
                    cx.error_spanned_by(lit, message);
                }
                Some(_) => {}
                None => {
                    let first = First {
                        field: plan.field.ident,
                        is_alias,
                        cfg: cfg.clone(),
                        written: unit.map(|_| written.clone()),
                    };
                    seen.insert(key, first);
                }
            }
        }
    }
}

/// No two metrics may expose the same sample name: a counter `app:requests` writes
/// `app:requests_total`, so a gauge `app:requests_total` beside it duplicates that series (and a
/// histogram `app:latency` writes `app:latency_count`). Identical names are left to
/// `check_unique_names`.
pub fn check_sample_collisions(cx: &Ctxt, plans: &[MetricPlan]) {
    struct Claim<'a> {
        field: &'a Ident,
        family: String,
        kind: Leaf,
        cfg: String,
    }
    let mut claims: HashMap<String, Claim> = HashMap::new();
    for plan in plans {
        let cfg = cfg_key(plan.field);
        // A member whose kind is not visible in the tokens (an alias, a custom member) is
        // checked at registration instead.
        let Some(kind) = plan.family.leaf else {
            continue;
        };
        let registered = |name: &str| registered_name(name, plan.unit.as_deref());
        let names = std::iter::once(&plan.name).chain(plan.aliases.iter().map(|(name, _)| name));
        let mut mine: Vec<(String, String)> = Vec::new();
        for lit in names {
            let family = registered(&lit.value());
            let clash = names::claimed_names(&family, kind)
                .into_iter()
                .find_map(|sample| {
                    claims
                        .get(&sample)
                        .filter(|c| c.family != family)
                        .filter(|c| may_coexist(&c.cfg, &cfg))
                        .map(|c| (sample, c))
                });
            if let Some((sample, other)) = clash {
                cx.error_spanned_by(
                    lit,
                    format!(
                        "{} `{family}` exposes the sample `{sample}`, and so does {} `{}` of field `{}`: the series would be duplicated; rename one of them",
                        kind.as_str(),
                        other.kind.as_str(),
                        other.family,
                        other.field,
                    ),
                );
                continue;
            }
            mine.extend(
                names::claimed_names(&family, kind)
                    .into_iter()
                    .map(|s| (s, family.clone())),
            );
        }
        for (sample, family) in mine {
            claims.entry(sample).or_insert(Claim {
                field: plan.field.ident,
                family,
                kind,
                cfg: cfg.clone(),
            });
        }
    }
}

/// The family name prometheus-client registers: `name`, with `_unit` appended when there is a
/// unit.
fn registered_name(name: &str, unit: Option<&str>) -> String {
    match unit {
        Some(unit) => format!("{name}_{unit}"),
        None => name.to_owned(),
    }
}

/// Whether two fields with these `#[cfg]`s (see [`cfg_key`]) can exist in one build: a field
/// without `#[cfg]` always exists, and the same `#[cfg]`s exist together. Different ones are
/// assumed exclusive (the macro cannot evaluate them).
fn may_coexist(a: &str, b: &str) -> bool {
    a.is_empty() || b.is_empty() || a == b
}

/// The field's `#[cfg]` attributes as one string, empty without any.
fn cfg_key(field: &Field) -> String {
    field
        .cfgs()
        .map(|a| a.to_token_stream().to_string())
        .collect::<Vec<_>>()
        .join(" ")
}
