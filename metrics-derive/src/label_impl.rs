//! What `#[derive(LabelSet)]` and `#[derive(LabelEnum)]` share: their steps, distinct keys or
//! values (each claimed by one field or variant), and the impls they generate alike, one of the
//! runtime's traits and prometheus-client's matching encoding trait.

use std::collections::HashMap;

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::ext::IdentExt;
use syn::{DeriveInput, Ident, LitStr};

use crate::ctxt::Ctxt;

/// The steps both derives take, in order: `parse` reads the input and its attributes, `check`
/// turns it into the keys or values to encode, `generate` writes the impls; when a step reported
/// an error, `stubs` take the impls' place, so the type's uses add no errors to the ones reported.
pub trait LabelDerive {
    /// The input as read.
    type Input<'a>;
    /// The checked keys or values.
    type Checked<'a>;
    fn parse<'a>(cx: &Ctxt, input: &'a DeriveInput) -> Self::Input<'a>;
    fn check<'a>(cx: &Ctxt, input: &'a Self::Input<'_>) -> Self::Checked<'a>;
    fn generate(input: &Self::Input<'_>, checked: &Self::Checked<'_>) -> TokenStream;
    fn stubs(input: &Self::Input<'_>) -> TokenStream;

    /// The whole derive: the steps, in order, on its input.
    fn derive(input: TokenStream) -> TokenStream {
        let input: DeriveInput = match syn::parse2(input) {
            Ok(input) => input,
            Err(error) => return error.to_compile_error(),
        };
        let cx = Ctxt::new();
        let model = Self::parse(&cx, &input);
        let checked = Self::check(&cx, &model);
        match cx.check() {
            Ok(()) => Self::generate(&model, &checked),
            Err(errors) => {
                let mut output = errors.to_compile_error();
                output.extend(Self::stubs(&model));
                output
            }
        }
    }
}

/// The label texts of one input's fields or variants, each claimed by the first to take it.
pub struct Claims {
    /// What the texts are, for the duplicate message: `"label key"`.
    text: &'static str,
    /// What takes them: `"field"`.
    owner: &'static str,
    /// How the message says the first owner has it: `"uses"`.
    has: &'static str,
    /// Which owner first took each text.
    first: HashMap<String, String>,
}

impl Claims {
    /// No text taken yet; duplicates are reported as
    /// ``duplicate {text} `x`: {owner} `first` already {has} it``.
    pub fn new(text: &'static str, owner: &'static str, has: &'static str) -> Self {
        Claims {
            text,
            owner,
            has,
            first: HashMap::new(),
        }
    }

    /// The label text of the field or variant `ident`: its `rename = "..."`, or else `derived`
    /// from its unraw name. Reported at the literal or the identifier, and `None`, when
    /// `validate` rejects it (with its message) or an earlier field or variant took it.
    pub fn take(
        &mut self,
        cx: &Ctxt,
        ident: &Ident,
        rename: Option<&LitStr>,
        derived: impl FnOnce(&str) -> String,
        validate: impl FnOnce(&str) -> Result<(), String>,
    ) -> Option<String> {
        let owner = ident.unraw().to_string();
        let (text, tokens) = match rename {
            Some(lit) => (lit.value(), lit.to_token_stream()),
            None => (derived(&owner), ident.to_token_stream()),
        };
        if let Err(message) = validate(&text) {
            cx.error_spanned_by(&tokens, message);
            return None;
        }
        if let Some(first) = self.first.get(&text) {
            let (what, owners, has) = (self.text, self.owner, self.has);
            cx.error_spanned_by(
                &tokens,
                format!("duplicate {what} `{text}`: {owners} `{first}` already {has} it; give one of them `#[label(rename = \"...\")]`"),
            );
            return None;
        }
        self.first.insert(text.clone(), owner);
        Some(text)
    }
}

/// `#[automatically_derived] impl #trait_path for #Input { #items }`, with the input's
/// generics. Inside the runtime crate the impl is also `#[diagnostic::do_not_recommend]`: an
/// error about a user's type that is not a label set should not list vLLM's label sets.
pub fn impl_for(input: &DeriveInput, trait_path: TokenStream, items: TokenStream) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let hidden =
        crate::manifest::in_runtime_crate().then(|| quote!(#[diagnostic::do_not_recommend]));
    quote! {
        #[automatically_derived]
        #hidden
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

/// The body of prometheus-client's `EncodeLabelValue::encode` for a fieldless enum: each of
/// `variants` writes its label value. A match of its own rather than a call of a trait method
/// (`LabelEnum::label_value`), which would need the enum to implement that trait's supertraits
/// (an enum missing `Copy` would be reported a second time).
pub fn encode_value_body<'a>(
    krate: &TokenStream,
    variants: impl Iterator<Item = (&'a Ident, &'a str)>,
) -> TokenStream {
    let (idents, values): (Vec<_>, Vec<_>) = variants.unzip();
    if idents.is_empty() {
        return quote!(match *self {});
    }
    quote! {
        let value = match self {
            #(Self::#idents => #values,)*
        };
        #krate::__private::std::fmt::Write::write_str(encoder, value)
    }
}

fn ident(name: &str) -> Ident {
    Ident::new(name, proc_macro2::Span::call_site())
}
