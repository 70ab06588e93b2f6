//! `#[derive(LabelEnum)]`: a fieldless enum as the complete list of one label's values, with
//! a dense index (declaration order) so a pre-resolved array replaces a hash lookup.
//!
//! The steps are `label_impl::LabelDerive`'s: the values to encode are the variants' names
//! (after `rename_all`) or their `rename`s.

use proc_macro2::TokenStream;
use quote::quote;
use syn::ext::IdentExt;
use syn::{Data, DeriveInput, Fields, Ident, LitStr};

use crate::case::{self, RenameRule};
use crate::ctxt::Ctxt;
use crate::label_attr;
use crate::label_impl::{self, Claims, LabelDerive};
use crate::suggest;

/// The input as read.
pub struct Input<'a> {
    derive: &'a DeriveInput,
    /// The runtime crate's path.
    krate: TokenStream,
    /// `rename_all = "..."`, when it names a known rule.
    rule: Option<RenameRule>,
    /// The variants; empty when the input is not an enum (reported).
    variants: Vec<Variant<'a>>,
}

/// One variant and its `#[label(rename = "...")]`.
struct Variant<'a> {
    ident: &'a Ident,
    rename: Option<LitStr>,
}

/// A checked variant: its identifier and its label value.
pub struct Value<'a> {
    ident: &'a Ident,
    value: String,
}

/// `#[derive(LabelEnum)]`.
pub struct LabelEnum;

impl LabelDerive for LabelEnum {
    type Input<'a> = Input<'a>;
    type Checked<'a> = Vec<Value<'a>>;

    fn parse<'a>(cx: &Ctxt, input: &'a DeriveInput) -> Input<'a> {
        let attrs = label_attr::parse_type(cx, &input.attrs, true);
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
        match &input.data {
            Data::Enum(data) if data.variants.is_empty() => cx.error_spanned_by(
                &input.ident,
                "`#[derive(LabelEnum)]` on an enum without variants: a label needs at least one value",
            ),
            Data::Enum(data) => {
                for variant in &data.variants {
                    if !matches!(variant.fields, Fields::Unit) {
                        cx.error_spanned_by(
                            &variant.fields,
                            format!("`#[derive(LabelEnum)]` needs fieldless variants, and `{}` has fields: a label value carries no data; remove them", variant.ident.unraw()),
                        );
                    }
                    variants.push(Variant {
                        ident: &variant.ident,
                        rename: label_attr::parse_rename(cx, &variant.attrs, "rename = \"value\""),
                    });
                }
            }
            _ => cx.error_spanned_by(
                &input.ident,
                "`#[derive(LabelEnum)]` needs a fieldless enum: one variant per label value (`enum FinishReason { Stop, Length, Abort }`)",
            ),
        }
        Input {
            derive: input,
            krate: attrs.krate,
            rule,
            variants,
        }
    }

    /// Every value non-empty and distinct.
    fn check<'a>(cx: &Ctxt, input: &'a Input<'_>) -> Vec<Value<'a>> {
        let mut claims = Claims::new("label value", "variant", "has");
        let derived = |name: &str| {
            input
                .rule
                .map_or_else(|| name.to_owned(), |rule| rule.apply(name))
        };
        let non_empty = |value: &str| {
            if value.is_empty() {
                Err("a label value cannot be empty: Prometheus treats an empty value as a missing label".to_owned())
            } else {
                Ok(())
            }
        };
        input
            .variants
            .iter()
            .filter_map(|variant| {
                let value = claims.take(
                    cx,
                    variant.ident,
                    variant.rename.as_ref(),
                    derived,
                    non_empty,
                )?;
                Some(Value {
                    ident: variant.ident,
                    value,
                })
            })
            .collect()
    }

    /// `LabelEnum` (the variants, their values, the index) and `EncodeLabelValue`.
    fn generate(input: &Input, values: &Vec<Value>) -> TokenStream {
        let variants: Vec<&Ident> = values.iter().map(|v| v.ident).collect();
        let indices = (0..variants.len()).map(proc_macro2::Literal::usize_unsuffixed);
        let index_body = quote! {
            match self {
                #(Self::#variants => #indices,)*
            }
        };
        let encode_body = label_impl::encode_value_body(
            &input.krate,
            values.iter().map(|v| (v.ident, v.value.as_str())),
        );
        impls(input, values, index_body, encode_body)
    }

    /// The impls without values. A generic enum gets none: its impls would only add
    /// unsatisfiable-bound errors.
    fn stubs(input: &Input) -> TokenStream {
        if !input.derive.generics.params.is_empty() {
            return TokenStream::new();
        }
        let index_body = quote! {
            let _ = self;
            ::core::unimplemented!("metric-handles: fix the errors above")
        };
        let encode_body = quote! {
            let _ = (self, encoder);
            ::core::unimplemented!("metric-handles: fix the errors above")
        };
        impls(input, &[], index_body, encode_body)
    }
}

/// `LabelEnum` and `EncodeLabelValue`, with the bodies of `index` and `encode`.
fn impls(
    input: &Input,
    values: &[Value],
    index_body: TokenStream,
    encode_body: TokenStream,
) -> TokenStream {
    let krate = &input.krate;
    let variants = values.iter().map(|v| v.ident);
    let values = values.iter().map(|v| &v.value);
    let label_enum = label_impl::impl_for(
        input.derive,
        quote!(#krate::LabelEnum),
        quote! {
            const VARIANTS: &'static [Self] = &[#(Self::#variants),*];
            const VALUES: &'static [&'static str] = &[#(#values),*];
            #[inline]
            fn index(self) -> usize {
                #index_body
            }
        },
    );
    let encode = label_impl::encode_impl(
        input.derive,
        krate,
        "EncodeLabelValue",
        "LabelValueEncoder",
        encode_body,
    );
    quote!(#label_enum #encode)
}
