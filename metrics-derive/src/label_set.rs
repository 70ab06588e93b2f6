//! `#[derive(LabelSet)]`: a struct's fields become label keys (in field order) and values.
//!
//! The steps of `#[derive(MetricHandles)]`: `parse` reads the input and its attributes,
//! `check` turns it into the labels to encode, `generate` writes the impls; when a step
//! reported an error, the impls are generated without labels, as stubs.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Ident, LitStr, Type};

use crate::ctxt::Ctxt;
use crate::label_attr;
use crate::label_impl::{self, Claims};
use crate::names;

/// The input as read.
struct Input<'a> {
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
struct Label<'a> {
    key: String,
    field: &'a LabelField<'a>,
}

pub fn derive(input: TokenStream) -> TokenStream {
    let input: DeriveInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(error) => return error.to_compile_error(),
    };
    let cx = Ctxt::new();
    let model = parse(&cx, &input);
    let labels = check(&cx, &model);
    match cx.check() {
        Ok(()) => generate(&model, &labels),
        Err(errors) => {
            // Stubs: the type still implements both traits (without labels), so using it as
            // a struct's `labels` does not add errors to the ones reported.
            let mut output = errors.to_compile_error();
            output.extend(generate(&model, &[]));
            output
        }
    }
}

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
fn check<'a>(cx: &Ctxt, input: &'a Input<'a>) -> Vec<Label<'a>> {
    let mut claims = Claims::default();
    let mut labels = Vec::new();
    for field in &input.fields {
        let ident = field.ident;
        let field_name = ident.unraw().to_string();
        let (key, span_tokens) =
            label_impl::label_text(field.rename.as_ref(), ident, || field_name.clone());
        if let Err(message) = names::check_label_key(&key) {
            let fix = if field.rename.is_some() {
                "choose another key"
            } else {
                "rename the key with `#[label(rename = \"...\")]`"
            };
            cx.error_spanned_by(&span_tokens, format!("{message}: {fix}"));
            continue;
        }
        let duplicate = |first: &str| {
            format!("duplicate label key `{key}`: field `{first}` already uses it; give one of them `#[label(rename = \"...\")]`")
        };
        if claims.claim(cx, &span_tokens, &key, field_name, duplicate) {
            labels.push(Label { key, field });
        }
    }
    labels
}

/// `EncodeLabelSet` (each label's key, then its field's value) and `LabelSet::KEYS`.
fn generate(input: &Input, labels: &[Label]) -> TokenStream {
    let krate = &input.krate;
    let keys = labels.iter().map(|label| &label.key);
    let encodes = labels.iter().map(|Label { key, field }| {
        let ident = field.ident;
        let encode = quote_spanned! {field.ty.span()=>
            #krate::__private::prometheus_client::encoding::EncodeLabelValue::encode(
                &self.#ident,
                &mut value,
            )?;
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
