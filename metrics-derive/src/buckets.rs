//! `buckets = ...`: parsing and checking the four bucket forms at compile time.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Ident, Lit, Path, UnOp};

use crate::attr::{known_symbol, plain_ident, strip};
use crate::ctxt::Ctxt;
use crate::suggest;
use crate::symbol::{Symbol, COUNT, EXPONENTIAL, FACTOR, LINEAR, MAX, ONE_TWO_FIVE, START, WIDTH};

/// A bucket specification that passed every check the macro can make.
#[derive(Clone, Debug)]
pub enum BucketSpec {
    /// `[0.1, 0.5, 1]`: finite, strictly increasing, non-empty.
    Explicit(Vec<f64>),
    /// `SOME_CONST`: checked at compile time by a generated `const` assertion.
    Const(Path),
    /// `exponential(...)`, `linear(...)` or `one_two_five(...)`, its arguments in the
    /// generator's order. Literal arguments are checked here, with a span; constants, and the
    /// bounds the generator makes, by a generated `const` assertion that walks them with the
    /// runtime's own generator arithmetic (so the macro keeps no second copy of it).
    Generator {
        generator: Symbol,
        args: Vec<(Symbol, GeneratorArg)>,
        /// The generator call, where a failed assertion on literal arguments points.
        span: Span,
    },
}

/// One generator argument: a literal (checked here) or a constant's path.
#[derive(Clone, Debug)]
pub enum GeneratorArg {
    Literal(f64),
    Const(Path),
}

const GENERATORS: &[Symbol] = &[EXPONENTIAL, LINEAR, ONE_TWO_FIVE];

/// What to write, for messages.
const FORMS: &str = "`buckets = [0.1, 0.5, 1.0]`, `buckets = SOME_CONST`, \
`buckets = exponential(start = 1.0, factor = 2.0, count = 10)`, \
`buckets = linear(start = 0.0, width = 1.0, count = 5)` or `buckets = one_two_five(max = 1000)`";

/// The most bounds a histogram may have (the runtime's `buckets::MAX_BUCKETS`).
const MAX_BUCKETS: usize = 256;

const COUNT_RULE: &str = "an integer from 1 to 256";

/// Parses and checks a bucket specification; reports every problem found.
pub fn parse(cx: &Ctxt, expr: &Expr) -> Option<BucketSpec> {
    match strip(expr) {
        Expr::Array(array) => {
            if array.elems.is_empty() {
                cx.error_spanned_by(
                    array,
                    "`buckets = []` has no bounds: list at least one, e.g. `buckets = [0.1, 1.0]`",
                );
                return None;
            }
            if array.elems.len() > MAX_BUCKETS {
                cx.error_spanned_by(
                    array,
                    format!(
                        "`buckets` lists {} bounds, more than the {MAX_BUCKETS} a histogram may have: each bound is a series in every scrape; use fewer, wider buckets",
                        array.elems.len()
                    ),
                );
                return None;
            }
            let mut bounds = Vec::new();
            let mut ok = true;
            let mut previous: Option<f64> = None;
            for element in &array.elems {
                let Some(value) = number(cx, element, "a bucket bound") else {
                    ok = false;
                    continue;
                };
                if !value.is_finite() {
                    cx.error_spanned_by(
                        element,
                        "bucket bound is not finite: `+Inf` is always added, list only finite bounds",
                    );
                    ok = false;
                    continue;
                }
                if value < 0.0 {
                    cx.error_spanned_by(
                        element,
                        format!("bucket bound `{value:?}` is negative: histograms here always expose `_sum`, which OpenMetrics forbids beside negative buckets; measure a non-negative quantity (a size, a duration)"),
                    );
                    ok = false;
                    continue;
                }
                if let Some(previous) = previous {
                    if value <= previous {
                        cx.error_spanned_by(
                            element,
                            format!(
                                "bucket bounds must be strictly increasing: `{value:?}` follows `{previous:?}`"
                            ),
                        );
                        ok = false;
                    }
                }
                previous = Some(value);
                bounds.push(value);
            }
            ok.then_some(BucketSpec::Explicit(bounds))
        }
        Expr::Path(path) if path.qself.is_none() => Some(BucketSpec::Const(path.path.clone())),
        Expr::Call(call) => generator(cx, call),
        other => {
            cx.error_spanned_by(other, format!("unsupported `buckets` value: write {FORMS}"));
            None
        }
    }
}

fn generator(cx: &Ctxt, call: &syn::ExprCall) -> Option<BucketSpec> {
    let Some(func) = plain_ident(&call.func) else {
        let names: Vec<&str> = GENERATORS.iter().map(|s| s.as_str()).collect();
        cx.error_spanned_by(
            &call.func,
            format!(
                "unknown bucket generator: expected one of {}",
                suggest::list(&names)
            ),
        );
        return None;
    };
    let generator = known_symbol(
        cx,
        &func,
        GENERATORS,
        format_args!("unknown bucket generator `{func}`"),
    )?;
    let expected: &[Symbol] = if generator == EXPONENTIAL {
        &[START, FACTOR, COUNT]
    } else if generator == LINEAR {
        &[START, WIDTH, COUNT]
    } else {
        &[MAX]
    };
    let expected_names: Vec<&str> = expected.iter().map(|s| s.as_str()).collect();
    if call
        .args
        .iter()
        .any(|arg| !matches!(strip(arg), Expr::Assign(_)))
    {
        cx.error_spanned_by(
            &call.args,
            format!(
                "`{func}(...)` takes named arguments: write `{func}({})`",
                named_form(call, expected).unwrap_or_else(|| example_args(generator).to_owned())
            ),
        );
        return None;
    }
    let mut values: Vec<(Symbol, Ident, f64)> = Vec::new();
    let mut constants: Vec<(Symbol, Path)> = Vec::new();
    let mut ok = true;
    for arg in &call.args {
        let Expr::Assign(assign) = strip(arg) else {
            continue;
        };
        let Some(key) = plain_ident(&assign.left) else {
            cx.error_spanned_by(
                &assign.left,
                format!("expected one of {}", suggest::list(&expected_names)),
            );
            ok = false;
            continue;
        };
        let Some(symbol) = known_symbol(
            cx,
            &key,
            expected,
            format_args!("unknown argument `{key}` of `{func}(...)`"),
        ) else {
            ok = false;
            continue;
        };
        if values.iter().any(|(s, _, _)| *s == symbol)
            || constants.iter().any(|(s, _)| *s == symbol)
        {
            cx.error_spanned_by(&key, format!("duplicate argument `{key}` of `{func}(...)`"));
            ok = false;
            continue;
        }
        if let Expr::Path(path) = strip(&assign.right) {
            if path.qself.is_none() {
                constants.push((symbol, path.path.clone()));
                continue;
            }
        }
        if symbol == COUNT && !is_int_literal(&assign.right) {
            cx.error_spanned_by(
                &assign.right,
                format!(
                    "`count` is how many bounds `{func}(...)` makes: an integer literal such as `16` or an integer constant, not `{}`",
                    quote::ToTokens::to_token_stream(&assign.right)
                ),
            );
            ok = false;
            continue;
        }
        match number(cx, &assign.right, &format!("`{key}`")) {
            Some(value) => values.push((symbol, key, value)),
            None => ok = false,
        }
    }
    for symbol in expected {
        let given = values.iter().any(|(s, _, _)| s == symbol)
            || constants.iter().any(|(s, _)| s == symbol);
        if !given && ok {
            cx.error_spanned_by(
                call,
                format!(
                    "`{func}(...)` needs `{symbol} = ...`: write `{func}({})`",
                    example_args(generator)
                ),
            );
            ok = false;
        }
    }
    if !ok {
        return None;
    }
    let get = |symbol: Symbol| {
        values
            .iter()
            .find(|(s, _, _)| *s == symbol)
            .map(|(_, key, value)| (key.clone(), *value))
    };
    let check = |symbol: Symbol| -> Option<f64> {
        let (key, value) = get(symbol)?;
        let (valid, rule) = argument_rule(generator, symbol);
        if valid(value) {
            Some(value)
        } else {
            cx.error_spanned_by(&key, format!("`{func}(...)`: `{symbol}` must be {rule}"));
            None
        }
    };
    let mut args = Vec::new();
    let mut valid = true;
    for symbol in expected {
        let constant = constants.iter().find(|(s, _)| s == symbol);
        match constant {
            Some((_, path)) => args.push((*symbol, GeneratorArg::Const(path.clone()))),
            None => match check(*symbol) {
                Some(value) => args.push((*symbol, GeneratorArg::Literal(value))),
                None => valid = false,
            },
        }
    }
    valid.then(|| BucketSpec::Generator {
        generator,
        args,
        span: call.span(),
    })
}

/// The call with every argument named, the user's values kept: positional arguments take the
/// names the named ones left, in the generator's order (`exponential(0.001, 2.0, 16)` is
/// `exponential(start = 0.001, factor = 2.0, count = 16)`). `None` when there are more
/// arguments than names, or a named argument is not one of them.
fn named_form(call: &syn::ExprCall, expected: &[Symbol]) -> Option<String> {
    let named: Vec<Ident> = call
        .args
        .iter()
        .filter_map(|arg| match strip(arg) {
            Expr::Assign(assign) => plain_ident(&assign.left),
            _ => None,
        })
        .collect();
    let mut free = expected
        .iter()
        .filter(|symbol| !named.iter().any(|ident| ident == **symbol));
    let mut parts = Vec::new();
    for arg in &call.args {
        let text = match strip(arg) {
            Expr::Assign(assign) => {
                let key = plain_ident(&assign.left)?;
                if !expected.iter().any(|symbol| key == *symbol) {
                    return None;
                }
                format!("{key} = {}", tokens(&assign.right))
            }
            value => format!("{} = {}", free.next()?, tokens(value)),
        };
        parts.push(text);
    }
    Some(parts.join(", "))
}

/// An expression as the user wrote it, for a message (`-1.5`, `COUNT`).
fn tokens(expr: &Expr) -> String {
    crate::ty::render_tokens(&quote::ToTokens::to_token_stream(expr))
}

/// What a literal argument `symbol` of `generator` must be: the test, and the rule in words.
/// The runtime's generators hold the same rules for constants.
fn argument_rule(generator: Symbol, symbol: Symbol) -> (fn(f64) -> bool, &'static str) {
    match symbol {
        START if generator == EXPONENTIAL => (|v| v.is_finite() && v > 0.0, "greater than 0"),
        START => (|v| v.is_finite() && v >= 0.0, "finite and not negative"),
        FACTOR => (|v| v.is_finite() && v > 1.0, "greater than 1"),
        WIDTH => (|v| v.is_finite() && v > 0.0, "greater than 0"),
        MAX => (|v| v.is_finite() && v >= 1.0, "at least 1"),
        COUNT => (
            |v| v.fract() == 0.0 && (1.0..=MAX_BUCKETS as f64).contains(&v),
            COUNT_RULE,
        ),
        _ => (f64::is_finite, "finite"),
    }
}

fn example_args(generator: Symbol) -> &'static str {
    if generator == EXPONENTIAL {
        "start = 1.0, factor = 2.0, count = 10"
    } else if generator == LINEAR {
        "start = 0.0, width = 1.0, count = 5"
    } else {
        "max = 1000"
    }
}

/// Whether `expr` is an integer literal (`16`, not `16.0`).
fn is_int_literal(expr: &Expr) -> bool {
    matches!(
        strip(expr),
        Expr::Lit(ExprLit {
            lit: Lit::Int(_),
            ..
        })
    )
}

/// A numeric literal, optionally negated.
pub fn number(cx: &Ctxt, expr: &Expr, what: &str) -> Option<f64> {
    let (negative, inner) = match strip(expr) {
        Expr::Unary(unary) if matches!(unary.op, UnOp::Neg(_)) => (true, strip(&unary.expr)),
        other => (false, other),
    };
    let value = match inner {
        Expr::Lit(ExprLit {
            lit: Lit::Float(lit),
            ..
        }) => lit.base10_parse::<f64>().ok(),
        Expr::Lit(ExprLit {
            lit: Lit::Int(lit), ..
        }) => lit.base10_parse::<f64>().ok(),
        _ => None,
    };
    match value {
        Some(value) if negative => Some(-value),
        Some(value) => Some(value),
        None => {
            cx.error_spanned_by(
                expr,
                format!("{what} must be a number literal such as `0.5` or `10`"),
            );
            None
        }
    }
}
