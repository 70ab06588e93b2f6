//! `#[derive(EncodeLabelSet)]` and `#[derive(EncodeLabelValue)]` as `metric_handles`
//! re-exports them (`metric_handles::prometheus_client::encoding::EncodeLabelSet`): the same
//! impls as prometheus-client's own derives (a struct's fields are its labels, keyed by the
//! field names, `#[prometheus(flatten)]` inlining a field's own label set; an enum's variant
//! names are its values), but naming prometheus-client through the runtime crate. Its own
//! derives name `::prometheus_client`, which a crate that reaches prometheus-client only
//! through `metric_handles` cannot resolve ("cannot find `prometheus_client` in the crate
//! root", an error that says nothing of the fix).

use proc_macro2::TokenStream;
use quote::quote;
use syn::ext::IdentExt;
use syn::{Data, DeriveInput, Fields};

use crate::ctxt::Ctxt;
use crate::label_impl;

/// The helper attribute of `EncodeLabelSet`, as prometheus-client names it.
const PROMETHEUS: &str = "prometheus";

/// `#[derive(EncodeLabelSet)]`.
pub fn encode_label_set(input: TokenStream) -> TokenStream {
    derive(input, |cx, input, krate| {
        let Data::Struct(data) = &input.data else {
            cx.error_spanned_by(
                &input.ident,
                "`#[derive(EncodeLabelSet)]` needs a struct with named fields, one per label (for the label set of a metrics struct, `#[derive(LabelSet)]` implements `EncodeLabelSet` too)",
            );
            return None;
        };
        let Fields::Named(fields) = &data.fields else {
            cx.error_spanned_by(
                &input.ident,
                "`#[derive(EncodeLabelSet)]` needs a struct with named fields, one per label",
            );
            return None;
        };
        let encoding = quote!(#krate::__private::prometheus_client::encoding);
        let mut labels = Vec::new();
        for field in &fields.named {
            let ident = field.ident.as_ref()?;
            if flatten(cx, &field.attrs) {
                labels.push(quote! {
                    #encoding::EncodeLabelSet::encode(&self.#ident, encoder)?;
                });
                continue;
            }
            let key = ident.unraw().to_string();
            labels.push(quote! {
                {
                    let mut label = encoder.encode_label();
                    let mut key = label.encode_label_key()?;
                    #encoding::EncodeLabelKey::encode(&#key, &mut key)?;
                    let mut value = key.encode_label_value()?;
                    #encoding::EncodeLabelValue::encode(&self.#ident, &mut value)?;
                    value.finish()?;
                }
            });
        }
        Some(label_impl::encode_impl(
            input,
            krate,
            "EncodeLabelSet",
            "LabelSetEncoder",
            quote! {
                #(#labels)*
                #krate::__private::std::result::Result::Ok(())
            },
        ))
    })
}

/// `#[derive(EncodeLabelValue)]`.
pub fn encode_label_value(input: TokenStream) -> TokenStream {
    derive(input, |cx, input, krate| {
        let Data::Enum(data) = &input.data else {
            cx.error_spanned_by(
                &input.ident,
                "`#[derive(EncodeLabelValue)]` needs a fieldless enum, one variant per value (for the axis of a metric, `#[derive(LabelEnum)]` implements `EncodeLabelValue` too)",
            );
            return None;
        };
        let mut variants = Vec::new();
        for variant in &data.variants {
            let ident = &variant.ident;
            if !matches!(variant.fields, Fields::Unit) {
                cx.error_spanned_by(
                    &variant.fields,
                    format!("`#[derive(EncodeLabelValue)]` needs fieldless variants, and `{}` has fields: remove them", ident.unraw()),
                );
                continue;
            }
            variants.push((ident, ident.unraw().to_string()));
        }
        let body = label_impl::encode_value_body(
            krate,
            variants
                .iter()
                .map(|(ident, value)| (*ident, value.as_str())),
        );
        Some(label_impl::encode_impl(
            input,
            krate,
            "EncodeLabelValue",
            "LabelValueEncoder",
            body,
        ))
    })
}

/// Parses the input and runs `generate`; the errors it reported replace the impl.
fn derive(
    input: TokenStream,
    generate: impl FnOnce(&Ctxt, &DeriveInput, &TokenStream) -> Option<TokenStream>,
) -> TokenStream {
    let input: DeriveInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(error) => return error.to_compile_error(),
    };
    let cx = Ctxt::new();
    let krate = crate::manifest::default_path();
    let output = generate(&cx, &input, &krate);
    match cx.check() {
        Ok(()) => output.unwrap_or_default(),
        Err(errors) => errors.to_compile_error(),
    }
}

/// Whether a field is `#[prometheus(flatten)]`; any other `#[prometheus(...)]` is reported.
fn flatten(cx: &Ctxt, attrs: &[syn::Attribute]) -> bool {
    let mut flatten = false;
    for attr in attrs.iter().filter(|a| a.path().is_ident(PROMETHEUS)) {
        match attr.parse_args::<syn::Ident>() {
            Ok(ident) if ident == "flatten" => flatten = true,
            _ => cx.error_spanned_by(
                attr,
                "`#[prometheus(...)]` takes `flatten` only: write `#[prometheus(flatten)]`",
            ),
        }
    }
    flatten
}
