//! `#[derive(MetricHandles)]`: from a checked plan to the generated items (what it generates
//! for representative inputs is committed in `tests/expand/*.expanded.rs`). Every path is
//! fully qualified through the runtime crate (`crate = path` overrides it), so the user
//! imports nothing for the output.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{parse_quote, DeriveInput, Ident, WhereClause};

use crate::ast::Input;
use crate::buckets::{BucketSpec, GeneratorArg};
use crate::ctxt::Ctxt;
use crate::fallback;
use crate::respan::respan;
use crate::signature::{handles_doc, handles_ident, krate, labels_type, marker};
use crate::symbol::{COUNT, DOC, EXPONENTIAL, LINEAR};
use crate::ty;
use crate::valid::{self, MetricPlan};

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
    let krate = krate(input);
    let labels = labels_type(input, &krate);
    let ident = input.ident;
    let vis = input.vis;
    let handles = handles_ident(input);
    let generics = input.generics;
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let is_generic = !generics.params.is_empty();
    let (marker_decl, marker_init) = marker(input, &krate).unzip();

    let consts: Vec<Ident> = const_idents(plans);
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
    let mut handle_fields = Vec::new();
    let mut handle_clones = Vec::new();
    let mut ops_consts = Vec::new();
    let mut descriptors = Vec::new();
    let mut descriptor_refs = Vec::new();
    let mut inits = Vec::new();
    let mut resolves = Vec::new();
    let mut removes = Vec::new();
    let mut checks = Vec::new();
    for (plan, const_ident) in plans.iter().zip(&consts) {
        let field = plan.field.ident;
        let field_vis = plan.field.vis;
        let cfgs: Vec<_> = plan.field.cfgs().collect();
        let member = &plan.family.member;
        let docs: Vec<_> = plan
            .field
            .attrs
            .iter()
            .filter(|a| a.path() == DOC)
            .collect();
        let docs = if docs.is_empty() {
            let help = &plan.help;
            quote!(#[doc = #help])
        } else {
            quote!(#(#docs)*)
        };
        handle_fields.push(quote! {
            #(#cfgs)*
            #docs
            #field_vis #field: #member,
        });
        let ops = ops_ident(const_ident);
        let (field_ty, field_labels) = (plan.field.ty, &plan.family.labels);
        ops_consts.push(quote! {
            #(#cfgs)*
            #[doc(hidden)]
            const #ops: #krate::__private::FieldOps<#labels, #field_ty, #member> =
                #krate::__private::field_ops::<#labels, #field_ty, #field_labels, #member>();
        });
        handle_clones.push(quote! {
            #(#cfgs)*
            #field: (<#ident #ty_generics>::#ops.clone_member)(&self.#field),
        });
        let descriptor = descriptor(plan, &krate, const_ident);
        let parts = descriptor_parts(plan, &krate, const_ident);
        descriptors.push(quote! {
            #(#cfgs)*
            #parts
            #(#cfgs)*
            #[doc(hidden)]
            const #const_ident: #krate::MetricDescriptor = #descriptor;
        });
        descriptor_refs.push(quote!(#(#cfgs)* Self::#const_ident,));
        inits.push(quote! {
            #(#cfgs)*
            #field: (Self::#ops.register)(registry, &Self::#const_ident, options),
        });
        resolves.push(quote! {
            #(#cfgs)*
            #field: (Self::#ops.resolve)(&self.#field, labels),
        });
        removes.push(quote! {
            #(#cfgs)*
            let _ = (Self::#ops.remove)(&self.#field, labels);
        });
        for (n, check) in field_checks(plan, &krate, const_ident)
            .into_iter()
            .enumerate()
        {
            let check_ident = format_ident!("{}_CHECK_{}", const_ident, n);
            checks.push((cfgs.clone(), check_ident, check));
        }
    }

    let skipped_inits = input.fields.iter().filter(|f| f.is_skipped()).map(|f| {
        let (field, ty) = (f.ident, f.ty);
        let cfgs = f.cfgs();
        // At the field's type, where a type without `Default` is reported.
        let value = respan(quote!(#krate::__private::skipped_field::<), ty.span());
        let end = respan(quote!(>()), ty.span());
        quote!(#(#cfgs)* #field: #value #ty #end,)
    });
    let check_consts = checks.iter().map(|(cfgs, check_ident, check)| {
        quote! {
            #(#cfgs)*
            #[doc(hidden)]
            const #check_ident: () = #check;
        }
    });
    // A non-generic struct's checks run at definition time, whether or not `register` is ever
    // called; a generic struct's run when `try_register_with` is instantiated.
    let check_uses = is_generic.then(|| {
        let uses = checks
            .iter()
            .map(|(cfgs, check_ident, _)| quote!(#(#cfgs)* let () = Self::#check_ident;));
        quote!(#(#uses)*)
    });
    let eager_checks = (!is_generic).then(|| {
        let uses = checks
            .iter()
            .map(|(cfgs, check_ident, _)| quote!(#(#cfgs)* const _: () = #ident::#check_ident;));
        quote!(#(#uses)*)
    });

    // Names the struct in a `RegistrationError`, beside the field.
    let struct_name = ident.to_string();
    let handles_doc = handles_doc(input);
    let register_doc = format!(
        "Registers every metric of [`{ident}`] in `registry`, as declared.\n\n\
         Each field's family is registered under its `name` (and unit), with its help text."
    );
    let resolve_doc = format!(
        "Resolves every metric's series for `labels` once, into [`{handles}`].\n\n\
         This is the slow path (hash, lock, maybe allocate); recording through the returned \
         handles is atomic operations only. Call it once per label set and keep the result."
    );
    let bounded = bounded_where_clause(input, plans, &labels, &krate);
    let handles_debug = handles_debug(input, &handles, &bounded, plans);
    quote! {
        #handles_doc
        #vis struct #handles #generics #where_clause {
            #(#handle_fields)*
            #marker_decl
        }

        // By hand, not derived: a member type that is not a family member (reported once, by
        // `field_ops`) may not be `Clone` either.
        #[automatically_derived]
        impl #impl_generics ::core::clone::Clone for #handles #ty_generics #bounded {
            fn clone(&self) -> Self {
                #handles {
                    #(#handle_clones)*
                    #marker_init
                }
            }
        }

        #handles_debug

        impl #impl_generics #ident #ty_generics #bounded {
            #[doc(hidden)]
            const __METRIC_HANDLES_COMMON_LABELS: &'static [&'static str] = #common_keys;
            #(#ops_consts)*
            #(#descriptors)*
            #(#check_consts)*

            /// Every metric this struct registers, in field order: names, kinds, help, labels
            /// and buckets, for documentation and tests.
            pub const DESCRIPTORS: &'static [#krate::MetricDescriptor] = &[#(#descriptor_refs)*];

            #[doc = #register_doc]
            ///
            /// # Panics
            ///
            /// If a name this struct exposes is already exposed by `registry` (the same struct
            /// registered twice, or another metric whose samples would collide with these);
            /// [`Self::try_register`] returns that error instead.
            pub fn register(registry: &mut #krate::Registry) -> Self {
                Self::register_with(registry, &#krate::RegisterOptions::new())
            }

            /// Registers every metric in `registry`, with run-time `options` (bucket, position
            /// and series-limit overrides, deprecated names to show).
            ///
            /// # Panics
            ///
            /// As [`Self::register`]; [`Self::try_register_with`] returns the error instead.
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
                #check_uses
                #krate::__private::std::result::Result::Ok(Self {
                    #(#inits)*
                    #(#skipped_inits)*
                })
            }

            #[doc = #resolve_doc]
            pub fn resolve(&self, labels: &#labels) -> #handles #ty_generics {
                #handles {
                    #(#resolves)*
                    #marker_init
                }
            }

            /// Removes every series of `labels` from the exposition (an engine that left).
            /// Handles resolved earlier keep working but are no longer exported.
            pub fn remove(&self, labels: &#labels) {
                #(#removes)*
            }
        }

        #eager_checks
    }
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
    plans: &[MetricPlan],
) -> TokenStream {
    let ident = input.ident;
    let (impl_generics, ty_generics, _) = input.generics.split_for_impl();
    let krate = krate(input);
    let name = handles.unraw().to_string();
    let fields = plans
        .iter()
        .zip(const_idents(plans))
        .map(|(plan, const_ident)| {
            let field = plan.field.ident;
            let shown = field.unraw().to_string();
            let cfgs = plan.field.cfgs();
            let ops = ops_ident(&const_ident);
            quote! {
                #(#cfgs)*
                debug.field(
                    #shown,
                    &#krate::__private::DebugMember(
                        &self.#field,
                        <#ident #ty_generics>::#ops.debug_member,
                    ),
                );
            }
        });
    quote! {
        #[automatically_derived]
        impl #impl_generics ::core::fmt::Debug for #handles #ty_generics #bounded {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                let debug = &mut f.debug_struct(#name);
                #(#fields)*
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
            quote!(#krate::FamilyMember),
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

/// The associated constant holding a field's [`field_ops`] result.
fn ops_ident(const_ident: &Ident) -> Ident {
    format_ident!("{}_OPS", const_ident)
}

/// `__METRIC_HANDLES_{FIELD}`, made unique if two fields differ only in case.
fn const_idents(plans: &[MetricPlan]) -> Vec<Ident> {
    let mut seen = std::collections::HashSet::new();
    plans
        .iter()
        .enumerate()
        .map(|(i, plan)| {
            let field = plan.field.ident.unraw().to_string().to_ascii_uppercase();
            let mut name = format!("__METRIC_HANDLES_{field}");
            if !seen.insert(name.clone()) {
                name = format!("{name}_{i}");
            }
            Ident::new(&name, Span::call_site())
        })
        .collect()
}

/// The declared position count, 0 when not given.
fn positions(plan: &MetricPlan) -> TokenStream {
    plan.positions
        .clone()
        .unwrap_or_else(|| Literal::usize_unsuffixed(0).into_token_stream())
}

/// The descriptor's helper constants: the grid's axes (when the field names axis keys), and a
/// bucket constant as a slice (whether the user declared it as an array or a slice). Both must
/// be associated constants so their temporaries live for `'static`.
fn descriptor_parts(plan: &MetricPlan, krate: &TokenStream, const_ident: &Ident) -> TokenStream {
    let mut parts = TokenStream::new();
    if !plan.axis_keys.is_empty() {
        let ops = ops_ident(const_ident);
        let shape = quote!(Self::#ops.axis);
        let positions = positions(plan);
        let grid_const = format_ident!("{}_GRID", const_ident);
        let grid = plan
            .axis_keys
            .iter()
            .enumerate()
            .map(|(i, key)| quote!(#krate::__private::grid_axis(#shape, #i, #key, #positions)));
        parts.extend(quote! {
            #[doc(hidden)]
            const #grid_const: &'static [#krate::LabelAxis] = &[#(#grid),*];
        });
    }
    if let Some(BucketSpec::Const(path)) = &plan.buckets {
        let bounds_const = format_ident!("{}_BOUNDS", const_ident);
        let bounds = respan(quote!(&#path), path.span());
        parts.extend(quote! {
            #[doc(hidden)]
            const #bounds_const: &'static [f64] = #bounds;
        });
    }
    parts
}

fn descriptor(plan: &MetricPlan, krate: &TokenStream, const_ident: &Ident) -> TokenStream {
    let name = &plan.name;
    let field = plan.field.ident.unraw().to_string();
    let member = &plan.family.member;
    let ops = ops_ident(const_ident);
    let kind = quote!(Self::#ops.kind);
    let value_type = ty::render(member);
    let help = &plan.help;
    let option = quote!(#krate::__private::std::option::Option);
    let unit = match &plan.unit {
        Some(unit) => quote!(#option::Some(#unit)),
        None => quote!(#option::None),
    };
    let shape = quote!(Self::#ops.axis);
    let keys = &plan.axis_keys;
    let positions = positions(plan);
    // Without keys there is no grid to describe (a grid member without keys fails a check).
    let grid = if keys.is_empty() {
        quote!(&[])
    } else {
        let grid_const = format_ident!("{}_GRID", const_ident);
        quote!(Self::#grid_const)
    };
    let axis = quote! {
        #krate::__private::describe_axis(#shape, &[#(#keys),*], #grid, #positions)
    };
    let buckets = match &plan.buckets {
        Some(spec) => {
            let spec = buckets(spec, krate, const_ident);
            quote!(#option::Some(#spec))
        }
        None => quote!(#option::None),
    };
    let max_series = match &plan.max_series {
        Some(max) => max.clone(),
        None => quote!(#krate::DEFAULT_MAX_SERIES),
    };
    let max_label_sets = match &plan.max_label_sets {
        Some(max) => max.clone(),
        None => quote!(#krate::DEFAULT_MAX_LABEL_SETS),
    };
    let aliases = plan
        .aliases
        .iter()
        .map(|(name, version)| quote!(#krate::Alias { name: #name, deprecated_in: #version }));
    quote! {
        #krate::MetricDescriptor {
            name: #name,
            field: #field,
            kind: #kind,
            value_type: #value_type,
            help: #help,
            unit: #unit,
            common_labels: Self::__METRIC_HANDLES_COMMON_LABELS,
            axis: #axis,
            buckets: #buckets,
            max_series: #max_series,
            max_label_sets: #max_label_sets,
            aliases: &[#(#aliases),*],
        }
    }
}

/// Compile-time checks the macro cannot make itself, as `const` expressions of type `()`.
///
/// The member's kind and axis come from `<M as FamilyMember>::KIND` and `::AXIS`, so these
/// checks hold for a type alias or a member type of the user's own just as for the spelled
/// types (whose mistakes the macro already reported, on the user's tokens). Each message names
/// the field and the rule.
fn field_checks(plan: &MetricPlan, krate: &TokenStream, const_ident: &Ident) -> Vec<TokenStream> {
    let member = &plan.family.member;
    let field = plan.field.ident.unraw().to_string();
    let shown = ty::render(member);
    let ops = ops_ident(const_ident);
    let kind = quote!(Self::#ops.kind);
    let shape = quote!(Self::#ops.axis);
    let at_member = |check: TokenStream| respan(check, member.span());
    let mut checks = Vec::new();
    let common = quote!(Self::__METRIC_HANDLES_COMMON_LABELS);
    for key in &plan.axis_keys {
        checks.push(respan(
            quote!(#krate::__private::assert_axis_key_is_free(#common, #key)),
            key.span(),
        ));
    }
    checks.push(at_member(quote! {
        #krate::__private::assert_axis_keys_are_free(
            #common,
            #krate::__private::dynamic_keys(#shape),
        )
    }));
    if let Some(spec @ BucketSpec::Generator { args, span, .. }) = &plan.buckets {
        let value = buckets(spec, krate, const_ident);
        let span = args
            .iter()
            .find_map(|(_, arg)| match arg {
                GeneratorArg::Const(path) => Some(path.span()),
                GeneratorArg::Literal(_) => None,
            })
            .unwrap_or(*span);
        checks.push(respan(
            quote!(#krate::__private::assert_valid_generator(#value)),
            span,
        ));
    }
    if let Some(BucketSpec::Const(path)) = &plan.buckets {
        let name = quote!(#path).to_string().replace(' ', "");
        let bounds_const = format_ident!("{}_BOUNDS", const_ident);
        checks.push(respan(
            quote!(#krate::__private::assert_valid_buckets(#name, Self::#bounds_const)),
            path.span(),
        ));
    }
    if plan.family.leaf.is_none() {
        let names = std::iter::once(&plan.name).chain(plan.aliases.iter().map(|(name, _)| name));
        for name in names.filter(|name| name.value().ends_with("_total")) {
            let message = format!(
                "field `{field}` is a counter (`{shown}`), and its name `{}` ends with `_total`, which prometheus-client appends to counters: write `\"{}\"`",
                name.value(),
                name.value().trim_end_matches("_total")
            );
            checks.push(respan(
                quote!(if #krate::__private::is_counter(#kind) { ::core::panic!(#message) }),
                name.span(),
            ));
        }
        if plan.buckets.is_some() {
            let message = format!(
                "field `{field}`: `buckets` only applies to histograms, and `{shown}` is not one: remove `buckets`"
            );
            checks.push(at_member(
                quote!(if !#krate::__private::is_histogram(#kind) { ::core::panic!(#message) }),
            ));
        } else {
            let message = format!(
                "field `{field}`: `{shown}` is a histogram and needs buckets: add e.g. `buckets = [0.1, 0.5, 1.0]` or `buckets = exponential(start = 0.001, factor = 2.0, count = 16)`"
            );
            checks.push(at_member(
                quote!(if #krate::__private::is_histogram(#kind) { ::core::panic!(#message) }),
            ));
        }
    }
    if plan.family.axis.is_none() {
        let given = plan.axis_keys.len();
        let message = if given == 0 {
            format!("field `{field}`: `{shown}` has a fixed label axis: name its key with `#[metric(label = \"...\")]`, one key per axis (`label = [\"a\", \"b\"]`)")
        } else {
            format!("field `{field}`: `label = ...` names {given} key(s), and `{shown}` has another number of fixed axes: give one key per `ByLabel`/`ByPosition`/`ByLabels` axis, none for a plain or `Dynamic` member")
        };
        checks.push(at_member(
            quote!(if #shape.label_keys() != #given { ::core::panic!(#message) }),
        ));
        if plan.max_series.is_some() {
            let message = format!(
                "field `{field}`: `max_series` limits the series an axis creates per label set, and `{shown}` has no axis: to limit how many label sets the family holds write `max_label_sets = N`"
            );
            checks.push(at_member(quote!(
                if ::core::matches!(#shape, #krate::AxisShape::None) {
                    ::core::panic!(#message)
                }
            )));
        }
        if plan.positions.is_some() {
            let message = format!(
                "field `{field}`: `positions` only applies to a position axis, and `{shown}` has none: remove `positions`"
            );
            checks.push(at_member(
                quote!(if !#shape.has_position() { ::core::panic!(#message) }),
            ));
        }
    }
    let positions = positions(plan);
    let max_series = match &plan.max_series {
        Some(max) => max.clone(),
        None => quote!(#krate::DEFAULT_MAX_SERIES),
    };
    checks.push(at_member(quote! {
        #krate::__private::assert_fits_max_series(#field, #shape, #positions, #max_series)
    }));
    checks
}

/// A `Buckets` value.
fn buckets(spec: &BucketSpec, krate: &TokenStream, const_ident: &Ident) -> TokenStream {
    match spec {
        BucketSpec::Explicit(bounds) => {
            let bounds = bounds.iter().map(|b| float(*b));
            quote!(#krate::Buckets::Explicit(&[#(#bounds),*]))
        }
        BucketSpec::Const(_) => {
            let bounds_const = format_ident!("{}_BOUNDS", const_ident);
            quote!(#krate::Buckets::Explicit(Self::#bounds_const))
        }
        BucketSpec::Generator {
            generator, args, ..
        } => {
            let fields = args.iter().map(|(symbol, arg)| {
                let name = format_ident!("{}", symbol.as_str());
                let value = match arg {
                    GeneratorArg::Literal(value) if *symbol == COUNT => {
                        // Checked to be an integer from 1 to 256.
                        let literal = Literal::u16_unsuffixed(*value as u16);
                        quote!(#literal)
                    }
                    GeneratorArg::Literal(value) => float(*value),
                    GeneratorArg::Const(path) if *symbol == COUNT => respan(
                        quote!(#krate::__private::bucket_count(#path as u128)),
                        path.span(),
                    ),
                    GeneratorArg::Const(path) => quote!(#path),
                };
                quote!(#name: #value)
            });
            let variant = if *generator == EXPONENTIAL {
                quote!(Exponential)
            } else if *generator == LINEAR {
                quote!(Linear)
            } else {
                quote!(OneTwoFive)
            };
            quote!(#krate::Buckets::#variant { #(#fields),* })
        }
    }
}

/// An `f64` literal. Values are checked finite before they get here; a non-finite one (which
/// `Literal` would panic on) is emitted as a path so the macro itself cannot panic.
fn float(value: f64) -> TokenStream {
    if !value.is_finite() {
        return quote!(::core::f64::NAN);
    }
    let literal = Literal::f64_unsuffixed(value.abs());
    if value.is_sign_negative() {
        quote!(-#literal)
    } else {
        quote!(#literal)
    }
}
