///Cached handles of [`Generic`] for one label set.
///
pub(crate) struct GenericHandles<L>
where
    L: Clone,
{
    /// Things seen
    pub(crate) things: Counter,
    #[doc(hidden)]
    __metric_handles_marker: ::rt::__private::std::marker::PhantomData<fn() -> (L,)>,
}
#[automatically_derived]
impl<L> ::core::clone::Clone for GenericHandles<L>
where
    L: Clone,
    L: ::rt::LabelSet,
{
    fn clone(&self) -> Self {
        GenericHandles {
            things: (<Generic<L>>::__METRIC_HANDLES_THINGS_OPS
                .clone_member)(&self.things),
            __metric_handles_marker: ::rt::__private::std::marker::PhantomData,
        }
    }
}
#[automatically_derived]
impl<L> ::core::fmt::Debug for GenericHandles<L>
where
    L: Clone,
    L: ::rt::LabelSet,
{
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        let debug = &mut f.debug_struct("GenericHandles");
        debug
            .field(
                "things",
                &::rt::__private::DebugMember(
                    &self.things,
                    <Generic<L>>::__METRIC_HANDLES_THINGS_OPS.debug_member,
                ),
            );
        debug.finish()
    }
}
impl<L> Generic<L>
where
    L: Clone,
    L: ::rt::LabelSet,
{
    #[doc(hidden)]
    const __METRIC_HANDLES_COMMON_LABELS: &'static [&'static str] = ::rt::__private::field_ops::<
        L,
        ::rt::Family<L, ::rt::Counter>,
        L,
        ::rt::Counter,
    >()
        .common_keys;
    #[doc(hidden)]
    const __METRIC_HANDLES_THINGS_OPS: ::rt::__private::FieldOps<
        L,
        Family<L, Counter>,
        Counter,
    > = ::rt::__private::field_ops::<L, Family<L, Counter>, L, Counter>();
    #[doc(hidden)]
    const __METRIC_HANDLES_THINGS: ::rt::descriptor::MetricDescriptor = ::rt::descriptor::MetricDescriptor {
        name: "gen:things",
        field: "things",
        kind: Self::__METRIC_HANDLES_THINGS_OPS.kind,
        value_type: "Counter",
        help: "Things seen",
        computed: ::rt::__private::std::option::Option::None,
        unit: ::rt::__private::std::option::Option::None,
        common_labels: Self::__METRIC_HANDLES_COMMON_LABELS,
        axis: ::rt::__private::describe_axis(
            Self::__METRIC_HANDLES_THINGS_OPS.axis,
            &[],
            &[],
            0,
        ),
        buckets: ::rt::__private::std::option::Option::None,
        native: ::rt::__private::std::option::Option::None,
        max_series: ::rt::limits::DEFAULT_MAX_SERIES,
        max_label_sets: ::rt::limits::DEFAULT_MAX_LABEL_SETS,
        aliases: &[],
    };
    #[doc(hidden)]
    const __METRIC_HANDLES_THINGS_CHECK_0: () = ::rt::__private::assert_axis_keys_are_free(
        Self::__METRIC_HANDLES_COMMON_LABELS,
        ::rt::__private::dynamic_keys(Self::__METRIC_HANDLES_THINGS_OPS.axis),
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_THINGS_CHECK_1: () = ::rt::__private::assert_fits_max_series(
        "things",
        Self::__METRIC_HANDLES_THINGS_OPS.axis,
        0,
        ::rt::limits::DEFAULT_MAX_SERIES,
    );
    /// Every metric this struct registers, in field order: names, kinds, help, labels
    /// and buckets, for documentation and tests.
    pub const DESCRIPTORS: &'static [::rt::descriptor::MetricDescriptor] = &[
        Self::__METRIC_HANDLES_THINGS,
    ];
    /**Registers every metric of [`Generic`] in `registry`, as declared.

Each field's family is registered under its `name` (and unit), with its help text.*/
    ///
    /// # Panics
    ///
    /// If a name this struct exposes is already exposed by `registry` (the same struct
    /// registered twice, or another metric whose samples would collide with these);
    /// [`Self::try_register`] returns that error instead.
    #[track_caller]
    pub fn register(registry: &mut ::rt::Registry) -> Self {
        Self::register_with(registry, &::rt::RegisterOptions::new())
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
        registry: &mut ::rt::Registry,
        options: &::rt::RegisterOptions,
    ) -> Self {
        match Self::try_register_with(registry, options) {
            ::rt::__private::std::result::Result::Ok(metrics) => metrics,
            ::rt::__private::std::result::Result::Err(error) => {
                ::rt::__private::std::panic!("{}", error)
            }
        }
    }
    /// Registers every metric in `registry`, as declared, unless a name this struct
    /// exposes (a family name, or a sample name such as `_total`, `_count`, `_bucket`)
    /// is already exposed by `registry`: then nothing is registered and the error says
    /// which names collide.
    pub fn try_register(
        registry: &mut ::rt::Registry,
    ) -> ::rt::__private::std::result::Result<Self, ::rt::RegistrationError> {
        Self::try_register_with(registry, &::rt::RegisterOptions::new())
    }
    /// [`Self::try_register`] with run-time `options`.
    pub fn try_register_with(
        registry: &mut ::rt::Registry,
        options: &::rt::RegisterOptions,
    ) -> ::rt::__private::std::result::Result<Self, ::rt::RegistrationError> {
        ::rt::__private::check_registration(
            registry,
            "Generic",
            Self::DESCRIPTORS,
            options,
        )?;
        let () = Self::__METRIC_HANDLES_THINGS_CHECK_0;
        let () = Self::__METRIC_HANDLES_THINGS_CHECK_1;
        ::rt::__private::std::result::Result::Ok(Self {
            things: (Self::__METRIC_HANDLES_THINGS_OPS
                .register)(registry, &Self::__METRIC_HANDLES_THINGS, options),
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
        families: &::rt::family::RuntimeFamilies<L>,
    ) -> ::rt::__private::std::result::Result<Self, ::rt::RegistrationError> {
        let declared = ::rt::__private::DeclaredFamilies::claim(
            families,
            "Generic",
            Self::DESCRIPTORS,
        )?;
        let declared = &declared;
        let options = &::rt::RegisterOptions::new();
        let () = Self::__METRIC_HANDLES_THINGS_CHECK_0;
        let () = Self::__METRIC_HANDLES_THINGS_CHECK_1;
        ::rt::__private::std::result::Result::Ok(Self {
            things: (Self::__METRIC_HANDLES_THINGS_OPS
                .register_in)(declared, &Self::__METRIC_HANDLES_THINGS, options),
        })
    }
    /**Resolves every metric's series for `labels` once, into [`GenericHandles`].

This is the slow path (hash, lock, maybe allocate); recording through the returned handles is atomic operations only. Call it once per label set and keep the result.*/
    pub fn resolve(&self, labels: &L) -> GenericHandles<L> {
        GenericHandles {
            things: (Self::__METRIC_HANDLES_THINGS_OPS.resolve)(&self.things, labels),
            __metric_handles_marker: ::rt::__private::std::marker::PhantomData,
        }
    }
    /// Removes every series of `labels` from the exposition (an engine that left).
    /// Handles resolved earlier keep working but are no longer exported.
    pub fn remove(&self, labels: &L) {
        let _ = (Self::__METRIC_HANDLES_THINGS_OPS.remove)(&self.things, labels);
    }
}
