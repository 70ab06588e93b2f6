//! What the user's code sees of a `#[derive(MetricHandles)]` expansion, shared by the real
//! expansion (`expand.rs`) and the error stubs (`fallback.rs`): the runtime crate's path, the
//! labels type, the handles struct's name and doc, and the marker field a generic struct needs.
//! Both must agree on these, or a mistake the derive reported would bring more errors at every
//! use of the struct.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};
use syn::{GenericParam, Ident};

use crate::ast::{Field, Input};

/// The runtime crate's path: `crate = path`, else the name the crate's `Cargo.toml` gives the
/// runtime when it renames it, else `::metric_handles`.
pub fn krate(input: &Input) -> TokenStream {
    match &input.container.krate {
        Some(path) => path.to_token_stream(),
        None => crate::manifest::default_path(),
    }
}

/// The labels type of the struct: `labels = T`; without it, the `L` of the first metric
/// field's `Family<L, _>` (preferring a field without `#[cfg]`, which always exists), or
/// `NoLabels` when there is none. A field that uses another label set is reported at its `L`.
pub fn labels_type(input: &Input, krate: &TokenStream) -> TokenStream {
    if let Some(ty) = &input.container.labels {
        return ty.to_token_stream();
    }
    let families = || {
        input
            .fields
            .iter()
            .filter(|f| !f.is_skipped())
            .filter_map(|f| Some((f, f.family.as_ref()?)))
    };
    let first = families()
        .find(|(field, _)| field.cfgs().next().is_none())
        .or_else(|| families().next());
    match first {
        Some((_, family)) => family.labels.to_token_stream(),
        None => quote!(#krate::NoLabels),
    }
}

/// The name of the handles struct: `handles = X`, or `{Struct}Handles`.
pub fn handles_ident(input: &Input) -> Ident {
    match &input.container.handles {
        Some(ident) => ident.clone(),
        None => format_ident!("{}Handles", input.ident),
    }
}

/// The handles struct's own attributes: its doc (a fixed first line, then the metrics
/// struct's doc), and the metrics struct's lint levels.
pub fn handles_attrs(input: &Input) -> TokenStream {
    let summary = format!("Cached handles of [`{}`] for one label set.", input.ident);
    let docs = input.doc_attrs();
    let lints = input.lint_attrs();
    quote! {
        #[doc = #summary]
        #[doc = ""]
        #(#docs)*
        #lints
    }
}

/// A field's attributes on its handle besides its doc: its `#[cfg]`s and lint levels.
pub fn handle_field_attrs(field: &Field) -> TokenStream {
    let cfgs = field.cfgs();
    let lints = field.lint_attrs();
    quote!(#(#cfgs)* #lints)
}

/// A hidden field that uses every type and lifetime parameter, so a generic metrics struct
/// whose parameters only appear in `Family<L, _>` still yields a valid handles struct: its
/// declaration and its initialiser.
pub fn marker(input: &Input, krate: &TokenStream) -> Option<(TokenStream, TokenStream)> {
    let used: Vec<TokenStream> = input
        .generics
        .params
        .iter()
        .filter_map(|param| match param {
            GenericParam::Type(t) => Some(t.ident.to_token_stream()),
            GenericParam::Lifetime(l) => {
                let lifetime = &l.lifetime;
                Some(quote!(&#lifetime ()))
            }
            GenericParam::Const(_) => None,
        })
        .collect();
    if used.is_empty() {
        return None;
    }
    let decl = quote! {
        #[doc(hidden)]
        __metric_handles_marker: #krate::__private::std::marker::PhantomData<fn() -> (#(#used,)*)>,
    };
    let init = quote! {
        __metric_handles_marker: #krate::__private::std::marker::PhantomData,
    };
    Some((decl, init))
}
