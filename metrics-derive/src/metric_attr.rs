//! `#[metric_handles(...)]` and `#[metric(...)]`: parsed into plain values with their spans.
//! Only local checks happen here (a value's syntax and literal ranges); everything that needs
//! the field's type or the other fields is in `valid/`.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{Attribute, Expr, ExprLit, Ident, Lit, LitStr, Path, Token, Type};

use crate::attr::{self, Keyed, Once};
use crate::buckets::{self, BucketSpec};
use crate::ctxt::Ctxt;
use crate::native::NativeSpec;
use crate::symbol::*;

/// `#[metric_handles(handles = Ident, labels = Type, crate = path)]`.
#[derive(Default)]
pub struct ContainerAttrs {
    pub handles: Option<Ident>,
    pub labels: Option<Type>,
    pub krate: Option<Path>,
    /// Whether every `#[metric_handles]` attribute could be parsed.
    pub parsed: bool,
}

pub fn parse_container(cx: &Ctxt, attrs: &[Attribute]) -> ContainerAttrs {
    let attrs = &attr::own_attrs(cx, attrs, METRIC_HANDLES, METRIC, "the struct");
    let mut handles = Once::new(METRIC_HANDLES, HANDLES);
    let mut labels = Once::new(METRIC_HANDLES, LABELS);
    let mut krate = Once::new(METRIC_HANDLES, CRATE);
    let parsed = attr::parse_attrs(
        cx,
        attrs,
        METRIC_HANDLES,
        &[HANDLES, LABELS, CRATE],
        |meta, key, symbol| {
            if !meta.input.peek(Token![=]) {
                let example = if symbol == HANDLES {
                    "handles = SchedulerHandles"
                } else if symbol == LABELS {
                    "labels = EngineLabels"
                } else {
                    "crate = ::metric_handles"
                };
                cx.error_spanned_by(
                    key,
                    format!("`{key}` needs a value: write `#[metric_handles({example})]`"),
                );
                return attr::skip_value(meta.input);
            }
            let input = meta.value()?;
            if input.peek(LitStr) {
                let lit: LitStr = input.parse()?;
                cx.error_spanned_by(
                    &lit,
                    format!(
                        "`{key}` expects a {} without quotes: write `{key} = {}`",
                        if symbol == CRATE { "path" } else { "type name" },
                        lit.value()
                    ),
                );
                // Carry on with what the quotes hold, so the stubs use the intended type and
                // the user's own code reports nothing more.
                if symbol == HANDLES {
                    if let Ok(ident) = lit.parse::<Ident>() {
                        handles.set(cx, key, ident);
                    }
                } else if symbol == LABELS {
                    if let Ok(ty) = lit.parse::<Type>() {
                        labels.set(cx, key, ty);
                    }
                } else if let Ok(path) = lit.parse_with(Path::parse_mod_style) {
                    krate.set(cx, key, path);
                }
                return Ok(());
            }
            if symbol == HANDLES {
                handles.set(cx, key, input.parse::<Ident>()?);
            } else if symbol == LABELS {
                labels.set(cx, key, input.parse::<Type>()?);
            } else {
                krate.set(cx, key, input.call(Path::parse_mod_style)?);
            }
            Ok(())
        },
    );
    ContainerAttrs {
        handles: handles.get().map(|k| k.value),
        labels: labels.get().map(|k| k.value),
        krate: krate.get().map(|k| k.value),
        parsed,
    }
}

/// One `alias(name = "...", deprecated_in = "...")`.
pub struct AliasAttr {
    pub key: Ident,
    /// Whether something in it was already reported (then missing keys are not).
    pub broken: bool,
    pub name: Option<LitStr>,
    pub deprecated_in: Option<LitStr>,
}

/// `#[metric(...)]` of one field.
#[derive(Default)]
pub struct FieldAttrs {
    /// Whether the field has any `#[metric]` attribute.
    pub present: bool,
    /// Whether every `#[metric]` attribute was read completely (no syntax error, no unknown
    /// key); when not, "missing key" errors are not reported, since the key may be in the part
    /// that did not parse or be the misspelt one.
    pub parsed: bool,
    pub name: Option<Keyed<Option<LitStr>>>,
    pub help: Option<Keyed<Option<LitStr>>>,
    pub unit: Option<Keyed<Option<LitStr>>>,
    pub buckets: Option<Keyed<Option<BucketSpec>>>,
    /// `native` or `native(...)`: native buckets beside (or instead of) `buckets`.
    pub native: Option<Keyed<Option<NativeSpec>>>,
    /// `label = "key"` or `label = ["a", "b"]`: one key per fixed axis.
    pub label: Option<Keyed<Option<Vec<LitStr>>>>,
    pub positions: Option<Keyed<Option<TokenStream>>>,
    pub max_series: Option<Keyed<Option<TokenStream>>>,
    pub max_label_sets: Option<Keyed<Option<TokenStream>>>,
    /// `idle_timeout = "5m"`, in milliseconds (a `Dynamic` axis's series expire when idle).
    pub idle_timeout: Option<Keyed<Option<u64>>>,
    pub aliases: Vec<AliasAttr>,
    pub skip: Option<Ident>,
}

const FIELD_KEYS: &[Symbol] = &[
    NAME,
    HELP,
    UNIT,
    BUCKETS,
    NATIVE,
    LABEL,
    POSITIONS,
    MAX_SERIES,
    MAX_LABEL_SETS,
    IDLE_TIMEOUT,
    ALIAS,
    SKIP,
];

fn example(symbol: Symbol) -> &'static str {
    match symbol {
        NAME => "name = \"vllm:num_requests_running\"",
        HELP => "help = \"Number of requests in model execution batches\"",
        UNIT => "unit = \"seconds\"",
        BUCKETS => "buckets = [0.1, 0.5, 1.0]",
        LABEL => "label = \"finished_reason\"",
        POSITIONS => "positions = 3",
        MAX_SERIES => "max_series = 64",
        MAX_LABEL_SETS => "max_label_sets = 64",
        IDLE_TIMEOUT => "idle_timeout = \"5m\"",
        _ => "...",
    }
}

pub fn parse_field(cx: &Ctxt, attrs: &[Attribute]) -> FieldAttrs {
    let attrs = &attr::own_attrs(cx, attrs, METRIC, METRIC_HANDLES, "a field");
    let present = attrs.iter().any(|a| a.path() == METRIC);
    let mut name = Once::new(METRIC, NAME);
    let mut help = Once::new(METRIC, HELP);
    let mut unit = Once::new(METRIC, UNIT);
    let mut bucket_spec = Once::new(METRIC, BUCKETS);
    let mut native = Once::new(METRIC, NATIVE);
    let mut label = Once::new(METRIC, LABEL);
    let mut positions = Once::new(METRIC, POSITIONS);
    let mut max_series = Once::new(METRIC, MAX_SERIES);
    let mut max_label_sets = Once::new(METRIC, MAX_LABEL_SETS);
    let mut idle_timeout = Once::new(METRIC, IDLE_TIMEOUT);
    let mut skip = Once::new(METRIC, SKIP);
    let mut aliases = Vec::new();
    let parsed = attr::parse_attrs(cx, attrs, METRIC, FIELD_KEYS, |meta, key, symbol| {
        if symbol == SKIP {
            skip.set(cx, key, ());
            return attr::flag(cx, meta, key, METRIC);
        }
        if symbol == ALIAS {
            aliases.push(parse_alias(cx, meta, key)?);
            return Ok(());
        }
        if symbol == NATIVE {
            let spec = crate::native::parse(cx, meta, key)?;
            native.set(cx, key, spec);
            return Ok(());
        }
        // A key without a value is recorded as given-but-invalid, so it is not also reported
        // as missing.
        let expr = attr::value_expr(cx, meta, key, METRIC, example(symbol))?;
        let expr = expr.as_ref();
        let string = |expr: Option<&Expr>| attr::lit_str(cx, expr?, key, METRIC, example(symbol));
        if symbol == NAME {
            name.set(cx, key, string(expr));
        } else if symbol == HELP {
            help.set(cx, key, string(expr));
        } else if symbol == UNIT {
            unit.set(cx, key, string(expr));
        } else if symbol == LABEL {
            label.set(cx, key, expr.and_then(|e| label_keys(cx, e, key)));
        } else if symbol == BUCKETS {
            bucket_spec.set(cx, key, expr.and_then(|e| buckets::parse(cx, e)));
        } else if symbol == POSITIONS {
            positions.set(cx, key, expr.and_then(|e| count(cx, e, key, 0)));
        } else if symbol == MAX_SERIES {
            max_series.set(cx, key, expr.and_then(|e| count(cx, e, key, 1)));
        } else if symbol == IDLE_TIMEOUT {
            let millis = string(expr).and_then(|lit| {
                crate::duration::parse_millis(&lit.value())
                    .map_err(|message| cx.error_spanned_by(&lit, message))
                    .ok()
            });
            idle_timeout.set(cx, key, millis);
        } else {
            max_label_sets.set(cx, key, expr.and_then(|e| count(cx, e, key, 1)));
        }
        Ok(())
    });
    FieldAttrs {
        present,
        parsed,
        name: name.get(),
        help: help.get(),
        unit: unit.get(),
        buckets: bucket_spec.get(),
        native: native.get(),
        label: label.get(),
        positions: positions.get(),
        max_series: max_series.get(),
        max_label_sets: max_label_sets.get(),
        idle_timeout: idle_timeout.get(),
        aliases,
        skip: skip.get().map(|k| k.key),
    }
}

/// `label = "key"` or, for a grid of several axes, `label = ["a", "b"]`.
fn label_keys(cx: &Ctxt, expr: &Expr, key: &Ident) -> Option<Vec<LitStr>> {
    const WRITE: &str = "write `label = \"device\"` for one axis, `label = [\"method\", \"status\"]` for a `ByLabels` grid";
    match attr::strip(expr) {
        Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        }) => Some(vec![lit.clone()]),
        Expr::Array(array) if !array.elems.is_empty() => {
            let mut keys = Vec::new();
            for element in &array.elems {
                match attr::strip(element) {
                    Expr::Lit(ExprLit {
                        lit: Lit::Str(lit), ..
                    }) => keys.push(lit.clone()),
                    other => {
                        cx.error_spanned_by(
                            other,
                            format!("`{key}` lists label keys as string literals: {WRITE}"),
                        );
                        return None;
                    }
                }
            }
            Some(keys)
        }
        other => {
            cx.error_spanned_by(
                other,
                format!("`{key}` expects a string literal or a list of them: {WRITE}"),
            );
            None
        }
    }
}

/// `positions = N` / `max_series = N`: a `usize` literal of at least `min`, or a path to a
/// constant (checked by the compiler's type checker).
fn count(cx: &Ctxt, expr: &Expr, key: &Ident, min: usize) -> Option<TokenStream> {
    match attr::strip(expr) {
        Expr::Lit(ExprLit {
            lit: Lit::Int(lit), ..
        }) => match lit.base10_parse::<usize>() {
            Ok(value) if value >= min => {
                let literal = proc_macro2::Literal::usize_unsuffixed(value);
                Some(quote::quote_spanned!(lit.span()=> #literal))
            }
            _ => {
                cx.error_spanned_by(
                    lit,
                    format!("`{key}` must be an integer of at least {min}: e.g. `{key} = 64`"),
                );
                None
            }
        },
        Expr::Path(path) if path.qself.is_none() => Some(path.to_token_stream()),
        other => {
            cx.error_spanned_by(
                other,
                format!("`{key}` expects an integer literal or a constant: e.g. `{key} = 64`"),
            );
            None
        }
    }
}

fn parse_alias(
    cx: &Ctxt,
    meta: &syn::meta::ParseNestedMeta,
    key: &Ident,
) -> syn::Result<AliasAttr> {
    const WRITE: &str = "write `alias(name = \"old:name\", deprecated_in = \"0.10\")`";
    const EXAMPLE: &str = "name = \"old:name\", deprecated_in = \"0.10\"";
    let mut alias = AliasAttr {
        key: key.clone(),
        broken: false,
        name: None,
        deprecated_in: None,
    };
    if !meta.input.peek(syn::token::Paren) {
        cx.error_spanned_by(
            key,
            format!("`alias` takes arguments in parentheses: {WRITE}"),
        );
        attr::skip_value(meta.input)?;
        alias.broken = true;
        return Ok(alias);
    }
    let mut name = Once::new(ALIAS, NAME);
    let mut deprecated_in = Once::new(ALIAS, DEPRECATED_IN);
    let names = [NAME.as_str(), DEPRECATED_IN.as_str()];
    let mut broken = false;
    meta.parse_nested_meta(|inner| {
        let Some(inner_key) = attr::key_ident(&inner) else {
            cx.error_spanned_by(&inner.path, format!("unknown key in `alias(...)`: {WRITE}"));
            broken = true;
            return attr::skip_value(inner.input);
        };
        let slot = if inner_key == NAME {
            &mut name
        } else if inner_key == DEPRECATED_IN {
            &mut deprecated_in
        } else {
            cx.error_spanned_by(
                &inner_key,
                format!(
                    "unknown key `{inner_key}` in `alias(...)`: {}",
                    crate::suggest::hint(&inner_key.to_string(), &names)
                ),
            );
            broken = true;
            return attr::skip_value(inner.input);
        };
        let expr = attr::value_expr(cx, &inner, &inner_key, ALIAS, EXAMPLE)?;
        match expr.and_then(|expr| attr::lit_str(cx, &expr, &inner_key, ALIAS, EXAMPLE)) {
            Some(lit) => slot.set(cx, &inner_key, lit),
            None => broken = true,
        }
        Ok(())
    })?;
    alias.broken = broken;
    alias.name = name.get().map(|k| k.value);
    alias.deprecated_in = deprecated_in.get().map(|k| k.value);
    Ok(alias)
}
