//! `#[derive(LabelEnum)]`: a fieldless enum as the complete list of one label's values, with
//! a dense index (declaration order) so a pre-resolved array replaces a hash lookup.

use std::collections::HashMap;

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::{Data, DeriveInput, Fields};

use crate::case::{self, RenameRule};
use crate::ctxt::Ctxt;
use crate::label_attr;
use crate::suggest;

pub fn derive(input: TokenStream) -> TokenStream {
    let input: DeriveInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(error) => return error.to_compile_error(),
    };
    let cx = Ctxt::new();
    let attrs = label_attr::parse_type(&cx, &input.attrs, true);
    let krate = &attrs.krate;
    let rule = attrs.rename_all.as_ref().and_then(|lit| {
        let rule = RenameRule::from_str(&lit.value());
        if rule.is_none() {
            cx.error_spanned_by(
                lit,
                format!(
                    "unknown `rename_all` rule `{}`: {}",
                    lit.value(),
                    suggest::hint(&lit.value(), &case::rule_names())
                ),
            );
        }
        rule
    });
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(
            &input.generics,
            "`#[derive(LabelEnum)]` does not support generic enums: a label's values must be one fixed list; remove the generic parameters",
        );
    }
    let mut variants = Vec::new();
    let mut values = Vec::new();
    match &input.data {
        Data::Enum(data) if data.variants.is_empty() => cx.error_spanned_by(
            &input.ident,
            "`#[derive(LabelEnum)]` on an enum without variants: a label needs at least one value",
        ),
        Data::Enum(data) => {
            let mut seen: HashMap<String, String> = HashMap::new();
            for variant in &data.variants {
                let ident = &variant.ident;
                let name = ident.to_string().trim_start_matches("r#").to_owned();
                if !matches!(variant.fields, Fields::Unit) {
                    cx.error_spanned_by(
                        &variant.fields,
                        format!("`#[derive(LabelEnum)]` needs fieldless variants, and `{name}` has fields: a label value carries no data; remove them"),
                    );
                }
                let rename = label_attr::parse_rename(&cx, &variant.attrs, "rename = \"value\"");
                let (value, tokens) = match &rename {
                    Some(lit) => (lit.value(), lit.to_token_stream()),
                    None => (
                        rule.map_or_else(|| name.clone(), |rule| rule.apply(&name)),
                        ident.to_token_stream(),
                    ),
                };
                if value.is_empty() {
                    cx.error_spanned_by(
                        &tokens,
                        "a label value cannot be empty: Prometheus treats an empty value as a missing label",
                    );
                    continue;
                }
                if let Some(first) = seen.get(&value) {
                    cx.error_spanned_by(
                        &tokens,
                        format!("duplicate label value `{value}`: variant `{first}` already has it; give one of them `#[label(rename = \"...\")]`"),
                    );
                    continue;
                }
                seen.insert(value.clone(), name);
                variants.push(ident);
                values.push(value);
            }
        }
        _ => cx.error_spanned_by(
            &input.ident,
            "`#[derive(LabelEnum)]` needs a fieldless enum: one variant per label value (`enum FinishReason { Stop, Length, Abort }`)",
        ),
    }
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let encoding = quote!(#krate::__private::prometheus_client::encoding);
    let std = quote!(#krate::__private::std);
    let generic = !input.generics.params.is_empty();
    let (mut output, index_body) = match cx.check() {
        Ok(()) => {
            let indices = (0..variants.len()).map(proc_macro2::Literal::usize_unsuffixed);
            let body = quote! {
                match self {
                    #(Self::#variants => #indices,)*
                }
            };
            (TokenStream::new(), body)
        }
        Err(errors) => {
            // Stubs: the type still implements both traits, so its uses add no errors.
            variants.clear();
            values.clear();
            let body = quote! {
                let _ = self;
                ::core::unimplemented!("metric-handles: fix the errors above")
            };
            (errors.to_compile_error(), body)
        }
    };
    if generic {
        // Stub impls for a generic enum would only add unsatisfiable-bound errors.
        return output;
    }
    output.extend(quote! {
        #[automatically_derived]
        impl #impl_generics #krate::LabelEnum for #ident #ty_generics #where_clause {
            const VARIANTS: &'static [Self] = &[#(Self::#variants),*];
            const VALUES: &'static [&'static str] = &[#(#values),*];
            #[inline]
            fn index(self) -> usize {
                #index_body
            }
        }

        #[automatically_derived]
        impl #impl_generics #encoding::EncodeLabelValue for #ident #ty_generics #where_clause {
            fn encode(
                &self,
                encoder: &mut #encoding::LabelValueEncoder,
            ) -> #std::result::Result<(), #std::fmt::Error> {
                #std::fmt::Write::write_str(encoder, #krate::LabelEnum::label_value(*self))
            }
        }
    });
    output
}
