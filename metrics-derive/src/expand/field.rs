//! One metric field's expansion: its share of each generated item (its handle, its lines of
//! `Clone`, `Debug`, `register`, `resolve` and `remove`, its associated constants), each under
//! the field's `#[cfg]`s.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::Ident;

use crate::ast::Input;
use crate::buckets::{BucketSpec, GeneratorArg};
use crate::respan::respan;
use crate::signature::{handle_field_attrs, krate, labels_type};
use crate::symbol::{COUNT, EXPONENTIAL, LINEAR};
use crate::ty;
use crate::valid::MetricPlan;

/// What every field's expansion names: the runtime crate, the struct and its label set.
pub struct Names<'a> {
    pub krate: TokenStream,
    pub labels: TokenStream,
    pub ident: &'a Ident,
    /// The struct's type parameters as a type's (`<L, 'a>`), to name the struct in a path.
    ty_generics: TokenStream,
    /// A generic struct's checks run when `try_register_with` is instantiated, a non-generic
    /// struct's at definition time, whether or not `register` is ever called.
    is_generic: bool,
}

impl<'a> Names<'a> {
    pub fn of(input: &'a Input) -> Self {
        let krate = krate(input);
        let labels = labels_type(input, &krate);
        let (_, ty_generics, _) = input.generics.split_for_impl();
        Names {
            labels,
            krate,
            ident: input.ident,
            ty_generics: ty_generics.to_token_stream(),
            is_generic: !input.generics.params.is_empty(),
        }
    }
}

/// A metric field's share of each generated item. Collected over the fields (in field order),
/// each member holds that item's whole body.
#[derive(Default)]
pub struct FieldItems {
    /// The handles struct's fields: the resolved member, with the field's doc.
    pub handle_fields: TokenStream,
    /// The handles struct's `Clone` and `Debug`, one line per field.
    pub clones: TokenStream,
    pub debug_fields: TokenStream,
    /// The associated constants: each field's `field_ops` result, its descriptor (with the
    /// constants it borrows from) and its compile-time checks.
    pub ops_consts: TokenStream,
    pub descriptor_consts: TokenStream,
    pub check_consts: TokenStream,
    /// The elements of `DESCRIPTORS`.
    pub descriptors: TokenStream,
    /// The bodies of `try_register_with`, `try_register_in`, `resolve` and `remove`.
    pub registers: TokenStream,
    pub registers_in: TokenStream,
    pub resolves: TokenStream,
    /// In `resolve`, a read of each info handle: see [`info_read`].
    pub info_reads: TokenStream,
    pub removes: TokenStream,
    /// The uses that run the checks: in `try_register_with` for a generic struct, after the
    /// impl for another.
    pub run_checks: TokenStream,
    pub eager_checks: TokenStream,
}

impl FromIterator<FieldItems> for FieldItems {
    fn from_iter<I: IntoIterator<Item = FieldItems>>(fields: I) -> Self {
        let mut all = FieldItems::default();
        for field in fields {
            all.handle_fields.extend(field.handle_fields);
            all.clones.extend(field.clones);
            all.debug_fields.extend(field.debug_fields);
            all.ops_consts.extend(field.ops_consts);
            all.descriptor_consts.extend(field.descriptor_consts);
            all.check_consts.extend(field.check_consts);
            all.descriptors.extend(field.descriptors);
            all.registers.extend(field.registers);
            all.registers_in.extend(field.registers_in);
            all.resolves.extend(field.resolves);
            all.info_reads.extend(field.info_reads);
            all.removes.extend(field.removes);
            all.run_checks.extend(field.run_checks);
            all.eager_checks.extend(field.eager_checks);
        }
        all
    }
}

impl FieldItems {
    /// The items of the field `plan`, whose associated constants are named after `const_ident`.
    pub fn of(names: &Names, plan: &MetricPlan, const_ident: &Ident) -> Self {
        let Names {
            krate,
            labels,
            ident,
            ty_generics,
            ..
        } = names;
        let field = plan.field.ident;
        let field_vis = plan.field.vis;
        let cfgs = plan.field.cfgs();
        let cfgs = quote!(#(#cfgs)*);
        let member = &plan.family.member;
        let (field_ty, field_labels) = (plan.field.ty, &plan.family.labels);
        let docs = match plan.field.doc_attrs().next() {
            Some(_) => {
                let docs = plan.field.doc_attrs();
                quote!(#(#docs)*)
            }
            None => {
                let help = &plan.help;
                quote!(#[doc = #help])
            }
        };
        let handle_attrs = handle_field_attrs(plan.field);
        let ops = ops_ident(const_ident);
        let shown = field.unraw().to_string();
        let descriptor_parts = descriptor_parts(plan, krate, const_ident);
        let descriptor = descriptor(plan, krate, const_ident);
        let checks: Vec<(Ident, TokenStream)> = field_checks(plan, krate, const_ident)
            .into_iter()
            .enumerate()
            .map(|(n, check)| (format_ident!("{}_CHECK_{}", const_ident, n), check))
            .collect();
        let check_consts = checks.iter().map(|(check_ident, check)| {
            quote! {
                #cfgs
                #[doc(hidden)]
                const #check_ident: () = #check;
            }
        });
        let check_idents = checks.iter().map(|(check_ident, _)| check_ident);
        let (run_checks, eager_checks) = if names.is_generic {
            let uses = quote!(#(#cfgs let () = Self::#check_idents;)*);
            (uses, TokenStream::new())
        } else {
            let uses = quote!(#(#cfgs const _: () = #ident::#check_idents;)*);
            (TokenStream::new(), uses)
        };
        FieldItems {
            handle_fields: quote! {
                #docs
                #handle_attrs
                #field_vis #field: #member,
            },
            clones: quote! {
                #cfgs
                #field: (<#ident #ty_generics>::#ops.clone_member)(&self.#field),
            },
            debug_fields: quote! {
                #cfgs
                debug.field(
                    #shown,
                    &#krate::__private::DebugMember(
                        &self.#field,
                        <#ident #ty_generics>::#ops.debug_member,
                    ),
                );
            },
            ops_consts: quote! {
                #cfgs
                #[doc(hidden)]
                const #ops: #krate::__private::FieldOps<#labels, #field_ty, #member> =
                    #krate::__private::field_ops::<#labels, #field_ty, #field_labels, #member>();
            },
            descriptor_consts: quote! {
                #(#cfgs #descriptor_parts)*
                #cfgs
                #[doc(hidden)]
                const #const_ident: #krate::descriptor::MetricDescriptor = #descriptor;
            },
            check_consts: quote!(#(#check_consts)*),
            descriptors: quote!(#cfgs Self::#const_ident,),
            registers: register(plan, krate, &cfgs, const_ident, "register", "registry"),
            registers_in: register(plan, krate, &cfgs, const_ident, "register_in", "declared"),
            resolves: quote! {
                #cfgs
                #field: (Self::#ops.resolve)(&self.#field, labels),
            },
            info_reads: info_read(plan, &cfgs),
            removes: quote! {
                #cfgs
                let _ = (Self::#ops.remove)(&self.#field, labels);
            },
            run_checks,
            eager_checks,
        }
    }
}

/// The field's initialiser in a registration: `op` of its operations (`register`, or
/// `register_in` for a set of run-time families) with `target`, its descriptor and the
/// `options`, which for a field with `idle_timeout` carry the declared timeout unless they
/// override it.
fn register(
    plan: &MetricPlan,
    krate: &TokenStream,
    cfgs: &TokenStream,
    const_ident: &Ident,
    op: &str,
    target: &str,
) -> TokenStream {
    let field = plan.field.ident;
    let ops = ops_ident(const_ident);
    let (op, target) = (format_ident!("{}", op), format_ident!("{}", target));
    let options = match plan.idle_timeout {
        None => quote!(options),
        Some(millis) => quote! {
            &#krate::__private::with_declared_idle_timeout(
                options,
                Self::#const_ident.name,
                #millis,
            )
        },
    };
    quote! {
        #cfgs
        #field: (Self::#ops.#op)(#target, &Self::#const_ident, #options),
    }
}

/// For an info field, a read of its handle in `resolve`. An info handle has nothing to
/// record (resolving created its series), so nothing else reads it, and the dead-code lint
/// would report every info field on the handles struct, where the user cannot silence it. A
/// read rather than an `#[allow(dead_code)]`, which a crate's `#![forbid(dead_code)]` turns
/// into an error.
fn info_read(plan: &MetricPlan, cfgs: &TokenStream) -> TokenStream {
    if plan.family.leaf != Some(ty::Leaf::Info) {
        return TokenStream::new();
    }
    let field = plan.field.ident;
    quote!(#cfgs let _ = &handles.#field;)
}

/// The associated constant holding a field's `field_ops` result (the runtime's
/// `__private::field_ops`).
fn ops_ident(const_ident: &Ident) -> Ident {
    format_ident!("{}_OPS", const_ident)
}

/// `__METRIC_HANDLES_{FIELD}`, made unique if two fields differ only in case.
pub fn const_idents(plans: &[MetricPlan]) -> Vec<Ident> {
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

/// `max_series = N`, else the default.
fn max_series(plan: &MetricPlan, krate: &TokenStream) -> TokenStream {
    match &plan.max_series {
        Some(max) => max.clone(),
        None => quote!(#krate::limits::DEFAULT_MAX_SERIES),
    }
}

/// The descriptor's helper constants: the grid's axes (when the field names axis keys), and a
/// bucket constant as a slice (whether the user declared it as an array or a slice). Both must
/// be associated constants so their temporaries live for `'static`.
fn descriptor_parts(
    plan: &MetricPlan,
    krate: &TokenStream,
    const_ident: &Ident,
) -> Vec<TokenStream> {
    let mut parts = Vec::new();
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
        parts.push(quote! {
            #[doc(hidden)]
            const #grid_const: &'static [#krate::descriptor::LabelAxis] = &[#(#grid),*];
        });
    }
    if let Some(BucketSpec::Const(path)) = &plan.buckets {
        let bounds_const = format_ident!("{}_BOUNDS", const_ident);
        let bounds = respan(quote!(&#path), path.span());
        parts.push(quote! {
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
    let computed = match &plan.computed {
        Some(text) => quote!(#option::Some(#text)),
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
    let native = match &plan.native {
        Some(spec) => {
            let config = spec.tokens(krate);
            quote!(#option::Some(#config))
        }
        None => quote!(#option::None),
    };
    let max_series = max_series(plan, krate);
    let max_label_sets = match &plan.max_label_sets {
        Some(max) => max.clone(),
        None => quote!(#krate::limits::DEFAULT_MAX_LABEL_SETS),
    };
    let aliases = plan.aliases.iter().map(
        |(name, version)| quote!(#krate::descriptor::Alias { name: #name, deprecated_in: #version }),
    );
    quote! {
        #krate::descriptor::MetricDescriptor {
            name: #name,
            field: #field,
            kind: #kind,
            value_type: #value_type,
            help: #help,
            computed: #computed,
            unit: #unit,
            common_labels: Self::__METRIC_HANDLES_COMMON_LABELS,
            axis: #axis,
            buckets: #buckets,
            native: #native,
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
        if plan.native.is_some() {
            let message = format!(
                "field `{field}`: `native` only applies to histograms, and `{shown}` is not one: remove `native`"
            );
            checks.push(at_member(
                quote!(if !#krate::__private::is_histogram(#kind) { ::core::panic!(#message) }),
            ));
        }
        if plan.buckets.is_some() {
            let message = format!(
                "field `{field}`: `buckets` only applies to histograms and gauge histograms, and `{shown}` is neither: remove `buckets`"
            );
            checks.push(at_member(
                quote!(if !#krate::__private::has_buckets(#kind) { ::core::panic!(#message) }),
            ));
        } else if plan.native.is_none() {
            let message = format!(
                "field `{field}`: `{shown}` is a histogram and needs buckets: add e.g. `buckets = [0.1, 0.5, 1.0]` or `buckets = exponential(start = 0.001, factor = 2.0, count = 16)`"
            );
            checks.push(at_member(
                quote!(if #krate::__private::has_buckets(#kind) { ::core::panic!(#message) }),
            ));
        }
        if plan.unit.is_some() {
            let message = format!(
                "field `{field}`: `unit` does not apply to `{shown}`, an info or a state set, which OpenMetrics gives no unit: remove `unit`"
            );
            checks.push(at_member(
                quote!(if !#krate::__private::allows_unit(#kind) { ::core::panic!(#message) }),
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
                if ::core::matches!(#shape, #krate::member::AxisShape::None) {
                    ::core::panic!(#message)
                }
            )));
        }
        if plan.idle_timeout.is_some() {
            let message = format!(
                "field `{field}`: `idle_timeout` expires the idle series of a `Dynamic<Labels, _>` axis, and `{shown}` has none: remove `idle_timeout`"
            );
            checks.push(at_member(quote!(
                if !::core::matches!(#shape, #krate::member::AxisShape::Dynamic(_)) {
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
    let max_series = max_series(plan, krate);
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
