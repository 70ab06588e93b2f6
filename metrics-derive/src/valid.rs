//! Checks that need the field's type or the other fields, and the resulting plan that
//! `expand.rs` turns into code. A plan exists only for fields without errors.

use std::collections::HashMap;

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{Attribute, Ident, LitStr};

use crate::ast::{Field, Input};
use crate::attr::Keyed;
use crate::buckets::BucketSpec;
use crate::ctxt::Ctxt;
use crate::names;
use crate::symbol::{ALIAS, DEPRECATED_IN, DOC, NAME};
use crate::ty::{Axis, FamilyType, Leaf};

/// Everything `expand.rs` needs for one metric field, checked.
pub struct MetricPlan<'a> {
    pub field: &'a Field<'a>,
    pub family: &'a FamilyType,
    pub name: LitStr,
    pub help: String,
    pub unit: Option<String>,
    pub buckets: Option<BucketSpec>,
    /// `label = ...`: one key per fixed axis (empty without one).
    pub axis_keys: Vec<LitStr>,
    pub positions: Option<TokenStream>,
    pub max_series: Option<TokenStream>,
    pub max_label_sets: Option<TokenStream>,
    pub aliases: Vec<(LitStr, LitStr)>,
}

/// Checks every metric field; returns the plans of the fields that passed.
pub fn check<'a>(cx: &Ctxt, input: &'a Input<'a>) -> Vec<MetricPlan<'a>> {
    let plans: Vec<MetricPlan<'a>> = input
        .fields
        .iter()
        .filter(|field| !field.is_skipped())
        .filter_map(|field| check_field(cx, field))
        .collect();
    check_unique_names(cx, &plans);
    check_sample_collisions(cx, &plans);
    check_label_set_limits(cx, input, &plans);
    plans
}

/// `max_label_sets` limits the common label sets of a family, which two mistakes take for
/// another limit: on a struct without common labels (`NoLabels`: one label set per family) it
/// limits nothing, and on a `Dynamic` field it is easily meant for the axis's label sets (the
/// tenants), which `max_series` limits. The first is an error; the second is one unless the
/// field also gives `max_series`, so that it says which limit is which.
fn check_label_set_limits(cx: &Ctxt, input: &Input, plans: &[MetricPlan]) {
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
                format!("`max_label_sets` limits how many `{common}` label sets the family of field `{field}` holds, not the `{keys}` label sets of its `Dynamic` axis: to limit those per `{common}`, write `max_series = {limit}`; to limit the `{common}` label sets, give `max_series` too (`max_series = metric_handles::DEFAULT_MAX_SERIES` keeps the default), so the field says which limit is which"),
            );
        }
    }
}

/// A key whose value cannot be used: the mistake was reported, here or while parsing, and the
/// field gets no plan (so the struct-wide checks do not repeat it).
struct Invalid;

/// One field's plan, when every key checks out. Each key is checked on its own, and all of
/// them are checked (in the order of the messages the user sees), so one compile reports
/// every mistake of the field.
fn check_field<'a>(cx: &Ctxt, field: &'a Field<'a>) -> Option<MetricPlan<'a>> {
    let attrs = &field.metric;
    if !attrs.present {
        return None;
    }
    let family = field.family.as_ref();
    // Both `None` when the spelling does not show them: the generated compile-time checks
    // then compare the attributes with `<M as FamilyMember>::KIND` and `::AXIS`.
    let leaf = family.and_then(|f| f.leaf);
    let axis = family.and_then(|f| f.axis.as_ref());

    let mut missing = Missing::default();
    let name = given_name(field, &mut missing);
    let unit = check_unit(cx, field);
    let name = name.and_then(|name| check_metric_name(cx, name, leaf, &unit));
    let help = check_help(cx, field);
    let buckets = check_buckets(cx, field, leaf, &mut missing);
    let axis_keys = check_axis_keys(cx, field, axis, &mut missing).ok_or(Invalid);
    missing.report(cx, field);
    let positions = check_positions(cx, field, axis);
    let max_series = check_max_series(cx, field, axis);
    let max_label_sets = value_of(&attrs.max_label_sets);
    let aliases = check_aliases(cx, field, leaf);

    let family = family.filter(|f| !f.broken && attrs.parsed)?;
    Some(MetricPlan {
        field,
        family,
        name: name.ok()?,
        help: help?,
        unit: unit.ok()?,
        buckets: buckets.ok()?,
        axis_keys: axis_keys.ok()?,
        positions: positions.ok()?,
        max_series: max_series.ok()?,
        max_label_sets: max_label_sets.ok()?,
        aliases: aliases.ok()?,
    })
}

/// The value of an optional key: absent is fine, a key without a usable value (reported while
/// parsing) is not.
fn value_of<T: Clone>(keyed: &Option<Keyed<Option<T>>>) -> Result<Option<T>, Invalid> {
    match keyed {
        Some(keyed) => keyed.value.clone().map(Some).ok_or(Invalid),
        None => Ok(None),
    }
}

/// A required key a field leaves out: the key with an example value, and the error to report
/// when it is the only one missing (with its span).
struct MissingKey {
    written: String,
    tokens: TokenStream,
    message: String,
}

/// The required keys a field leaves out. One missing key is reported with its own message; more
/// than one are reported together, once, with the whole attribute to add: a histogram axis
/// without `buckets` and `label` gets one error, not one per key.
#[derive(Default)]
struct Missing(Vec<MissingKey>);

impl Missing {
    fn add(&mut self, written: String, tokens: TokenStream, message: String) {
        self.0.push(MissingKey {
            written,
            tokens,
            message,
        });
    }

    fn report(self, cx: &Ctxt, field: &Field) {
        match self.0.as_slice() {
            [] => {}
            [only] => cx.error_spanned_by(&only.tokens, &only.message),
            keys => {
                let ident = field.ident;
                let names: Vec<String> = keys
                    .iter()
                    .map(|k| {
                        let key = k.written.split(' ').next().unwrap_or_default();
                        format!("`{key}`")
                    })
                    .collect();
                let Some((last, rest)) = names.split_last() else {
                    return;
                };
                let written: Vec<&str> = keys.iter().map(|k| k.written.as_str()).collect();
                cx.error_spanned_by(
                    ident,
                    format!(
                        "field `{ident}` needs {} and {last}: add `#[metric({})]`",
                        rest.join(", "),
                        written.join(", ")
                    ),
                );
            }
        }
    }
}

/// `name = "..."`, which every metric needs.
fn given_name<'a>(field: &'a Field, missing: &mut Missing) -> Result<&'a LitStr, Invalid> {
    let attrs = &field.metric;
    match &attrs.name {
        Some(keyed) => keyed.value.as_ref().ok_or(Invalid),
        None => {
            if attrs.parsed {
                let ident = field.ident;
                missing.add(
                    "name = \"...\"".to_owned(),
                    ident.to_token_stream(),
                    format!("field `{ident}` needs a metric name: add `#[metric(name = \"...\")]`"),
                );
            }
            Err(Invalid)
        }
    }
}

/// `unit = "..."`: a valid unit, or none.
fn check_unit(cx: &Ctxt, field: &Field) -> Result<Option<String>, Invalid> {
    let Some(lit) = value_of(&field.metric.unit)? else {
        return Ok(None);
    };
    match names::check_unit(&lit.value()) {
        Ok(()) => Ok(Some(lit.value())),
        Err(message) => {
            cx.error_spanned_by(&lit, format!("invalid `unit`: {message}"));
            Err(Invalid)
        }
    }
}

/// The metric name: valid, and without the suffixes prometheus-client appends (`_total` on a
/// counter, `_{unit}` with a unit).
fn check_metric_name(
    cx: &Ctxt,
    name: &LitStr,
    leaf: Option<Leaf>,
    unit: &Result<Option<String>, Invalid>,
) -> Result<LitStr, Invalid> {
    let mut ok = check_name(cx, name, leaf, "metric name");
    if let (Ok(Some(unit)), Ok(())) = (unit, names::check_metric_name(&name.value())) {
        let suffix = format!("_{unit}");
        if name.value().ends_with(&suffix) {
            cx.error_spanned_by(
                name,
                format!(
                    "metric name `{}` already ends with `{suffix}`, and prometheus-client appends the unit: write `name = \"{}\"`",
                    name.value(),
                    name.value().trim_end_matches(&suffix)
                ),
            );
            ok = false;
        }
    }
    ok.then(|| name.clone()).ok_or(Invalid)
}

/// `buckets = ...`: required on a histogram, refused on a counter or gauge. A member whose
/// kind the spelling does not show is checked at compile time instead.
fn check_buckets(
    cx: &Ctxt,
    field: &Field,
    leaf: Option<Leaf>,
    missing: &mut Missing,
) -> Result<Option<BucketSpec>, Invalid> {
    let attrs = &field.metric;
    let ident = field.ident;
    match (&attrs.buckets, leaf) {
        (Some(keyed), Some(other)) if other != Leaf::Histogram => {
            cx.error_spanned_by(
                &keyed.key,
                format!(
                    "`buckets` only applies to histograms, and field `{ident}` is a {}: remove `buckets`",
                    other.as_str()
                ),
            );
            Err(Invalid)
        }
        (None, Some(Leaf::Histogram)) => {
            if attrs.parsed {
                missing.add(
                    "buckets = [0.1, 0.5, 1.0]".to_owned(),
                    ident.to_token_stream(),
                    format!(
                        "histogram `{ident}` needs buckets: add e.g. `#[metric(buckets = [0.1, 0.5, 1.0])]` or `buckets = exponential(start = 0.001, factor = 2.0, count = 16)`"
                    ),
                );
            }
            Err(Invalid)
        }
        (buckets, _) => value_of(buckets),
    }
}

/// `positions = N`: only on a member with a position axis.
fn check_positions(
    cx: &Ctxt,
    field: &Field,
    axis: Option<&Axis>,
) -> Result<Option<TokenStream>, Invalid> {
    let applies = axis.is_none_or(Axis::has_position);
    value_where(cx, &field.metric.positions, applies, || {
        format!("`positions` only applies to a position axis (`ByPosition<_>`, or `Position` in `ByLabels<(..), _>`), and field `{}` has none: remove `positions`", field.ident)
    })
}

/// `max_series = N`: only on a member with an axis (a plain member has one series per label
/// set; `max_label_sets` limits those). A value that did not parse was reported already.
fn check_max_series(
    cx: &Ctxt,
    field: &Field,
    axis: Option<&Axis>,
) -> Result<Option<TokenStream>, Invalid> {
    let max_series = &field.metric.max_series;
    let parsed = max_series.as_ref().is_some_and(|k| k.value.is_some());
    let applies = !(parsed && matches!(axis, Some(Axis::None)));
    value_where(cx, max_series, applies, || {
        format!("`max_series` limits the series an axis creates per label set, and field `{}` has no axis: to limit how many label sets the family holds write `max_label_sets = N`", field.ident)
    })
}

/// [`value_of`] for a key that only some members take: given where it does not `apply`, it is
/// reported at the key.
fn value_where<T: Clone>(
    cx: &Ctxt,
    keyed: &Option<Keyed<Option<T>>>,
    applies: bool,
    message: impl FnOnce() -> String,
) -> Result<Option<T>, Invalid> {
    match keyed {
        Some(keyed) if !applies => {
            cx.error_spanned_by(&keyed.key, message());
            Err(Invalid)
        }
        _ => value_of(keyed),
    }
}

/// Every `alias(name = "...", deprecated_in = "...")`: both keys given, a valid name, a
/// version. All aliases are checked, so each mistake is reported.
fn check_aliases(
    cx: &Ctxt,
    field: &Field,
    leaf: Option<Leaf>,
) -> Result<Vec<(LitStr, LitStr)>, Invalid> {
    let mut ok = true;
    let mut aliases = Vec::new();
    for alias in &field.metric.aliases {
        let (Some(alias_name), Some(version)) = (&alias.name, &alias.deprecated_in) else {
            ok = false;
            if alias.broken {
                continue;
            }
            let missing = if alias.name.is_none() {
                NAME
            } else {
                DEPRECATED_IN
            };
            cx.error_spanned_by(
                &alias.key,
                format!(
                    "`{ALIAS}(...)` needs `{missing} = \"...\"`: write `{ALIAS}({NAME} = \"old:name\", {DEPRECATED_IN} = \"0.10\")`"
                ),
            );
            continue;
        };
        ok &= check_name(cx, alias_name, leaf, "alias name");
        if version.value().trim().is_empty() {
            cx.error_spanned_by(
                version,
                "`deprecated_in` cannot be empty: give the version that hid the name, e.g. `deprecated_in = \"0.10\"`",
            );
            ok = false;
        }
        aliases.push((alias_name.clone(), version.clone()));
    }
    ok.then_some(aliases).ok_or(Invalid)
}

/// `label = ...`: valid, distinct keys, as many as the member's spelled axes need. `None`
/// after reporting a mistake. When the spelling does not show the axis, any number is
/// accepted here and checked against `<M as FamilyMember>::AXIS` at compile time.
fn check_axis_keys(
    cx: &Ctxt,
    field: &Field,
    axis: Option<&Axis>,
    missing: &mut Missing,
) -> Option<Vec<LitStr>> {
    let ident = field.ident;
    let attrs = &field.metric;
    let given = match &attrs.label {
        Some(keyed) => Some((&keyed.key, keyed.value.as_ref()?)),
        None => None,
    };
    let mut ok = true;
    if let Some((_, keys)) = given {
        for (i, lit) in keys.iter().enumerate() {
            if let Err(message) = names::check_label_key(&lit.value()) {
                cx.error_spanned_by(
                    lit,
                    format!("invalid axis key in `label = ...`: {message}; choose another key"),
                );
                ok = false;
            } else if keys[..i].iter().any(|k| k.value() == lit.value()) {
                cx.error_spanned_by(
                    lit,
                    format!(
                        "axis key `{}` appears twice in `label = [...]`: every axis needs its own key",
                        lit.value()
                    ),
                );
                ok = false;
            }
        }
    }
    let Some(axis) = axis else {
        return ok.then(|| given.map(|(_, keys)| keys.clone()).unwrap_or_default());
    };
    let needed = axis.label_keys();
    match given {
        Some((key, _)) if needed == 0 => {
            cx.error_spanned_by(
                key,
                format!(
                    "`label` names the keys of a `ByLabel`, `ByLabels` or `ByPosition` axis, and field `{ident}` has none: remove `label`{}",
                    if matches!(axis, Axis::Dynamic(_)) {
                        " (a `Dynamic` axis takes its keys from its label set)"
                    } else {
                        ""
                    }
                ),
            );
            return None;
        }
        Some((key, keys)) if keys.len() != needed => {
            cx.error_spanned_by(
                key,
                format!(
                    "field `{ident}` has {needed} fixed {}, and `label` names {}: write `label = {}`",
                    if needed == 1 { "axis" } else { "axes" },
                    keys.len(),
                    key_hint(axis)
                ),
            );
            return None;
        }
        None if needed > 0 => {
            if attrs.parsed {
                let member = field
                    .family
                    .as_ref()
                    .map(|f| f.member.to_token_stream())
                    .unwrap_or_default();
                missing.add(
                    format!("label = {}", key_hint(axis)),
                    member,
                    format!(
                        "{} needs its label {}: add `#[metric(label = {})]` to field `{ident}`",
                        if needed == 1 { "an axis" } else { "a grid" },
                        if needed == 1 {
                            "key"
                        } else {
                            "keys, one per axis"
                        },
                        key_hint(axis)
                    ),
                );
            }
            return None;
        }
        _ => {}
    }
    ok.then(|| given.map(|(_, keys)| keys.clone()).unwrap_or_default())
}

/// What `label = ...` could say for `axis`: the enum's name in snake case, or `position`.
fn key_hint(axis: &Axis) -> String {
    let name = |ty: Option<&syn::Type>| match ty {
        Some(ty) => {
            let text = crate::ty::render(ty);
            let last = text.rsplit("::").next().unwrap_or(&text).to_owned();
            format!("\"{}\"", crate::case::RenameRule::Snake.apply(&last))
        }
        None => "\"position\"".to_owned(),
    };
    match axis {
        Axis::Enum(ty) => name(Some(ty)),
        Axis::Position => name(None),
        Axis::Grid(parts) => {
            let keys: Vec<String> = parts.iter().map(|p| name(p.as_ref())).collect();
            format!("[{}]", keys.join(", "))
        }
        Axis::None | Axis::Dynamic(_) => "\"...\"".to_owned(),
    }
}

/// A metric or alias name: valid, and without `_total` for counters.
fn check_name(cx: &Ctxt, lit: &LitStr, leaf: Option<Leaf>, what: &str) -> bool {
    let name = lit.value();
    if let Err(message) = names::check_metric_name(&name) {
        cx.error_spanned_by(lit, format!("invalid {what}: {message}"));
        return false;
    }
    if leaf == Some(Leaf::Counter) && name.ends_with("_total") {
        cx.error_spanned_by(
            lit,
            format!(
                "counter {what} `{name}` ends with `_total`, which prometheus-client appends to counters: write `\"{}\"`",
                name.trim_end_matches("_total")
            ),
        );
        return false;
    }
    true
}

/// Help text: `help = "..."` wins over the doc comment. Required, one line without control
/// characters (doc comment lines are joined with spaces), and without a final `.`.
fn check_help(cx: &Ctxt, field: &Field) -> Option<String> {
    let ident = field.ident;
    let parsed = field.metric.parsed;
    let (text, source): (String, TokenStream) = match &field.metric.help {
        Some(keyed) => {
            let lit = keyed.value.as_ref()?;
            (lit.value().trim().to_owned(), lit.to_token_stream())
        }
        None => match crate::attr::doc_text(field.attrs) {
            Some((text, sources)) => (text, doc_tokens(&sources)),
            None => {
                if parsed {
                    cx.error_spanned_by(
                        ident,
                        format!("metric field `{ident}` has no help text: add a doc comment (`/// What it measures`) or `#[metric(help = \"...\")]`"),
                    );
                }
                return None;
            }
        },
    };
    if text.is_empty() {
        cx.error_spanned_by(
            source,
            "help text cannot be empty: describe what the metric measures",
        );
        return None;
    }
    if let Some(c) = text.chars().find(|c| forbidden_in_help(*c)) {
        // Point at the doc line holding the character, not the last one.
        let source = match &field.metric.help {
            Some(_) => source,
            None => doc_attr_with(field.attrs, forbidden_in_help)
                .map_or(source, |a| a.to_token_stream()),
        };
        cx.error_spanned_by(
            source,
            format!(
                "help text of `{ident}` contains the control character {c:?}: `# HELP` is one line of text, so write the help on one line without control characters (a `\\` or `\"` is fine: the exposition escapes it)"
            ),
        );
        return None;
    }
    if text.ends_with('.') {
        cx.error_spanned_by(
            source,
            format!(
                "help text of `{ident}` ends with `.`, and prometheus-client appends one: remove the final `.`"
            ),
        );
        return None;
    }
    Some(text)
}

/// Control characters cannot be in a `# HELP` line; a tab is made a space at registration.
fn forbidden_in_help(c: char) -> bool {
    c.is_control() && c != '\t'
}

/// The first doc attribute whose text holds a character `pred` accepts.
fn doc_attr_with(attrs: &[Attribute], pred: fn(char) -> bool) -> Option<&Attribute> {
    attrs
        .iter()
        .filter(|a| a.path() == DOC)
        .find(|a| match &a.meta {
            syn::Meta::NameValue(nv) => matches!(
                &nv.value,
                syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(lit), .. })
                    if lit.value().chars().any(pred)
            ),
            _ => false,
        })
}

fn doc_tokens(sources: &[&Attribute]) -> TokenStream {
    // The last doc line is where a final `.` would be.
    sources
        .last()
        .map(|a| a.to_token_stream())
        .unwrap_or_default()
}

/// Every registered name (primary or alias, with its unit suffix) must be unique across the
/// struct. Fields under different `#[cfg]`s may share a name: only one of them exists.
fn check_unique_names(cx: &Ctxt, plans: &[MetricPlan]) {
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
fn check_sample_collisions(cx: &Ctxt, plans: &[MetricPlan]) {
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
