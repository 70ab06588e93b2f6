//! The checks of one metric field, key by key: each key is checked on its own and all of them
//! are checked, so one compile reports every mistake of the field.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::LitStr;

use super::{Checked, Invalid, MetricPlan};
use crate::ast::Field;
use crate::attr::Keyed;
use crate::buckets::BucketSpec;
use crate::ctxt::Ctxt;
use crate::names;
use crate::symbol::{ALIAS, DEPRECATED_IN, NAME};
use crate::ty::{Axis, Leaf};

/// One field's plan, when every key checks out. The keys are checked in the order of the
/// messages the user sees.
pub fn check<'a>(cx: &Ctxt, field: &'a Field<'a>) -> Checked<MetricPlan<'a>> {
    let attrs = &field.metric;
    if !attrs.present {
        return Err(Invalid);
    }
    let family = field.family.as_ref();
    // Both `None` when the spelling does not show them: the generated compile-time checks
    // then compare the attributes with `<M as FamilyMember>::KIND` and `::AXIS`.
    let leaf = family.and_then(|f| f.leaf);
    let axis = family.and_then(|f| f.axis.as_ref());

    let mut missing = Missing::default();
    let name = given_name(field, &mut missing);
    let unit = check_unit(cx, field, leaf);
    let name = name.and_then(|name| check_metric_name(cx, name, leaf, &unit));
    let help = check_help(cx, field);
    let computed = check_computed(cx, field);
    let native = check_native(cx, field, leaf);
    let buckets = check_buckets(cx, field, leaf, &mut missing);
    let axis_keys = check_axis_keys(cx, field, axis, &mut missing);
    missing.report(cx, field);
    let positions = check_positions(cx, field, axis);
    let max_series = check_max_series(cx, field, axis);
    let max_label_sets = value_of(&attrs.max_label_sets);
    let idle_timeout = check_idle_timeout(cx, field, axis);
    let aliases = check_aliases(cx, field, leaf);

    let family = family
        .filter(|f| !f.broken && attrs.parsed)
        .ok_or(Invalid)?;
    Ok(MetricPlan {
        field,
        family,
        name: name?,
        help: help?,
        computed: computed?,
        unit: unit?,
        buckets: buckets?,
        native: native?,
        axis_keys: axis_keys?,
        positions: positions?,
        max_series: max_series?,
        max_label_sets: max_label_sets?,
        idle_timeout: idle_timeout?,
        aliases: aliases?,
    })
}

/// The value of an optional key: absent is fine, a key without a usable value (reported while
/// parsing) is not.
fn value_of<T: Clone>(keyed: &Option<Keyed<Option<T>>>) -> Checked<Option<T>> {
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
fn given_name<'a>(field: &'a Field, missing: &mut Missing) -> Checked<&'a LitStr> {
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
fn check_unit(cx: &Ctxt, field: &Field, leaf: Option<Leaf>) -> Checked<Option<String>> {
    let Some(lit) = value_of(&field.metric.unit)? else {
        return Ok(None);
    };
    if let Some(leaf) = leaf.filter(|leaf| !leaf.allows_unit()) {
        cx.error_spanned_by(
            &lit,
            format!(
                "`unit` does not apply to field `{}`: OpenMetrics gives {} no unit (Python's parser refuses one); remove `unit`, or put the unit in a label",
                field.ident,
                leaf.with_article()
            ),
        );
        return Err(Invalid);
    }
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
    unit: &Checked<Option<String>>,
) -> Checked<LitStr> {
    let mut checked = check_name(cx, name, leaf, "metric name");
    if leaf == Some(Leaf::StateSet) && name.value().contains(':') {
        cx.error_spanned_by(
            name,
            format!(
                "a state set's name is also the label key of its states, and a label key cannot contain `:`: write `\"{}\"`",
                name.value().replace(':', "_")
            ),
        );
        checked = Err(Invalid);
    }
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
            checked = Err(Invalid);
        }
    }
    checked.map(|()| name.clone())
}

/// `buckets = ...`: required on a histogram, refused on a counter or gauge. A member whose
/// kind the spelling does not show is checked at compile time instead.
fn check_buckets(
    cx: &Ctxt,
    field: &Field,
    leaf: Option<Leaf>,
    missing: &mut Missing,
) -> Checked<Option<BucketSpec>> {
    let attrs = &field.metric;
    let ident = field.ident;
    match (&attrs.buckets, leaf) {
        (Some(keyed), Some(other)) if !other.has_buckets() => {
            cx.error_spanned_by(
                &keyed.key,
                format!(
                    "`buckets` only applies to histograms and gauge histograms, and field `{ident}` is {}: remove `buckets`",
                    other.with_article()
                ),
            );
            Err(Invalid)
        }
        // Native buckets alone are a complete histogram.
        (None, Some(Leaf::Histogram)) if attrs.native.is_some() => Ok(None),
        (None, Some(leaf)) if leaf.has_buckets() => {
            if attrs.parsed {
                missing.add(
                    "buckets = [0.1, 0.5, 1.0]".to_owned(),
                    ident.to_token_stream(),
                    format!(
                        "{} `{ident}` needs buckets: add e.g. `#[metric(buckets = [0.1, 0.5, 1.0])]` or `buckets = exponential(start = 0.001, factor = 2.0, count = 16)`",
                        leaf.as_str()
                    ),
                );
            }
            Err(Invalid)
        }
        (buckets, _) => value_of(buckets),
    }
}

/// `native(...)`: refused on a counter or gauge. A member whose kind the spelling does not
/// show is checked at compile time instead.
fn check_native(
    cx: &Ctxt,
    field: &Field,
    leaf: Option<Leaf>,
) -> Checked<Option<crate::native::NativeSpec>> {
    let ident = field.ident;
    match (&field.metric.native, leaf) {
        (Some(keyed), Some(other)) if other != Leaf::Histogram => {
            cx.error_spanned_by(
                &keyed.key,
                format!(
                    "`native` (native histogram buckets) only applies to histograms, and field `{ident}` is {}: remove `native`",
                    other.with_article()
                ),
            );
            Err(Invalid)
        }
        (native, _) => value_of(native),
    }
}

/// `positions = N`: only on a member with a position axis.
fn check_positions(cx: &Ctxt, field: &Field, axis: Option<&Axis>) -> Checked<Option<TokenStream>> {
    let applies = axis.is_none_or(Axis::has_position);
    value_where(cx, &field.metric.positions, applies, || {
        format!("`positions` only applies to a position axis (`ByPosition<_>`, or `Position` in `ByLabels<(..), _>`), and field `{}` has none: remove `positions`", field.ident)
    })
}

/// `max_series = N`: only on a member with an axis (a plain member has one series per label
/// set; `max_label_sets` limits those). A value that did not parse was reported already.
fn check_max_series(cx: &Ctxt, field: &Field, axis: Option<&Axis>) -> Checked<Option<TokenStream>> {
    let max_series = &field.metric.max_series;
    let parsed = max_series.as_ref().is_some_and(|k| k.value.is_some());
    let applies = !(parsed && matches!(axis, Some(Axis::None)));
    value_where(cx, max_series, applies, || {
        format!("`max_series` limits the series an axis creates per label set, and field `{}` has no axis: to limit how many label sets the family holds write `max_label_sets = N`", field.ident)
    })
}

/// `idle_timeout = "..."`: only on a member with a `Dynamic` axis, whose series come and go
/// with the data (a fixed axis's series are all resolved up front, and stay).
fn check_idle_timeout(cx: &Ctxt, field: &Field, axis: Option<&Axis>) -> Checked<Option<u64>> {
    let applies = axis.is_none_or(|axis| matches!(axis, Axis::Dynamic(_)));
    value_where(cx, &field.metric.idle_timeout, applies, || {
        format!("`idle_timeout` expires the idle series of a `Dynamic<Labels, _>` axis, and field `{}` has none: its series are resolved with the common labels and stay until `remove`; remove `idle_timeout`, or make the field `Family<_, Dynamic<Labels, _>>`", field.ident)
    })
}

/// [`value_of`] for a key that only some members take: given where it does not `apply`, it is
/// reported at the key.
fn value_where<T: Clone>(
    cx: &Ctxt,
    keyed: &Option<Keyed<Option<T>>>,
    applies: bool,
    message: impl FnOnce() -> String,
) -> Checked<Option<T>> {
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
fn check_aliases(cx: &Ctxt, field: &Field, leaf: Option<Leaf>) -> Checked<Vec<(LitStr, LitStr)>> {
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
        ok &= check_name(cx, alias_name, leaf, "alias name").is_ok();
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

/// `label = ...`: valid, distinct keys, as many as the member's spelled axes need. When the spelling does not show the axis, any number is
/// accepted here and checked against `<M as FamilyMember>::AXIS` at compile time.
fn check_axis_keys(
    cx: &Ctxt,
    field: &Field,
    axis: Option<&Axis>,
    missing: &mut Missing,
) -> Checked<Vec<LitStr>> {
    let ident = field.ident;
    let attrs = &field.metric;
    let given = match &attrs.label {
        Some(keyed) => Some((&keyed.key, keyed.value.as_ref().ok_or(Invalid)?)),
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
    let keys = || {
        ok.then(|| given.map(|(_, keys)| keys.clone()).unwrap_or_default())
            .ok_or(Invalid)
    };
    let Some(axis) = axis else {
        return keys();
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
            return Err(Invalid);
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
            return Err(Invalid);
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
            return Err(Invalid);
        }
        _ => {}
    }
    keys()
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
fn check_name(cx: &Ctxt, lit: &LitStr, leaf: Option<Leaf>, what: &str) -> Checked<()> {
    let name = lit.value();
    if let Err(message) = names::check_metric_name(&name) {
        cx.error_spanned_by(lit, format!("invalid {what}: {message}"));
        return Err(Invalid);
    }
    if leaf == Some(Leaf::Info) && name.ends_with("_info") {
        cx.error_spanned_by(
            lit,
            format!(
                "info {what} `{name}` ends with `_info`, which prometheus-client appends to infos: write `\"{}\"`",
                name.trim_end_matches("_info")
            ),
        );
        return Err(Invalid);
    }
    if leaf == Some(Leaf::Counter) && name.ends_with("_total") {
        cx.error_spanned_by(
            lit,
            format!(
                "counter {what} `{name}` ends with `_total`, which prometheus-client appends to counters: write `\"{}\"`",
                name.trim_end_matches("_total")
            ),
        );
        return Err(Invalid);
    }
    Ok(())
}

/// Help text: `help = "..."` wins over the doc comment. Required, one line without control
/// characters (doc comment lines are joined with spaces), and without a final `.`.
fn check_help(cx: &Ctxt, field: &Field) -> Checked<String> {
    let ident = field.ident;
    let doc = field.doc();
    let (text, source): (String, TokenStream) = match (&field.metric.help, &doc) {
        (Some(keyed), _) => {
            let lit = keyed.value.as_ref().ok_or(Invalid)?;
            (lit.value().trim().to_owned(), lit.to_token_stream())
        }
        (None, Some(doc)) => (doc.text.clone(), doc.last_line().to_token_stream()),
        (None, None) => {
            if field.metric.parsed {
                cx.error_spanned_by(
                    ident,
                    format!("metric field `{ident}` has no help text: add a doc comment (`/// What it measures`) or `#[metric(help = \"...\")]`"),
                );
            }
            return Err(Invalid);
        }
    };
    if text.is_empty() {
        cx.error_spanned_by(
            source,
            "help text cannot be empty: describe what the metric measures",
        );
        return Err(Invalid);
    }
    if let Some(c) = text.chars().find(|c| forbidden_in_help(*c)) {
        // Point at the doc line holding the character, not the last one.
        let line = match (&field.metric.help, &doc) {
            (None, Some(doc)) => doc.line_with(forbidden_in_help),
            _ => None,
        };
        cx.error_spanned_by(
            line.map_or(source, |a| a.to_token_stream()),
            format!(
                "help text of `{ident}` contains the control character {c:?}: `# HELP` is one line of text, so write the help on one line without control characters (a `\\` or `\"` is fine: the exposition escapes it)"
            ),
        );
        return Err(Invalid);
    }
    if text.ends_with('.') {
        cx.error_spanned_by(
            source,
            format!(
                "help text of `{ident}` ends with `.`, and prometheus-client appends one: remove the final `.`"
            ),
        );
        return Err(Invalid);
    }
    Ok(text)
}

/// The doc comment's `# Computed` section: absent, or some text under the heading.
fn check_computed(cx: &Ctxt, field: &Field) -> Checked<Option<String>> {
    match (field.computed(), field.computed_heading()) {
        (Some(doc), _) => Ok(Some(doc.text)),
        (None, None) => Ok(None),
        (None, Some(heading)) => {
            cx.error_spanned_by(
                heading,
                format!(
                    "the `# Computed` doc section of `{}` is empty: write how the value is computed under the heading (it goes into the descriptor and the catalogue), or remove the heading",
                    field.ident
                ),
            );
            Err(Invalid)
        }
    }
}

/// Control characters cannot be in a `# HELP` line; a tab is made a space at registration.
fn forbidden_in_help(c: char) -> bool {
    c.is_control() && c != '\t'
}
