//! `#[derive(LabelSet)]`: a struct's fields become label keys (in field order) and values.

use std::collections::HashMap;

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields};

use crate::ctxt::Ctxt;
use crate::label_attr;
use crate::names;

pub fn derive(input: TokenStream) -> TokenStream {
    let input: DeriveInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(error) => return error.to_compile_error(),
    };
    let cx = Ctxt::new();
    let attrs = label_attr::parse_type(&cx, &input.attrs, false);
    let krate = &attrs.krate;
    let fields = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(named) => Some(&named.named),
            _ => None,
        },
        _ => None,
    };
    let mut keys = Vec::new();
    let mut encodes = Vec::new();
    match fields {
        None => cx.error_spanned_by(
            &input.ident,
            "`#[derive(LabelSet)]` needs a struct with named fields: each field is one label (`struct EngineLabels { model_name: String, engine: u32 }`)",
        ),
        Some(fields) if fields.is_empty() => cx.error_spanned_by(
            &input.ident,
            "`#[derive(LabelSet)]` on a struct without fields: add one field per label key, or use `metric_handles::NoLabels` for no labels",
        ),
        Some(fields) => {
            let mut seen: HashMap<String, String> = HashMap::new();
            for field in fields {
                let Some(ident) = &field.ident else { continue };
                let field_name = ident.to_string().trim_start_matches("r#").to_owned();
                let rename = label_attr::parse_rename(&cx, &field.attrs, "rename = \"key\"");
                let (key, span_tokens) = match &rename {
                    Some(lit) => (lit.value(), lit.to_token_stream()),
                    None => (field_name.clone(), ident.to_token_stream()),
                };
                if let Err(message) = names::check_label_key(&key) {
                    let fix = if rename.is_some() {
                        "choose another key"
                    } else {
                        "rename the key with `#[label(rename = \"...\")]`"
                    };
                    cx.error_spanned_by(&span_tokens, format!("{message}: {fix}"));
                    continue;
                }
                if let Some(first) = seen.get(&key) {
                    cx.error_spanned_by(
                        &span_tokens,
                        format!("duplicate label key `{key}`: field `{first}` already uses it; give one of them `#[label(rename = \"...\")]`"),
                    );
                    continue;
                }
                seen.insert(key.clone(), field_name);
                let ty = &field.ty;
                let encode = quote_spanned! {ty.span()=>
                    #krate::__private::prometheus_client::encoding::EncodeLabelValue::encode(
                        &self.#ident,
                        &mut value,
                    )?;
                };
                encodes.push(quote! {
                    {
                        let mut label = encoder.encode_label();
                        let mut key = label.encode_label_key()?;
                        #krate::__private::std::fmt::Write::write_str(&mut key, #key)?;
                        let mut value = key.encode_label_value()?;
                        #encode
                        value.finish()?;
                    }
                });
                keys.push(key);
            }
        }
    }
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let encoding = quote!(#krate::__private::prometheus_client::encoding);
    let std = quote!(#krate::__private::std);
    let mut output = match cx.check() {
        Ok(()) => TokenStream::new(),
        Err(errors) => {
            // Stubs: the type still implements both traits, so using it as a struct's
            // `labels` does not add errors to the ones reported.
            keys.clear();
            encodes.clear();
            errors.to_compile_error()
        }
    };
    output.extend(quote! {
        #[automatically_derived]
        impl #impl_generics #encoding::EncodeLabelSet for #ident #ty_generics #where_clause {
            fn encode(
                &self,
                encoder: &mut #encoding::LabelSetEncoder,
            ) -> #std::result::Result<(), #std::fmt::Error> {
                let _ = &encoder;
                #(#encodes)*
                #std::result::Result::Ok(())
            }
        }

        #[automatically_derived]
        impl #impl_generics #krate::LabelSet for #ident #ty_generics #where_clause {
            const KEYS: &'static [&'static str] = &[#(#keys),*];
        }
    });
    output
}
