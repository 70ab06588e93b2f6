//! `#[metric(native(...))]`: native (sparse exponential) buckets of a histogram field, parsed
//! and checked into a [`NativeSpec`] that expands to a `NativeConfig` built in a `const`.
//!
//! `native` alone takes every default (bucket factor 1.1, i.e. schema 3); the keys are
//! client_golang's settings: `bucket_factor` or `schema`, `zero_threshold`, `max_buckets`,
//! `min_reset` (seconds) and `max_zero_threshold`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::meta::ParseNestedMeta;
use syn::{Expr, ExprLit, ExprUnary, Ident, Lit, UnOp};

use crate::attr::{self, Once};
use crate::ctxt::Ctxt;
use crate::symbol::*;

/// The finest and coarsest schemas Prometheus defines.
const MAX_SCHEMA: i8 = 8;
const MIN_SCHEMA: i8 = -4;

/// A checked `native(...)`.
#[derive(Clone)]
pub struct NativeSpec {
    pub schema: i8,
    pub zero_threshold: Option<f64>,
    pub max_buckets: Option<u32>,
    pub min_reset: Option<f64>,
    pub max_zero_threshold: Option<f64>,
}

const KEYS: [Symbol; 6] = [
    BUCKET_FACTOR,
    SCHEMA,
    ZERO_THRESHOLD,
    MAX_BUCKETS,
    MIN_RESET,
    MAX_ZERO_THRESHOLD,
];

fn example(symbol: Symbol) -> &'static str {
    match symbol {
        BUCKET_FACTOR => "bucket_factor = 1.1",
        SCHEMA => "schema = 3",
        ZERO_THRESHOLD => "zero_threshold = 1e-9",
        MAX_BUCKETS => "max_buckets = 160",
        MIN_RESET => "min_reset = 3600",
        _ => "max_zero_threshold = 0.001",
    }
}

/// Parses `native` or `native(...)`; `None` once a mistake is reported.
pub fn parse(cx: &Ctxt, meta: &ParseNestedMeta, key: &Ident) -> syn::Result<Option<NativeSpec>> {
    let mut spec = NativeSpec {
        schema: 3,
        zero_threshold: None,
        max_buckets: None,
        min_reset: None,
        max_zero_threshold: None,
    };
    if !meta.input.peek(syn::token::Paren) {
        if meta.input.is_empty() || meta.input.peek(syn::Token![,]) {
            return Ok(Some(spec));
        }
        cx.error_spanned_by(
            key,
            format!("`native` takes its settings in parentheses: write `native` for the defaults or e.g. `native({}, {})`", example(BUCKET_FACTOR), example(MAX_BUCKETS)),
        );
        attr::skip_value(meta.input)?;
        return Ok(None);
    }
    let mut broken = false;
    let mut resolution: Once<i8> = Once::new(NATIVE, SCHEMA);
    let mut zero_threshold = Once::new(NATIVE, ZERO_THRESHOLD);
    let mut max_buckets = Once::new(NATIVE, MAX_BUCKETS);
    let mut min_reset = Once::new(NATIVE, MIN_RESET);
    let mut max_zero_threshold = Once::new(NATIVE, MAX_ZERO_THRESHOLD);
    let names = KEYS.map(|k| k.as_str());
    meta.parse_nested_meta(|inner| {
        let symbol = attr::key_ident(&inner).and_then(|ident| {
            KEYS.iter()
                .copied()
                .find(|k| ident == *k)
                .map(|k| (ident, k))
        });
        let Some((inner_key, symbol)) = symbol else {
            let shown = attr::key_ident(&inner).map_or_else(|| "?".to_owned(), |i| i.to_string());
            cx.error_spanned_by(
                &inner.path,
                format!(
                    "unknown key `{shown}` in `native(...)`: {}",
                    crate::suggest::hint(&shown, &names)
                ),
            );
            broken = true;
            return attr::skip_value(inner.input);
        };
        let Some(expr) = attr::value_expr(cx, &inner, &inner_key, NATIVE, example(symbol))? else {
            broken = true;
            return Ok(());
        };
        match check(cx, &expr, &inner_key, symbol) {
            Some(Value::Schema(schema)) => {
                // `schema` and `bucket_factor` share one slot: both set the resolution.
                if resolution.is_set() {
                    cx.error_spanned_by(
                        &inner_key,
                        "`schema` and `bucket_factor` both set the resolution: keep one of them",
                    );
                    broken = true;
                } else {
                    resolution.set(cx, &inner_key, schema);
                }
            }
            Some(Value::Number(value)) if symbol == ZERO_THRESHOLD => {
                zero_threshold.set(cx, &inner_key, value)
            }
            Some(Value::Number(value)) if symbol == MIN_RESET => {
                min_reset.set(cx, &inner_key, value)
            }
            Some(Value::Number(value)) => max_zero_threshold.set(cx, &inner_key, value),
            Some(Value::Count(value)) => max_buckets.set(cx, &inner_key, value),
            None => broken = true,
        }
        Ok(())
    })?;
    if broken {
        return Ok(None);
    }
    if let Some(schema) = resolution.get() {
        spec.schema = schema.value;
    }
    spec.zero_threshold = zero_threshold.get().map(|k| k.value);
    spec.max_buckets = max_buckets.get().map(|k| k.value);
    spec.min_reset = min_reset.get().map(|k| k.value);
    spec.max_zero_threshold = max_zero_threshold.get().map(|k| k.value);
    Ok(Some(spec))
}

/// A checked value of one key.
enum Value {
    Schema(i8),
    Number(f64),
    Count(u32),
}

/// Checks the value of `symbol`, reporting a mistake on the value's tokens.
fn check(cx: &Ctxt, expr: &Expr, key: &Ident, symbol: Symbol) -> Option<Value> {
    let Some(number) = number(expr) else {
        cx.error_spanned_by(
            expr,
            format!(
                "`{key}` in `native(...)` expects a number: write `native({})`",
                example(symbol)
            ),
        );
        return None;
    };
    let fail = |rule: &str| {
        cx.error_spanned_by(
            expr,
            format!("`{key}` {rule}: write e.g. `native({})`", example(symbol)),
        );
        None
    };
    match symbol {
        BUCKET_FACTOR if number.is_finite() && number > 1.0 => {
            Some(Value::Schema(schema_for_factor(number)))
        }
        BUCKET_FACTOR => fail("must be a number greater than 1 (each bucket's upper bound is that many times its lower bound)"),
        SCHEMA if number.fract() == 0.0 && (f64::from(MIN_SCHEMA)..=f64::from(MAX_SCHEMA)).contains(&number) => {
            Some(Value::Schema(number as i8))
        }
        SCHEMA => fail("must be an integer from -4 (coarsest) to 8 (finest)"),
        MAX_BUCKETS if number.fract() == 0.0 && (1.0..=f64::from(u32::MAX)).contains(&number) => {
            Some(Value::Count(number as u32))
        }
        MAX_BUCKETS => fail("must be a whole number of at least 1"),
        MIN_RESET if number.is_finite() && number >= 0.0 => Some(Value::Number(number)),
        MIN_RESET => fail("is a number of seconds, 0 or more"),
        _ if number.is_finite() && number >= 0.0 => Some(Value::Number(number)),
        _ => fail("must be a finite number, 0 or more"),
    }
}

/// An integer or float literal, possibly negated.
fn number(expr: &Expr) -> Option<f64> {
    match attr::strip(expr) {
        Expr::Lit(ExprLit {
            lit: Lit::Float(lit),
            ..
        }) => lit.base10_parse().ok(),
        Expr::Lit(ExprLit {
            lit: Lit::Int(lit), ..
        }) => lit.base10_parse::<i64>().ok().map(|v| v as f64),
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => number(expr).map(|v| -v),
        _ => None,
    }
}

/// The schema whose factor `2^(2^-schema)` is the largest one `<= factor` (client_golang's
/// `pickSchema`), as the runtime's `NativeConfig::schema_for_factor` computes it.
fn schema_for_factor(factor: f64) -> i8 {
    (MIN_SCHEMA..=MAX_SCHEMA)
        .find(|&schema| (-f64::from(schema)).exp2().exp2() <= factor)
        .unwrap_or(MAX_SCHEMA)
}

impl NativeSpec {
    /// `NativeConfig::with_schema(..)` and a builder call per setting given.
    pub fn tokens(&self, krate: &TokenStream) -> TokenStream {
        let schema = self.schema;
        let mut config = quote!(#krate::histogram::NativeConfig::with_schema(#schema));
        if let Some(value) = self.zero_threshold {
            config = quote!(#config.zero_threshold(#value));
        }
        if let Some(value) = self.max_buckets {
            config = quote!(#config.max_buckets(#value));
        }
        if let Some(seconds) = self.min_reset {
            // Checked finite and >= 0 while parsing; whole seconds and nanoseconds for
            // `Duration::new`, which a `const` can call.
            let whole = seconds.trunc().min(u64::MAX as f64) as u64;
            let nanos = ((seconds.fract() * 1e9).round() as u32).min(999_999_999);
            config = quote!(#config.min_reset(#krate::__private::std::time::Duration::new(#whole, #nanos)));
        }
        if let Some(value) = self.max_zero_threshold {
            config = quote!(#config.max_zero_threshold(#value));
        }
        config
    }
}
