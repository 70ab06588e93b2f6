//! `#[derive(MetricHandles)]`: from a checked plan to the generated items (the shape is fixed
//! by `metrics-runtime/tests/hand_expanded.rs`). Every path is fully qualified through the
//! runtime crate (`crate = path` overrides it), so the user imports nothing for the output.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::spanned::Spanned;
use syn::{DeriveInput, GenericParam, Ident};

use crate::ast::Input;
use crate::buckets::BucketSpec;
use crate::ctxt::Ctxt;
use crate::fallback;
use crate::respan::respan;
use crate::symbol::DOC;
use crate::ty::{self, Axis};
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

/// The name of the handles struct: `handles = X`, or `{Struct}Handles`.
pub fn handles_ident(input: &Input) -> Ident {
    match &input.container.handles {
        Some(ident) => ident.clone(),
        None => format_ident!("{}Handles", input.ident),
    }
}

/// A hidden field that uses every type and lifetime parameter, so a generic metrics struct
/// whose parameters only appear in `Family<L, _>` still yields a valid handles struct.
pub fn marker(input: &Input, krate: &TokenStream) -> Option<(TokenStream, TokenStream)> {
    let used: Vec<TokenStream> = input
        .generics
        .params
        .iter()
        .filter_map(|param| match param {
            GenericParam::Type(t) => Some(t.ident.to_token_stream()),
            GenericParam::Lifetime(l) => {
                let lifetime = &l.lifetime;
                Some(quote!(&#lifetime ()))
            }
            GenericParam::Const(_) => None,
        })
        .collect();
    if used.is_empty() {
        return None;
    }
    let decl = quote! {
        #[doc(hidden)]
        __metric_handles_marker: #krate::__private::std::marker::PhantomData<fn() -> (#(#used,)*)>,
    };
    let init = quote! {
        __metric_handles_marker: #krate::__private::std::marker::PhantomData,
    };
    Some((decl, init))
}

/// The handles struct's own doc: a fixed first line, then the metrics struct's doc.
pub fn handles_doc(input: &Input) -> TokenStream {
    let summary = format!("Cached handles of [`{}`] for one label set.", input.ident);
    let docs = input.attrs.iter().filter(|a| a.path() == DOC);
    quote! {
        #[doc = #summary]
        #[doc = ""]
        #(#docs)*
    }
}

fn generate(input: &Input, plans: &[MetricPlan]) -> TokenStream {
    let krate = valid::krate(input);
    let labels = valid::labels_type(input, &krate);
    let ident = input.ident;
    let vis = input.vis;
    let handles = handles_ident(input);
    let generics = input.generics;
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let is_generic = !generics.params.is_empty();
    let (marker_decl, marker_init) = marker(input, &krate).unzip();

    let consts: Vec<Ident> = const_idents(plans);
    let mut handle_fields = Vec::new();
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
        let descriptor = descriptor(plan, &krate, &labels);
        descriptors.push(quote! {
            #(#cfgs)*
            #[doc(hidden)]
            const #const_ident: #krate::MetricDescriptor = #descriptor;
        });
        descriptor_refs.push(quote!(#(#cfgs)* Self::#const_ident,));
        // The calls are located at the member type, where a type that is not a family member
        // is reported.
        let register = respan(
            quote!(#krate::Family::register(registry, &Self::#const_ident, options)),
            member.span(),
        );
        inits.push(quote! {
            #(#cfgs)*
            #field: #register,
        });
        // Spanned on the field's `L`, so a label set that differs from the struct's `labels`
        // is reported at the field (one error: resolve and remove produce the same one).
        let field_labels = &plan.family.labels;
        let same_labels = respan(
            quote!(#krate::__private::same_labels::<#field_labels, _>(labels)),
            field_labels.span(),
        );
        let resolve = call_at(quote!(self.#field.resolve), &same_labels, member.span());
        let remove = call_at(quote!(self.#field.remove), &same_labels, member.span());
        resolves.push(quote! {
            #(#cfgs)*
            #field: #resolve,
        });
        removes.push(quote! {
            #(#cfgs)*
            {
                let _ = #remove;
            }
        });
        for (n, check) in field_checks(plan, &krate, &labels).into_iter().enumerate() {
            let check_ident = format_ident!("{}_CHECK_{}", const_ident, n);
            checks.push((cfgs.clone(), check_ident, check));
        }
    }

    let skipped_inits = input.fields.iter().filter(|f| f.is_skipped()).map(|f| {
        let field = f.ident;
        let cfgs = f.cfgs();
        quote!(#(#cfgs)* #field: #krate::__private::std::default::Default::default(),)
    });
    let check_consts = checks.iter().map(|(cfgs, check_ident, check)| {
        quote! {
            #(#cfgs)*
            #[doc(hidden)]
            const #check_ident: () = #check;
        }
    });
    let check_uses = checks
        .iter()
        .map(|(cfgs, check_ident, _)| quote!(#(#cfgs)* let () = Self::#check_ident;));
    // A non-generic struct's checks also run at definition time, whether or not `register` is
    // ever called; a generic struct's run when `register_with` is instantiated.
    let eager_checks = (!is_generic).then(|| {
        let uses = checks
            .iter()
            .map(|(cfgs, check_ident, _)| quote!(#(#cfgs)* const _: () = #ident::#check_ident;));
        quote!(#(#uses)*)
    });

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
    quote! {
        #handles_doc
        #[derive(Clone, Debug)]
        #vis struct #handles #generics #where_clause {
            #(#handle_fields)*
            #marker_decl
        }

        impl #impl_generics #ident #ty_generics #where_clause {
            #(#descriptors)*
            #(#check_consts)*

            /// Every metric this struct registers, in field order: names, kinds, help, labels
            /// and buckets, for documentation and tests.
            pub const DESCRIPTORS: &'static [#krate::MetricDescriptor] = &[#(#descriptor_refs)*];

            #[doc = #register_doc]
            pub fn register(registry: &mut #krate::__private::Registry) -> Self {
                Self::register_with(registry, &#krate::RegisterOptions::new())
            }

            /// Registers every metric in `registry`, with run-time `options` (bucket, position
            /// and series-limit overrides, deprecated names to show).
            pub fn register_with(
                registry: &mut #krate::__private::Registry,
                options: &#krate::RegisterOptions,
            ) -> Self {
                #(#check_uses)*
                Self {
                    #(#inits)*
                    #(#skipped_inits)*
                }
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

/// `callee(args)`, located at `span` except for `args`, which keep their own spans.
fn call_at(callee: TokenStream, args: &TokenStream, span: Span) -> TokenStream {
    let mut group = proc_macro2::Group::new(proc_macro2::Delimiter::Parenthesis, args.clone());
    group.set_span(group.span().located_at(span));
    let mut call = respan(callee, span);
    call.extend([proc_macro2::TokenTree::Group(group)]);
    call
}

/// `__METRIC_HANDLES_{FIELD}`, made unique if two fields differ only in case.
fn const_idents(plans: &[MetricPlan]) -> Vec<Ident> {
    let mut seen = std::collections::HashSet::new();
    plans
        .iter()
        .enumerate()
        .map(|(i, plan)| {
            let field = plan.field.ident.to_string();
            let field = field.trim_start_matches("r#").to_ascii_uppercase();
            let mut name = format!("__METRIC_HANDLES_{field}");
            if !seen.insert(name.clone()) {
                name = format!("{name}_{i}");
            }
            Ident::new(&name, Span::call_site())
        })
        .collect()
}

fn descriptor(plan: &MetricPlan, krate: &TokenStream, labels: &TokenStream) -> TokenStream {
    let name = &plan.name;
    let field = plan.field.ident.to_string();
    let field = field.trim_start_matches("r#");
    let member = &plan.family.member;
    let kind = respan(
        quote!(<#member as #krate::FamilyMember>::KIND),
        member.span(),
    );
    let value_type = ty::render(member);
    let help = &plan.help;
    let option = quote!(#krate::__private::std::option::Option);
    let unit = match &plan.unit {
        Some(unit) => quote!(#option::Some(#unit)),
        None => quote!(#option::None),
    };
    let axis = match (&plan.family.axis, &plan.axis_key) {
        (Axis::Enum, Some(key)) => quote! {
            #option::Some(#krate::LabelAxis::Enum {
                key: #key,
                values: <#member as #krate::FamilyMember>::AXIS_VALUES,
            })
        },
        (Axis::Position, Some(key)) => {
            let count = plan
                .positions
                .clone()
                .unwrap_or_else(|| Literal::usize_unsuffixed(0).into_token_stream());
            quote!(#option::Some(#krate::LabelAxis::Position { key: #key, count: #count }))
        }
        (Axis::Dynamic(dynamic), _) => {
            let keys = respan(quote!(<#dynamic as #krate::LabelSet>::KEYS), dynamic.span());
            quote!(#option::Some(#krate::LabelAxis::Dynamic { keys: #keys }))
        }
        _ => quote!(#option::None),
    };
    let buckets = match &plan.buckets {
        Some(spec) => {
            let spec = buckets(spec, krate);
            quote!(#option::Some(#spec))
        }
        None => quote!(#option::None),
    };
    let max_series = match &plan.max_series {
        Some(max) => max.clone(),
        None => quote!(#krate::DEFAULT_MAX_SERIES),
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
            common_labels: <#labels as #krate::LabelSet>::KEYS,
            axis: #axis,
            buckets: #buckets,
            max_series: #max_series,
            aliases: &[#(#aliases),*],
        }
    }
}

/// Compile-time checks the macro cannot make itself, as `const` expressions of type `()`.
fn field_checks(plan: &MetricPlan, krate: &TokenStream, labels: &TokenStream) -> Vec<TokenStream> {
    let mut checks = Vec::new();
    if let Some(key) = &plan.axis_key {
        checks.push(respan(
            quote!(#krate::__private::assert_axis_key_is_free(<#labels as #krate::LabelSet>::KEYS, #key)),
            key.span(),
        ));
    }
    if let Axis::Dynamic(dynamic) = &plan.family.axis {
        checks.push(respan(
            quote! {
                #krate::__private::assert_axis_keys_are_free(
                    <#labels as #krate::LabelSet>::KEYS,
                    <#dynamic as #krate::LabelSet>::KEYS,
                )
            },
            dynamic.span(),
        ));
    }
    if let Some(BucketSpec::Const(path)) = &plan.buckets {
        checks.push(respan(
            quote!(#krate::__private::assert_valid_buckets(#path)),
            path.span(),
        ));
    }
    checks
}

/// A `Buckets` value.
fn buckets(spec: &BucketSpec, krate: &TokenStream) -> TokenStream {
    match spec {
        BucketSpec::Explicit(bounds) => {
            let bounds = bounds.iter().map(|b| float(*b));
            quote!(#krate::Buckets::Explicit(&[#(#bounds),*]))
        }
        BucketSpec::Const(path) => quote!(#krate::Buckets::Explicit(#path)),
        BucketSpec::Exponential {
            start,
            factor,
            count,
        } => {
            let (start, factor) = (float(*start), float(*factor));
            let count = Literal::u16_unsuffixed(*count);
            quote!(#krate::Buckets::Exponential { start: #start, factor: #factor, count: #count })
        }
        BucketSpec::Linear {
            start,
            width,
            count,
        } => {
            let (start, width) = (float(*start), float(*width));
            let count = Literal::u16_unsuffixed(*count);
            quote!(#krate::Buckets::Linear { start: #start, width: #width, count: #count })
        }
        BucketSpec::OneTwoFive { max } => {
            let max = float(*max);
            quote!(#krate::Buckets::OneTwoFive { max: #max })
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
