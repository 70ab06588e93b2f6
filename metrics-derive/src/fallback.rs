//! Output on error: the items the user's other code refers to, with their real signatures and
//! stub bodies, so the only errors the user sees are the ones the derive reported (thiserror's
//! `fallback.rs`). The stubs are never run: the crate does not compile until the errors are
//! fixed.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::DeriveInput;

use crate::ast::Input;
use crate::signature::{
    handle_field_attrs, handles_attrs, handles_ident, krate, labels_type, marker,
};

/// Stubs for `#[derive(MetricHandles)]`.
pub fn metric_handles(derive: &DeriveInput, input: Option<&Input>) -> TokenStream {
    // Not a struct: there is nothing sensible to stub (no fields, no handles).
    let Some(input) = input else {
        return TokenStream::new();
    };
    let ident = &derive.ident;
    let (impl_generics, ty_generics, where_clause) = derive.generics.split_for_impl();
    let generics = &derive.generics;
    let vis = &derive.vis;
    let krate = krate(input);
    let handles = handles_ident(input);
    // The labels type is only trusted when the container attribute parsed; otherwise
    // `resolve`/`remove` accept any label set, so call sites do not report a second error.
    let labels = input.container.parsed.then(|| labels_type(input, &krate));
    // Every metric field is declared, so uses of `handles.field` report nothing more: with
    // the member type as written when the field's type could be read, else a placeholder.
    let fields = input
        .fields
        .iter()
        .filter(|f| !f.is_skipped())
        .map(|field| {
            let (field_ident, field_vis) = (field.ident, field.vis);
            let stub = field
                .unreadable
                .as_ref()
                .and_then(|u| u.stub_member.as_ref());
            let member = match (&field.family, stub) {
                (Some(family), _) => family.member.to_token_stream(),
                (None, Some(member)) => member.to_token_stream(),
                (None, None) => quote!(#krate::__private::Unresolved),
            };
            let attrs = handle_field_attrs(field);
            quote!(#attrs #field_vis #field_ident: #member,)
        });
    let (marker_decl, _) = marker(input, &krate).unzip();
    let doc = handles_attrs(input);
    let methods = methods(&krate, &handles, &quote!(#ty_generics), labels.as_ref());
    // A type the compiler rejects by itself still goes through a check that fails for any
    // type but a `Family`: should the compiler accept it after all (a type of the user's own
    // named `Family`), the stubs must not compile without an error.
    let compiler_checks = input
        .fields
        .iter()
        .filter(|f| f.unreadable.as_ref().is_some_and(|u| u.compiler_reports))
        .enumerate()
        .map(|(i, field)| {
            let (ty, check) = (
                field.ty,
                quote::format_ident!("__METRIC_HANDLES_FAMILY_CHECK_{i}"),
            );
            quote! {
                #[doc(hidden)]
                #[allow(dead_code)]
                const #check: () = #krate::__private::assert_family::<#ty>();
            }
        });
    // `Clone` and `Debug` by hand: a member type the derive rejected may not implement them.
    quote! {
        #doc
        #vis struct #handles #generics #where_clause {
            #(#fields)*
            #marker_decl
        }

        impl #impl_generics ::core::clone::Clone for #handles #ty_generics #where_clause {
            fn clone(&self) -> Self {
                ::core::unimplemented!("metric-handles: fix the errors above")
            }
        }

        impl #impl_generics ::core::fmt::Debug for #handles #ty_generics #where_clause {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(::core::stringify!(#handles))
            }
        }

        impl #impl_generics #ident #ty_generics #where_clause {
            #methods
            #(#compiler_checks)*
        }
    }
}

fn methods(
    krate: &TokenStream,
    handles: &syn::Ident,
    ty_generics: &TokenStream,
    labels: Option<&TokenStream>,
) -> TokenStream {
    let (generic, sized_generic, labels) = match labels {
        Some(labels) => (quote!(), quote!(), labels.clone()),
        None => (
            quote!(<__MetricHandlesLabels: ?Sized>),
            quote!(<__MetricHandlesLabels>),
            quote!(__MetricHandlesLabels),
        ),
    };
    quote! {
        /// Every metric this struct registers (empty: the derive reported errors).
        pub const DESCRIPTORS: &'static [#krate::descriptor::MetricDescriptor] = &[];

        /// Registers every metric (stub: the derive reported errors).
        pub fn register(registry: &mut #krate::Registry) -> Self {
            let _ = registry;
            ::core::unimplemented!("metric-handles: fix the errors above")
        }

        /// Registers every metric with options (stub: the derive reported errors).
        pub fn register_with(
            registry: &mut #krate::Registry,
            options: &#krate::RegisterOptions,
        ) -> Self {
            let _ = (registry, options);
            ::core::unimplemented!("metric-handles: fix the errors above")
        }

        /// Registers every metric, or fails (stub: the derive reported errors).
        pub fn try_register(
            registry: &mut #krate::Registry,
        ) -> ::core::result::Result<Self, #krate::RegistrationError> {
            let _ = registry;
            ::core::unimplemented!("metric-handles: fix the errors above")
        }

        /// Registers every metric with options, or fails (stub: the derive reported errors).
        pub fn try_register_with(
            registry: &mut #krate::Registry,
            options: &#krate::RegisterOptions,
        ) -> ::core::result::Result<Self, #krate::RegistrationError> {
            let _ = (registry, options);
            ::core::unimplemented!("metric-handles: fix the errors above")
        }

        /// Registers every metric in a set of run-time families, or fails (stub: the derive
        /// reported errors).
        pub fn try_register_in #sized_generic (
            families: &#krate::family::RuntimeFamilies<#labels>,
        ) -> ::core::result::Result<Self, #krate::RegistrationError> {
            let _ = families;
            ::core::unimplemented!("metric-handles: fix the errors above")
        }

        /// Resolves the handles of `labels` (stub: the derive reported errors).
        pub fn resolve #generic (&self, labels: &#labels) -> #handles #ty_generics {
            let _ = labels;
            ::core::unimplemented!("metric-handles: fix the errors above")
        }

        /// Removes the series of `labels` (stub: the derive reported errors).
        pub fn remove #generic (&self, labels: &#labels) {
            let _ = labels;
            ::core::unimplemented!("metric-handles: fix the errors above")
        }
    }
}
