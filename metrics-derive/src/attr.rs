//! Shared attribute parsing: `key = value` lists read with their original spans, duplicate
//! keys, unknown keys with a suggestion, and recovery so one bad key does not hide the others.

use std::fmt::Display;

use proc_macro2::TokenTree;
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::parse::ParseStream;
use syn::{Attribute, Expr, ExprLit, Ident, Lit, LitStr, Token};

use crate::ctxt::Ctxt;
use crate::suggest;
use crate::symbol::{Symbol, METRICS};

/// A value given once, with the key as the user wrote it (for spans).
pub struct Keyed<T> {
    pub key: Ident,
    pub value: T,
}

/// A key that may be given at most once in one item's attributes.
pub struct Once<T> {
    attr: Symbol,
    symbol: Symbol,
    slot: Option<Keyed<T>>,
}

impl<T> Once<T> {
    /// An unset key `symbol` of attribute `attr`.
    pub fn new(attr: Symbol, symbol: Symbol) -> Self {
        Once {
            attr,
            symbol,
            slot: None,
        }
    }

    /// Sets the value, or reports a duplicate at the second key.
    pub fn set(&mut self, cx: &Ctxt, key: &Ident, value: T) {
        if self.slot.is_some() {
            cx.error_spanned_by(
                key,
                format!(
                    "duplicate `{}` in `#[{}(...)]`: give it once",
                    self.symbol, self.attr
                ),
            );
        } else {
            self.slot = Some(Keyed {
                key: key.clone(),
                value,
            });
        }
    }

    /// Whether the key was given.
    pub fn is_set(&self) -> bool {
        self.slot.is_some()
    }

    /// The value, if set.
    pub fn get(self) -> Option<Keyed<T>> {
        self.slot
    }
}

/// The attribute's key as an identifier: every known key is one, so anything else (a path
/// such as `a::b`) is reported as unknown.
pub fn key_ident(meta: &ParseNestedMeta) -> Option<Ident> {
    meta.path.get_ident().cloned().or_else(|| {
        // `crate` is a keyword: syn still parses it as a one-segment path.
        match (meta.path.segments.len(), meta.path.leading_colon) {
            (1, None) => meta.path.segments.first().map(|s| s.ident.clone()),
            _ => None,
        }
    })
}

/// The symbol of `known` that `ident` spells; otherwise reports `{unknown}: ` and a suggestion
/// (`did you mean `x`?`, or the list of `known`) at `ident`.
pub fn known_symbol(
    cx: &Ctxt,
    ident: &Ident,
    known: &[Symbol],
    unknown: impl Display,
) -> Option<Symbol> {
    let symbol = known.iter().find(|symbol| ident == **symbol).copied();
    if symbol.is_none() {
        let names: Vec<&str> = known.iter().map(|s| s.as_str()).collect();
        cx.error_spanned_by(
            ident,
            format!("{unknown}: {}", suggest::hint(&ident.to_string(), &names)),
        );
    }
    symbol
}

/// The attributes of one item that are meant as `#[own(...)]`: those named `own`, and those
/// that only a misspelling or a mix-up separates from it, renamed to `own` so the stubs and
/// the checks go on with what they say. `#[other(...)]`, the derive's attribute for the other
/// kind of item, and `#[metrics(...)]`, registered because rustc would suggest `#[metric]`
/// for it, are reported here (at their name, saying what to write on `item`); a near miss of
/// `own` is left to rustc, which rejects an unknown attribute and suggests the right one.
pub fn own_attrs(
    cx: &Ctxt,
    attrs: &[Attribute],
    own: Symbol,
    other: Symbol,
    item: &str,
) -> Vec<Attribute> {
    attrs
        .iter()
        .filter_map(|attribute| {
            let path = attribute.path();
            if path == own {
                return Some(attribute.clone());
            }
            let name = path.get_ident()?;
            if path == other || path == METRICS {
                cx.error_spanned_by(
                    name,
                    format!(
                        "`#[{name}(...)]` is not the attribute of {item}: on {item} write `#[{own}(...)]`"
                    ),
                );
            } else if suggest::closest(&name.to_string(), &[own.as_str()]).is_none() {
                return None;
            }
            let mut renamed = attribute.clone();
            let ident = Ident::new(own.as_str(), name.span());
            match &mut renamed.meta {
                syn::Meta::Path(path) => *path = ident.into(),
                syn::Meta::List(list) => list.path = ident.into(),
                syn::Meta::NameValue(nv) => nv.path = ident.into(),
            }
            Some(renamed)
        })
        .collect()
}

/// Parses every `#[attr(...)]` of `attrs` named `attr`, calling `on_key` for each known key.
/// Unknown keys are reported (with a suggestion) and their value skipped. A syntax error ends
/// that attribute (reported); returns false if any attribute could not be parsed.
pub fn parse_attrs(
    cx: &Ctxt,
    attrs: &[Attribute],
    attr: Symbol,
    known: &[Symbol],
    mut on_key: impl FnMut(&ParseNestedMeta, &Ident, Symbol) -> syn::Result<()>,
) -> bool {
    let mut complete = true;
    for attribute in attrs.iter().filter(|a| a.path() == attr) {
        complete &= parse_one(cx, attribute, attr, known, &mut on_key);
    }
    complete
}

/// Parses one attribute; returns whether it was read completely: no syntax error and no
/// unknown key (which may be a misspelt required key, so "missing key" errors would only
/// repeat it).
fn parse_one(
    cx: &Ctxt,
    attribute: &Attribute,
    attr: Symbol,
    known: &[Symbol],
    on_key: &mut impl FnMut(&ParseNestedMeta, &Ident, Symbol) -> syn::Result<()>,
) -> bool {
    let names: Vec<&str> = known.iter().map(|s| s.as_str()).collect();
    if let syn::Meta::Path(path) = &attribute.meta {
        cx.error_spanned_by(
            path,
            format!(
                "`#[{attr}]` needs arguments: write `#[{attr}({} = ...)]`",
                names.first().copied().unwrap_or("key")
            ),
        );
        return false;
    }
    let mut complete = true;
    let parsed = attribute.parse_nested_meta(|meta| {
        let Some(key) = key_ident(&meta) else {
            cx.error_spanned_by(
                &meta.path,
                format!(
                    "unknown key `{}` in `#[{attr}(...)]`: expected one of {}",
                    meta.path.to_token_stream(),
                    suggest::list(&names)
                ),
            );
            complete = false;
            return skip_value(meta.input);
        };
        match known_symbol(
            cx,
            &key,
            known,
            format_args!("unknown key `{key}` in `#[{attr}(...)]`"),
        ) {
            Some(symbol) => on_key(&meta, &key, symbol),
            None => {
                complete = false;
                skip_value(meta.input)
            }
        }
    });
    if let Err(error) = parsed {
        // syn says which token it expected; add what the attribute looks like.
        cx.syn_error(syn::Error::new(
            error.span(),
            format!("{error} in `#[{attr}(...)]`: write a comma-separated list of `key = value`"),
        ));
        complete = false;
    }
    complete
}

/// Skips the rest of one `key ...` entry: everything up to the next top-level comma.
pub fn skip_value(input: ParseStream) -> syn::Result<()> {
    while !input.is_empty() && !input.peek(Token![,]) {
        input.parse::<TokenTree>()?;
    }
    Ok(())
}

/// The `= value` of `key`, parsed as an expression; reports a missing `=` (with an example
/// of what to write) and returns `None` after skipping whatever was there.
pub fn value_expr(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
    key: &Ident,
    attr: Symbol,
    example: &str,
) -> syn::Result<Option<Expr>> {
    if meta.input.peek(Token![=]) {
        let expr: Expr = meta.value()?.parse()?;
        Ok(Some(expr))
    } else {
        cx.error_spanned_by(
            key,
            format!("`{key}` needs a value: write `#[{attr}({example})]`"),
        );
        skip_value(meta.input)?;
        Ok(None)
    }
}

/// A flag key (`skip`): reports and skips any value given to it.
pub fn flag(cx: &Ctxt, meta: &ParseNestedMeta, key: &Ident, attr: Symbol) -> syn::Result<()> {
    if !meta.input.is_empty() && !meta.input.peek(Token![,]) {
        cx.error_spanned_by(
            key,
            format!("`{key}` takes no value: write `#[{attr}({key})]`"),
        );
        skip_value(meta.input)?;
    }
    Ok(())
}

/// The string literal `expr` must be, or an error naming `key` and an example.
pub fn lit_str(cx: &Ctxt, expr: &Expr, key: &Ident, attr: Symbol, example: &str) -> Option<LitStr> {
    match strip(expr) {
        Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        }) => Some(lit.clone()),
        other => {
            cx.error_spanned_by(
                other,
                format!("`{key}` expects a string literal: write `#[{attr}({example})]`"),
            );
            None
        }
    }
}

/// `expr` as a lone identifier (`one_two_five`, not `a::b` or `<T>::x`).
pub fn plain_ident(expr: &Expr) -> Option<Ident> {
    match strip(expr) {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().cloned(),
        _ => None,
    }
}

/// `expr` without the invisible groups `macro_rules!` wraps around fragments, and parentheses.
pub fn strip(expr: &Expr) -> &Expr {
    match expr {
        Expr::Group(group) => strip(&group.expr),
        Expr::Paren(paren) => strip(&paren.expr),
        other => other,
    }
}
