//! [`runtime_families!`](crate::runtime_families): plug-in families known when the program is
//! written, declared once each as a field of a struct, from which their descriptors and their
//! registration follow.

use super::error::FamilyError;
use super::runtime::{RuntimeFamily, RuntimeMember};
use super::runtime_set::RuntimeFamilies;
use crate::descriptor::MetricDescriptor;
use crate::labels::LabelSet;

/// Declares a struct of plug-in families, one field per family: the field's member type
/// (`Counter`, `Gauge`, `Histogram`) and its descriptor, from which the struct's
/// `DESCRIPTORS` table and its `register` function follow. A family cannot be described
/// in one place and forgotten in another: each is named once.
///
/// `struct Name<L>` names the struct and, between the angle brackets, the label set `L` every
/// family's series carry first (the struct itself is not generic). Each field reads
/// `name: Member = (metric name, help)` or `(metric name, descriptor field, help)`, then any of
/// [`MetricDescriptor`]'s builders (`unit`, `axis`, `buckets`, `max_series`, `with_computed`,
/// ...). The kind and value type come from `Member`, the common label keys from `L`, and the
/// descriptor's `field` is the field's name unless given. Extra label keys are an axis
/// `LabelAxis::Dynamic { keys }`.
///
/// A family that breaks a rule of [`RuntimeFamilies::register`] (its name, `_total` on a
/// counter, its help text, unit, buckets or extra label keys) fails compilation, with a
/// message naming the family and the rule; a member type a plug-in family cannot hold is a
/// compile error on that type.
///
/// The struct gets `DESCRIPTORS` (every family, in field order, for a catalogue) and
/// `register(&RuntimeFamilies<L>)`, which claims all the families' names and registers them:
/// all of them, or none and a [`FamilyError`] (a name already taken, by another registration
/// or by two of its families). As with `register`, a family without extra label keys gets a
/// series at zero for each common label set declared present.
///
/// ```
/// use metric_handles::family::RuntimeFamilies;
/// use metric_handles::{runtime_families, Buckets, Counter, Histogram, LabelSet, Registry};
/// use metric_handles::descriptor::LabelAxis;
///
/// #[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
/// struct EngineLabels {
///     model_name: String,
///     engine: u32,
/// }
///
/// runtime_families! {
///     /// The ACME cache connector's families.
///     struct AcmeFamilies<EngineLabels> {
///         /// Blocks fetched, by tier.
///         fetches: Counter = ("acme:cache_fetches", "Blocks fetched from the ACME cache")
///             .axis(LabelAxis::Dynamic { keys: &["tier"] }),
///         fetch_time: Histogram = ("acme:cache_fetch", "Time to fetch one block")
///             .unit("seconds")
///             .buckets(Buckets::Explicit(&[0.001, 0.01, 0.1])),
///     }
/// }
///
/// assert_eq!(AcmeFamilies::DESCRIPTORS[1].field, "fetch_time");
/// assert_eq!(AcmeFamilies::DESCRIPTORS[1].common_labels, ["model_name", "engine"]);
///
/// let mut registry = Registry::default();
/// let plugins = RuntimeFamilies::<EngineLabels>::register_in(&mut registry);
/// let acme = AcmeFamilies::register(&plugins).expect("valid families with free names");
/// let engine0 = EngineLabels { model_name: "m".into(), engine: 0 };
/// acme.fetches.get_or_create(&engine0, &["host"]).expect("one value per extra key").inc();
/// acme.fetch_time.get_or_create(&engine0, &[]).expect("no extra key").observe(0.004);
///
/// let text = metric_handles::ExpositionFormat::PrometheusText.encode(&registry).unwrap();
/// assert!(text.contains(r#"acme:cache_fetches_total{model_name="m",engine="0",tier="host"} 1"#));
/// assert!(text.contains(r#"acme:cache_fetch_seconds_count{model_name="m",engine="0"} 1"#));
/// // A second registration of the same families takes none of their names.
/// assert!(AcmeFamilies::register(&plugins).is_err());
/// ```
#[macro_export]
macro_rules! runtime_families {
    ($($declaration:tt)*) => {
        $crate::__runtime_families! { register: public; $($declaration)* }
    };
}

/// The body of [`runtime_families!`](crate::runtime_families): the struct, its descriptors,
/// and a registration function, `register` (public) or, for this crate's own families whose
/// names their owner claims with the rest of its registration, `register_claimed` (which
/// compiles only inside this crate).
#[doc(hidden)]
#[macro_export]
macro_rules! __runtime_families {
    (
        register: $register:ident;
        $(#[$struct_attr:meta])*
        $vis:vis struct $name:ident<$labels:ty> {
            $(
                $(#[$field_attr:meta])*
                $field_vis:vis $field:ident: $member:ty = ($($head:expr),+ $(,)?)
                    $(.$builder:ident($($argument:expr),* $(,)?))*
            ),+ $(,)?
        }
    ) => {
        $(#[$struct_attr])*
        $vis struct $name {
            $(
                $(#[$field_attr])*
                $field_vis $field: $crate::family::RuntimeFamily<$labels, $member>,
            )+
        }

        // One descriptor per field, named after it (a constant per family keeps the table and
        // the registration reading the same value without counting fields), in a type of
        // their own so that no field name can clash with the struct's items.
        const _: () = {
            #[allow(non_camel_case_types, non_upper_case_globals)]
            struct __Declared;

            #[allow(non_upper_case_globals)]
            impl __Declared {
                $(
                    const $field: $crate::descriptor::MetricDescriptor = $crate::__runtime_family_descriptor!(
                        $field, $member, $labels, ($($head),+)
                    )
                    $(.$builder($($argument),*))*;
                )+
            }

            // Each family breaking a rule of `RuntimeFamilies::register` fails compilation.
            $(
                const _: () = $crate::__private::assert_valid_plugin_family(&__Declared::$field);
            )+

            impl $name {
                /// Every family of the struct, in field order: names, kinds, help, labels and
                /// buckets, for a catalogue and for tests.
                $vis const DESCRIPTORS: &'static [$crate::descriptor::MetricDescriptor] =
                    &[$(__Declared::$field),+];
            }

            $crate::__runtime_families! {
                @register $register; $vis $name<$labels> { $($field: $member),+ }
            }
        };
    };
    (@register public; $vis:vis $name:ident<$labels:ty> { $($field:ident: $member:ty),+ }) => {
        impl $name {
            /// Validates every family, claims all their names in `plugins`' registry and
            /// registers them: all of them, or none and the error of the first family that
            /// takes a name already taken.
            $vis fn register(
                plugins: &$crate::family::RuntimeFamilies<$labels>,
            ) -> ::core::result::Result<Self, $crate::family::FamilyError> {
                let declared = $crate::__private::DeclaredFamilies::claim(
                    plugins,
                    ::core::stringify!($name),
                    Self::DESCRIPTORS,
                )?;
                ::core::result::Result::Ok($name {
                    $($field: declared.register::<$member>(&__Declared::$field),)+
                })
            }
        }
    };
    (@register claimed; $vis:vis $name:ident<$labels:ty> { $($field:ident: $member:ty),+ }) => {
        impl $name {
            /// Registers every family in `plugins`, whose names the caller has claimed
            /// (`RuntimeFamilies::claim_declared` with [`Self::DESCRIPTORS`]), without the
            /// zero series `register` gives families without extra label keys.
            $vis fn register_claimed(plugins: &$crate::family::RuntimeFamilies<$labels>) -> Self {
                $name {
                    $($field: plugins.register_declared::<$member>(&__Declared::$field),)+
                }
            }
        }
    };
}

/// One family's descriptor in [`runtime_families!`](crate::runtime_families): `(name, help)`
/// or `(name, field, help)`, with the kind and value type of `member` and the keys of
/// `labels`.
#[doc(hidden)]
#[macro_export]
macro_rules! __runtime_family_descriptor {
    ($field:ident, $member:ty, $labels:ty, ($name:expr, $help:expr)) => {
        $crate::__runtime_family_descriptor!(
            $field,
            $member,
            $labels,
            ($name, ::core::stringify!($field), $help)
        )
    };
    ($field:ident, $member:ty, $labels:ty, ($name:expr, $descriptor_field:expr, $help:expr)) => {
        $crate::descriptor::MetricDescriptor::new(
            $name,
            $descriptor_field,
            <$member as $crate::member::FamilyMember>::KIND,
            ::core::stringify!($member),
            $help,
        )
        .common_labels(<$labels as $crate::LabelSet>::KEYS)
    };
}

/// The families of one [`runtime_families!`](crate::runtime_families) struct, their names
/// claimed: what its generated `register` builds the struct from.
#[doc(hidden)]
#[derive(Debug)]
pub struct DeclaredFamilies<'a, L> {
    families: &'a RuntimeFamilies<L>,
}

impl<'a, L: LabelSet> DeclaredFamilies<'a, L> {
    /// Validates every family `descriptors` declare and claims all their names in
    /// `families`, as the struct `owner`'s; nothing is claimed on error.
    pub fn claim(
        families: &'a RuntimeFamilies<L>,
        owner: &str,
        descriptors: &[MetricDescriptor],
    ) -> Result<Self, FamilyError> {
        families.claim_set(owner, descriptors)?;
        Ok(DeclaredFamilies { families })
    }

    /// Registers the family `descriptor` declares (one of those claimed) as a family of `M`.
    pub fn register<M: RuntimeMember>(&self, descriptor: &MetricDescriptor) -> RuntimeFamily<L, M> {
        self.families.add_claimed(descriptor)
    }
}
