//! `#[derive(MetricHandles)]`: from a checked plan to the generated items (what it generates
//! for representative inputs is committed in `tests/expand/*.expanded.rs`). Every path is
//! fully qualified through the runtime crate (`crate = path` overrides it), so the user
//! imports nothing for the output.
//!
//! Each metric field expands on its own, into its share of every generated item
//! ([`field::FieldItems`]); this module writes the items around those shares, once.

mod field;

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{parse_quote, DeriveInput, Ident, WhereClause};

use crate::ast::Input;
use crate::ctxt::Ctxt;
use crate::fallback;
use crate::respan::respan;
use crate::signature::{handles_attrs, handles_ident, marker};
use crate::valid::{self, MetricPlan};
use field::{const_idents, FieldItems, Names};

/// The whole derive: parse, check, then generate or fall back.
pub fn derive(input: TokenStream) -> TokenStream {
    let input: DeriveInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(error) => return error.to_compile_error(),
    };
    let cx = Ctxt::new();
    let model = Input::from_syn(&cx, &input);
    let plans = match &model {
        Some(model) => valid::check(&cx, model),
        None => Vec::new(),
    };
    match (cx.check(), &model) {
        (Ok(()), Some(model)) if model.compiler_reports() => {
            fallback::metric_handles(&input, Some(model))
        }
        (Ok(()), Some(model)) => generate(model, &plans),
        (Err(errors), model) => {
            let mut output = errors.to_compile_error();
            output.extend(fallback::metric_handles(&input, model.as_ref()));
            output
        }
        // `from_syn` reports an error whenever it returns `None`.
        (Ok(()), None) => fallback::metric_handles(&input, None),
    }
}

fn generate(input: &Input, plans: &[MetricPlan]) -> TokenStream {
    let names = Names::of(input);
    let Names {
        krate,
        labels,
        ident,
        ..
    } = &names;
    let vis = input.vis;
    let handles = handles_ident(input);
    let generics = input.generics;
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let (marker_decl, marker_init) = marker(input, krate).unzip();
    let FieldItems {
        handle_fields,
        clones,
        debug_fields,
        ops_consts,
        descriptor_consts,
        check_consts,
        descriptors,
        registers,
        registers_in,
        resolves,
        info_reads,
        removes,
        run_checks,
        eager_checks,
    } = plans
        .iter()
        .zip(const_idents(plans))
        .map(|(plan, const_ident)| FieldItems::of(&names, plan, &const_ident))
        .collect();
    let skipped_inits = skipped_inits(input, krate);

    // Every requirement on the user's types is a bound of `field_ops`, called once per field
    // (and once for the label keys): see the runtime's `field_ops.rs`.
    let common_keys = quote! {
        #krate::__private::field_ops::<
            #labels,
            #krate::Family<#labels, #krate::Counter>,
            #labels,
            #krate::Counter,
        >().common_keys
    };
    // Names the struct in a `RegistrationError`, beside the field.
    let struct_name = ident.to_string();
    let handles_attrs = handles_attrs(input);
    let register_doc = format!(
        "Registers every metric of [`{ident}`] in `registry`, as declared.\n\n\
         Each field's family is registered under its `name` (and unit), with its help text."
    );
    let resolve_doc = format!(
        "Resolves every metric's series for `labels` once, into [`{handles}`].\n\n\
         This is the slow path (hash, lock, maybe allocate); recording through the returned \
         handles is atomic operations only. Call it once per label set and keep the result."
    );
    let handles_init = quote! {
        #handles {
            #resolves
            #marker_init
        }
    };
    // The reads of the info handles need the handles in a binding (see `info_read`).
    let resolve_body = if info_reads.is_empty() {
        handles_init
    } else {
        quote! {
            let handles = #handles_init;
            #info_reads
            handles
        }
    };
    let bounded = bounded_where_clause(input, plans, labels, krate);
    let handles_debug = handles_debug(input, &handles, &bounded, debug_fields);
    quote! {
        #handles_attrs
        #vis struct #handles #generics #where_clause {
            #handle_fields
            #marker_decl
        }

        // By hand, not derived: a member type that is not a family member (reported once, by
        // `field_ops`) may not be `Clone` either.
        #[automatically_derived]
        impl #impl_generics ::core::clone::Clone for #handles #ty_generics #bounded {
            fn clone(&self) -> Self {
                #handles {
                    #clones
                    #marker_init
                }
            }
        }

        #handles_debug

        impl #impl_generics #ident #ty_generics #bounded {
            #[doc(hidden)]
            const __METRIC_HANDLES_COMMON_LABELS: &'static [&'static str] = #common_keys;
            #ops_consts
            #descriptor_consts
            #check_consts

            /// Every metric this struct registers, in field order: names, kinds, help, labels
            /// and buckets, for documentation and tests.
            pub const DESCRIPTORS: &'static [#krate::descriptor::MetricDescriptor] = &[#descriptors];

            #[doc = #register_doc]
            ///
            /// # Panics
            ///
            /// If a name this struct exposes is already exposed by `registry` (the same struct
            /// registered twice, or another metric whose samples would collide with these);
            /// [`Self::try_register`] returns that error instead.
            #[track_caller]
            pub fn register(registry: &mut #krate::Registry) -> Self {
                Self::register_with(registry, &#krate::RegisterOptions::new())
            }

            /// Registers every metric in `registry`, with run-time `options` (bucket, position
            /// and series-limit overrides, deprecated names to show).
            ///
            /// # Panics
            ///
            /// As [`Self::register`]; [`Self::try_register_with`] returns the error instead.
            /// The panic reports the line of the call.
            #[track_caller]
            pub fn register_with(
                registry: &mut #krate::Registry,
                options: &#krate::RegisterOptions,
            ) -> Self {
                match Self::try_register_with(registry, options) {
                    #krate::__private::std::result::Result::Ok(metrics) => metrics,
                    #krate::__private::std::result::Result::Err(error) => {
                        #krate::__private::std::panic!("{}", error)
                    }
                }
            }

            /// Registers every metric in `registry`, as declared, unless a name this struct
            /// exposes (a family name, or a sample name such as `_total`, `_count`, `_bucket`)
            /// is already exposed by `registry`: then nothing is registered and the error says
            /// which names collide.
            pub fn try_register(
                registry: &mut #krate::Registry,
            ) -> #krate::__private::std::result::Result<Self, #krate::RegistrationError> {
                Self::try_register_with(registry, &#krate::RegisterOptions::new())
            }

            /// [`Self::try_register`] with run-time `options`.
            pub fn try_register_with(
                registry: &mut #krate::Registry,
                options: &#krate::RegisterOptions,
            ) -> #krate::__private::std::result::Result<Self, #krate::RegistrationError> {
                #krate::__private::check_registration(registry, #struct_name, Self::DESCRIPTORS, options)?;
                #run_checks
                #krate::__private::std::result::Result::Ok(Self {
                    #registers
                    #skipped_inits
                })
            }

            /// Registers every metric in `families`, a set of families registered at run
            /// time (the families a plug-in adds to a registry already serving `/metrics`),
            /// unless a name this struct exposes is already exposed by the set's registry or
            /// reserved in the set: then nothing is registered and the error says which names
            /// collide.
            ///
            /// The families are the set's: each gets the series of every common label set
            /// declared present (`RuntimeFamilies::add_common`), now and later, as
            /// [`Self::resolve`] creates them, and loses them with
            /// `RuntimeFamilies::remove_common`. Resolve handles with [`Self::resolve`], as
            /// for a struct registered in a registry.
            pub fn try_register_in(
                families: &#krate::family::RuntimeFamilies<#labels>,
            ) -> #krate::__private::std::result::Result<Self, #krate::RegistrationError> {
                let declared =
                    #krate::__private::DeclaredFamilies::claim(families, #struct_name, Self::DESCRIPTORS)?;
                let declared = &declared;
                let options = &#krate::RegisterOptions::new();
                #run_checks
                #krate::__private::std::result::Result::Ok(Self {
                    #registers_in
                    #skipped_inits
                })
            }

            #[doc = #resolve_doc]
            pub fn resolve(&self, labels: &#labels) -> #handles #ty_generics {
                #resolve_body
            }

            /// Removes every series of `labels` from the exposition (an engine that left).
            /// Handles resolved earlier keep working but are no longer exported.
            pub fn remove(&self, labels: &#labels) {
                #removes
            }
        }

        #eager_checks
    }
}

/// The initialisers of the `#[metric(skip)]` fields: `Default::default()`, through a helper
/// spanned at the field's type, where a type without `Default` is reported.
fn skipped_inits(input: &Input, krate: &TokenStream) -> TokenStream {
    input
        .fields
        .iter()
        .filter(|f| f.is_skipped())
        .map(|f| {
            let (field, ty) = (f.ident, f.ty);
            let cfgs = f.cfgs();
            let value = respan(quote!(#krate::__private::skipped_field::<), ty.span());
            let end = respan(quote!(>()), ty.span());
            quote!(#(#cfgs)* #field: #value #ty #end,)
        })
        .collect()
}

/// `Debug` for the handles struct: one field per metric, as `#[derive(Debug)]` would print
/// them, without the generic struct's marker (not data), each member printed through its
/// field's operations (so a member type that is not `Debug` is not reported again). Marked
/// `automatically_derived`, as a derived impl is, so a handle never read is still reported by
/// the dead-code lint (which ignores such impls' reads).
fn handles_debug(
    input: &Input,
    handles: &Ident,
    bounded: &WhereClause,
    fields: TokenStream,
) -> TokenStream {
    let (impl_generics, ty_generics, _) = input.generics.split_for_impl();
    let name = handles.unraw().to_string();
    quote! {
        #[automatically_derived]
        impl #impl_generics ::core::fmt::Debug for #handles #ty_generics #bounded {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                let debug = &mut f.debug_struct(#name);
                #fields
                debug.finish()
            }
        }
    }
}

/// The struct's where-clause, plus the bounds its type parameters need for the generated
/// items: `L: LabelSet` when the label set names a parameter (`labels = L`), `M: FamilyMember`
/// when a member does (`ByLabel<E, Counter>`). So a generic struct needs no bound of its own,
/// and one that has them is not reported for lacking them.
fn bounded_where_clause(
    input: &Input,
    plans: &[MetricPlan],
    labels: &TokenStream,
    krate: &TokenStream,
) -> WhereClause {
    let params: Vec<&Ident> = input.generics.type_params().map(|p| &p.ident).collect();
    let mut clause = input
        .generics
        .where_clause
        .clone()
        .unwrap_or_else(|| parse_quote!(where));
    let mut seen = std::collections::HashSet::new();
    let mut bound = |ty: TokenStream, trait_path: TokenStream| {
        if mentions(&ty, &params) && seen.insert(ty.to_string()) {
            clause.predicates.push(parse_quote!(#ty: #trait_path));
        }
    };
    bound(labels.clone(), quote!(#krate::LabelSet));
    for plan in plans {
        bound(
            plan.family.member.to_token_stream(),
            quote!(#krate::member::FamilyMember),
        );
    }
    clause
}

/// Whether `tokens` name one of `params`.
fn mentions(tokens: &TokenStream, params: &[&Ident]) -> bool {
    tokens.clone().into_iter().any(|tree| match tree {
        proc_macro2::TokenTree::Ident(ident) => params.iter().any(|p| **p == ident),
        proc_macro2::TokenTree::Group(group) => mentions(&group.stream(), params),
        _ => false,
    })
}
