//! What `#[derive(LabelSet)]` and `#[derive(LabelEnum)]` share: distinct keys or values (each
//! claimed by one field or variant), and the impls they generate alike, one of the runtime's
//! traits and prometheus-client's matching encoding trait.

use std::collections::HashMap;

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::{DeriveInput, Ident, LitStr};

use crate::ctxt::Ctxt;

/// Which field or variant first took each label key or value.
#[derive(Default)]
pub struct Claims(HashMap<String, String>);

impl Claims {
    /// Records that `owner` takes `value`. When another already took it, reports
    /// `duplicate(first owner)` at `tokens` and returns false.
    pub fn claim(
        &mut self,
        cx: &Ctxt,
        tokens: &TokenStream,
        value: &str,
        owner: String,
        duplicate: impl FnOnce(&str) -> String,
    ) -> bool {
        if let Some(first) = self.0.get(value) {
            cx.error_spanned_by(tokens, duplicate(first));
            return false;
        }
        self.0.insert(value.to_owned(), owner);
        true
    }
}

/// The label text of a field or variant, its `rename = "..."` or else `derived`, and the tokens
/// a mistake in it is reported at (the literal, or the identifier).
pub fn label_text(
    rename: Option<&LitStr>,
    ident: &Ident,
    derived: impl FnOnce() -> String,
) -> (String, TokenStream) {
    match rename {
        Some(lit) => (lit.value(), lit.to_token_stream()),
        None => (derived(), ident.to_token_stream()),
    }
}

/// `#[automatically_derived] impl #trait_path for #Input { #items }`, with the input's
/// generics.
pub fn impl_for(input: &DeriveInput, trait_path: TokenStream, items: TokenStream) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        #[automatically_derived]
        impl #impl_generics #trait_path for #ident #ty_generics #where_clause {
            #items
        }
    }
}

/// prometheus-client's `encoding::#encoding_trait` (`EncodeLabelSet`, `EncodeLabelValue`) for
/// the input type: its `encode` takes the trait's encoder (`#encoder`) and runs `body`, which
/// ends in the `fmt::Result`.
pub fn encode_impl(
    input: &DeriveInput,
    krate: &TokenStream,
    encoding_trait: &str,
    encoder: &str,
    body: TokenStream,
) -> TokenStream {
    let encoding = quote!(#krate::__private::prometheus_client::encoding);
    let std = quote!(#krate::__private::std);
    let (encoding_trait, encoder) = (ident(encoding_trait), ident(encoder));
    impl_for(
        input,
        quote!(#encoding::#encoding_trait),
        quote! {
            fn encode(
                &self,
                encoder: &mut #encoding::#encoder,
            ) -> #std::result::Result<(), #std::fmt::Error> {
                #body
            }
        },
    )
}

fn ident(name: &str) -> Ident {
    Ident::new(name, proc_macro2::Span::call_site())
}
