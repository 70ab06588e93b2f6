//! `#[label(...)]`, shared by `LabelSet` and `LabelEnum`: `crate = path` on the type,
//! `rename = "..."` on a field or variant, `rename_all = "..."` on an enum.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{Attribute, LitStr, Path, Token};

use crate::attr::{self, Once};
use crate::ctxt::Ctxt;
use crate::symbol::{Symbol, CRATE, LABEL_ATTR, RENAME, RENAME_ALL};

/// `#[label(...)]` on the type.
pub struct TypeAttrs {
    pub krate: TokenStream,
    pub rename_all: Option<LitStr>,
}

/// Parses the type's `#[label(...)]`; `rename_all` is only known to enums.
pub fn parse_type(cx: &Ctxt, attrs: &[Attribute], allow_rename_all: bool) -> TypeAttrs {
    let mut krate = Once::new(LABEL_ATTR, CRATE);
    let mut rename_all = Once::new(LABEL_ATTR, RENAME_ALL);
    let known: &[Symbol] = if allow_rename_all {
        &[RENAME_ALL, CRATE]
    } else {
        &[CRATE]
    };
    attr::parse_attrs(cx, attrs, LABEL_ATTR, known, |meta, key, symbol| {
        if symbol == CRATE {
            if !meta.input.peek(Token![=]) {
                cx.error_spanned_by(
                    key,
                    "`crate` needs a value: write `#[label(crate = ::metric_handles)]`",
                );
                return attr::skip_value(meta.input);
            }
            let path = meta.value()?.call(Path::parse_mod_style)?;
            krate.set(cx, key, path);
        } else if let Some(expr) =
            attr::value_expr(cx, meta, key, LABEL_ATTR, "rename_all = \"snake_case\"")?
        {
            if let Some(lit) =
                attr::lit_str(cx, &expr, key, LABEL_ATTR, "rename_all = \"snake_case\"")
            {
                rename_all.set(cx, key, lit);
            }
        }
        Ok(())
    });
    TypeAttrs {
        krate: match krate.get() {
            Some(keyed) => keyed.value.to_token_stream(),
            None => crate::manifest::default_path(),
        },
        rename_all: rename_all.get().map(|k| k.value),
    }
}

/// `#[label(rename = "...")]` on a field or variant.
pub fn parse_rename(cx: &Ctxt, attrs: &[Attribute], example: &str) -> Option<LitStr> {
    let mut rename = Once::new(LABEL_ATTR, RENAME);
    attr::parse_attrs(cx, attrs, LABEL_ATTR, &[RENAME], |meta, key, _| {
        if let Some(expr) = attr::value_expr(cx, meta, key, LABEL_ATTR, example)? {
            if let Some(lit) = attr::lit_str(cx, &expr, key, LABEL_ATTR, example) {
                rename.set(cx, key, lit);
            }
        }
        Ok(())
    });
    rename.get().map(|k| k.value)
}
