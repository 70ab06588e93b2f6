//! `#[derive(LabelSet)]`: a struct's fields become label keys (in field order) and values.
//!
//! The steps are `label_impl::LabelDerive`'s: the labels to encode are the fields' names or
//! their `rename`s; the stubs are the impls without labels.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Ident, LitStr, Type};

use crate::ctxt::Ctxt;
use crate::label_attr;
use crate::label_impl::{self, Claims, LabelDerive};
use crate::names;

/// The input as read.
pub struct Input<'a> {
    derive: &'a DeriveInput,
    /// The runtime crate's path.
    krate: TokenStream,
    /// The named fields; empty when the input is not a struct with named fields (reported).
    fields: Vec<LabelField<'a>>,
}

/// One field and its `#[label(rename = "...")]`.
struct LabelField<'a> {
    ident: &'a Ident,
    ty: &'a Type,
    rename: Option<LitStr>,
}

/// A checked label: its key, and the field holding its value.
pub struct Label<'a> {
    key: String,
    field: &'a LabelField<'a>,
}

/// `#[derive(LabelSet)]`.
pub struct LabelSet;

impl LabelDerive for LabelSet {
    type Input<'a> = Input<'a>;
    type Checked<'a> = Vec<Label<'a>>;

    fn parse<'a>(cx: &Ctxt, input: &'a DeriveInput) -> Input<'a> {
        let krate = label_attr::parse_type(cx, &input.attrs, false).krate;
        let named = match &input.data {
            Data::Struct(data) => match &data.fields {
                Fields::Named(named) => Some(&named.named),
                _ => None,
            },
            _ => None,
        };
        let fields = match named {
            None => {
                cx.error_spanned_by(
                    &input.ident,
                    "`#[derive(LabelSet)]` needs a struct with named fields: each field is one label (`struct EngineLabels { model_name: String, engine: u32 }`)",
                );
                Vec::new()
            }
            Some(named) if named.is_empty() => {
                cx.error_spanned_by(
                    &input.ident,
                    "`#[derive(LabelSet)]` on a struct without fields: add one field per label key, or use `metric_handles::NoLabels` for no labels",
                );
                Vec::new()
            }
            Some(named) => named
                .iter()
                .filter_map(|field| {
                    Some(LabelField {
                        ident: field.ident.as_ref()?,
                        ty: &field.ty,
                        rename: label_attr::parse_rename(cx, &field.attrs, "rename = \"key\""),
                    })
                })
                .collect(),
        };
        Input {
            derive: input,
            krate,
            fields,
        }
    }

    /// Every key valid and distinct.
    fn check<'a>(cx: &Ctxt, input: &'a Input<'_>) -> Vec<Label<'a>> {
        let mut claims = Claims::new("label key", "field", "uses");
        input
            .fields
            .iter()
            .filter_map(|field| {
                let valid = |key: &str| {
                    names::check_label_key(key).map_err(|message| {
                        let fix = if field.rename.is_some() {
                            "choose another key"
                        } else {
                            "rename the key with `#[label(rename = \"...\")]`"
                        };
                        format!("{message}: {fix}")
                    })
                };
                let key =
                    claims.take(cx, field.ident, field.rename.as_ref(), str::to_owned, valid)?;
                Some(Label { key, field })
            })
            .collect()
    }

    /// `EncodeLabelSet` (each label's key, then its field's value) and `LabelSet::KEYS`.
    fn generate(input: &Input, labels: &Vec<Label>) -> TokenStream {
        let krate = &input.krate;
        let keys = labels.iter().map(|label| &label.key);
        let encodes = labels.iter().map(|Label { key, field }| {
            let ident = field.ident;
            // Through `LabelValue`, so a field type that is not a label value is told which are.
            let encode = quote_spanned! {field.ty.span()=>
                #krate::__private::LabelValue::encode_value(&self.#ident, &mut value)?;
            };
            quote! {
                {
                    let mut label = encoder.encode_label();
                    let mut key = label.encode_label_key()?;
                    #krate::__private::std::fmt::Write::write_str(&mut key, #key)?;
                    let mut value = key.encode_label_value()?;
                    #encode
                    value.finish()?;
                }
            }
        });
        let encode = label_impl::encode_impl(
            input.derive,
            krate,
            "EncodeLabelSet",
            "LabelSetEncoder",
            quote! {
                let _ = &encoder;
                #(#encodes)*
                #krate::__private::std::result::Result::Ok(())
            },
        );
        let label_set = label_impl::impl_for(
            input.derive,
            quote!(#krate::LabelSet),
            quote!(const KEYS: &'static [&'static str] = &[#(#keys),*];),
        );
        quote!(#encode #label_set)
    }

    /// The impls without labels.
    fn stubs(input: &Input) -> TokenStream {
        Self::generate(input, &Vec::new())
    }
}
