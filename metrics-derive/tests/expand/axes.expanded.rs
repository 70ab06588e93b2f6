///Cached handles of [`Axes`] for one label set.
///
pub struct AxesHandles {
    /// Finished requests by reason
    pub success: ByLabel<FinishReason, Counter>,
    /// Accepted draft tokens by position
    pub accepted: ByPosition<Counter>,
    /// Latency by adapter
    pub lora_latency: Dynamic<Adapter, Histogram>,
}
#[automatically_derived]
impl ::core::clone::Clone for AxesHandles {
    fn clone(&self) -> Self {
        AxesHandles {
            success: (<Axes>::__METRIC_HANDLES_SUCCESS_OPS.clone_member)(&self.success),
            accepted: (<Axes>::__METRIC_HANDLES_ACCEPTED_OPS
                .clone_member)(&self.accepted),
            lora_latency: (<Axes>::__METRIC_HANDLES_LORA_LATENCY_OPS
                .clone_member)(&self.lora_latency),
        }
    }
}
#[automatically_derived]
impl ::core::fmt::Debug for AxesHandles {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        let debug = &mut f.debug_struct("AxesHandles");
        debug
            .field(
                "success",
                &::metric_handles::__private::DebugMember(
                    &self.success,
                    <Axes>::__METRIC_HANDLES_SUCCESS_OPS.debug_member,
                ),
            );
        debug
            .field(
                "accepted",
                &::metric_handles::__private::DebugMember(
                    &self.accepted,
                    <Axes>::__METRIC_HANDLES_ACCEPTED_OPS.debug_member,
                ),
            );
        debug
            .field(
                "lora_latency",
                &::metric_handles::__private::DebugMember(
                    &self.lora_latency,
                    <Axes>::__METRIC_HANDLES_LORA_LATENCY_OPS.debug_member,
                ),
            );
        debug.finish()
    }
}
impl Axes {
    #[doc(hidden)]
    const __METRIC_HANDLES_COMMON_LABELS: &'static [&'static str] = ::metric_handles::__private::field_ops::<
        Engine,
        ::metric_handles::Family<Engine, ::metric_handles::Counter>,
        Engine,
        ::metric_handles::Counter,
    >()
        .common_keys;
    #[doc(hidden)]
    const __METRIC_HANDLES_SUCCESS_OPS: ::metric_handles::__private::FieldOps<
        Engine,
        Family<Engine, ByLabel<FinishReason, Counter>>,
        ByLabel<FinishReason, Counter>,
    > = ::metric_handles::__private::field_ops::<
        Engine,
        Family<Engine, ByLabel<FinishReason, Counter>>,
        Engine,
        ByLabel<FinishReason, Counter>,
    >();
    #[doc(hidden)]
    const __METRIC_HANDLES_ACCEPTED_OPS: ::metric_handles::__private::FieldOps<
        Engine,
        Family<Engine, ByPosition<Counter>>,
        ByPosition<Counter>,
    > = ::metric_handles::__private::field_ops::<
        Engine,
        Family<Engine, ByPosition<Counter>>,
        Engine,
        ByPosition<Counter>,
    >();
    #[doc(hidden)]
    const __METRIC_HANDLES_LORA_LATENCY_OPS: ::metric_handles::__private::FieldOps<
        Engine,
        Family<Engine, Dynamic<Adapter, Histogram>>,
        Dynamic<Adapter, Histogram>,
    > = ::metric_handles::__private::field_ops::<
        Engine,
        Family<Engine, Dynamic<Adapter, Histogram>>,
        Engine,
        Dynamic<Adapter, Histogram>,
    >();
    #[doc(hidden)]
    const __METRIC_HANDLES_SUCCESS_GRID: &'static [::metric_handles::descriptor::LabelAxis] = &[
        ::metric_handles::__private::grid_axis(
            Self::__METRIC_HANDLES_SUCCESS_OPS.axis,
            0usize,
            "finished_reason",
            0,
        ),
    ];
    #[doc(hidden)]
    const __METRIC_HANDLES_SUCCESS: ::metric_handles::descriptor::MetricDescriptor = ::metric_handles::descriptor::MetricDescriptor {
        name: "ax:request_success",
        field: "success",
        kind: Self::__METRIC_HANDLES_SUCCESS_OPS.kind,
        value_type: "ByLabel<FinishReason, Counter>",
        help: "Finished requests by reason",
        computed: ::metric_handles::__private::std::option::Option::None,
        unit: ::metric_handles::__private::std::option::Option::None,
        common_labels: Self::__METRIC_HANDLES_COMMON_LABELS,
        axis: ::metric_handles::__private::describe_axis(
            Self::__METRIC_HANDLES_SUCCESS_OPS.axis,
            &["finished_reason"],
            Self::__METRIC_HANDLES_SUCCESS_GRID,
            0,
        ),
        buckets: ::metric_handles::__private::std::option::Option::None,
        native: ::metric_handles::__private::std::option::Option::None,
        max_series: ::metric_handles::limits::DEFAULT_MAX_SERIES,
        max_label_sets: ::metric_handles::limits::DEFAULT_MAX_LABEL_SETS,
        aliases: &[],
    };
    #[doc(hidden)]
    const __METRIC_HANDLES_ACCEPTED_GRID: &'static [::metric_handles::descriptor::LabelAxis] = &[
        ::metric_handles::__private::grid_axis(
            Self::__METRIC_HANDLES_ACCEPTED_OPS.axis,
            0usize,
            "position",
            3,
        ),
    ];
    #[doc(hidden)]
    const __METRIC_HANDLES_ACCEPTED: ::metric_handles::descriptor::MetricDescriptor = ::metric_handles::descriptor::MetricDescriptor {
        name: "ax:accepted",
        field: "accepted",
        kind: Self::__METRIC_HANDLES_ACCEPTED_OPS.kind,
        value_type: "ByPosition<Counter>",
        help: "Accepted draft tokens by position",
        computed: ::metric_handles::__private::std::option::Option::None,
        unit: ::metric_handles::__private::std::option::Option::None,
        common_labels: Self::__METRIC_HANDLES_COMMON_LABELS,
        axis: ::metric_handles::__private::describe_axis(
            Self::__METRIC_HANDLES_ACCEPTED_OPS.axis,
            &["position"],
            Self::__METRIC_HANDLES_ACCEPTED_GRID,
            3,
        ),
        buckets: ::metric_handles::__private::std::option::Option::None,
        native: ::metric_handles::__private::std::option::Option::None,
        max_series: ::metric_handles::limits::DEFAULT_MAX_SERIES,
        max_label_sets: ::metric_handles::limits::DEFAULT_MAX_LABEL_SETS,
        aliases: &[],
    };
    #[doc(hidden)]
    const __METRIC_HANDLES_LORA_LATENCY: ::metric_handles::descriptor::MetricDescriptor = ::metric_handles::descriptor::MetricDescriptor {
        name: "ax:lora_latency",
        field: "lora_latency",
        kind: Self::__METRIC_HANDLES_LORA_LATENCY_OPS.kind,
        value_type: "Dynamic<Adapter, Histogram>",
        help: "Latency by adapter",
        computed: ::metric_handles::__private::std::option::Option::None,
        unit: ::metric_handles::__private::std::option::Option::None,
        common_labels: Self::__METRIC_HANDLES_COMMON_LABELS,
        axis: ::metric_handles::__private::describe_axis(
            Self::__METRIC_HANDLES_LORA_LATENCY_OPS.axis,
            &[],
            &[],
            0,
        ),
        buckets: ::metric_handles::__private::std::option::Option::Some(::metric_handles::Buckets::Exponential {
            start: 0.5,
            factor: 2.0,
            count: 4,
        }),
        native: ::metric_handles::__private::std::option::Option::None,
        max_series: 16,
        max_label_sets: ::metric_handles::limits::DEFAULT_MAX_LABEL_SETS,
        aliases: &[],
    };
    #[doc(hidden)]
    const __METRIC_HANDLES_SUCCESS_CHECK_0: () = ::metric_handles::__private::assert_axis_key_is_free(
        Self::__METRIC_HANDLES_COMMON_LABELS,
        "finished_reason",
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_SUCCESS_CHECK_1: () = ::metric_handles::__private::assert_axis_keys_are_free(
        Self::__METRIC_HANDLES_COMMON_LABELS,
        ::metric_handles::__private::dynamic_keys(
            Self::__METRIC_HANDLES_SUCCESS_OPS.axis,
        ),
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_SUCCESS_CHECK_2: () = ::metric_handles::__private::assert_fits_max_series(
        "success",
        Self::__METRIC_HANDLES_SUCCESS_OPS.axis,
        0,
        ::metric_handles::limits::DEFAULT_MAX_SERIES,
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_ACCEPTED_CHECK_0: () = ::metric_handles::__private::assert_axis_key_is_free(
        Self::__METRIC_HANDLES_COMMON_LABELS,
        "position",
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_ACCEPTED_CHECK_1: () = ::metric_handles::__private::assert_axis_keys_are_free(
        Self::__METRIC_HANDLES_COMMON_LABELS,
        ::metric_handles::__private::dynamic_keys(
            Self::__METRIC_HANDLES_ACCEPTED_OPS.axis,
        ),
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_ACCEPTED_CHECK_2: () = ::metric_handles::__private::assert_fits_max_series(
        "accepted",
        Self::__METRIC_HANDLES_ACCEPTED_OPS.axis,
        3,
        ::metric_handles::limits::DEFAULT_MAX_SERIES,
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_LORA_LATENCY_CHECK_0: () = ::metric_handles::__private::assert_axis_keys_are_free(
        Self::__METRIC_HANDLES_COMMON_LABELS,
        ::metric_handles::__private::dynamic_keys(
            Self::__METRIC_HANDLES_LORA_LATENCY_OPS.axis,
        ),
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_LORA_LATENCY_CHECK_1: () = ::metric_handles::__private::assert_valid_generator(::metric_handles::Buckets::Exponential {
        start: 0.5,
        factor: 2.0,
        count: 4,
    });
    #[doc(hidden)]
    const __METRIC_HANDLES_LORA_LATENCY_CHECK_2: () = ::metric_handles::__private::assert_fits_max_series(
        "lora_latency",
        Self::__METRIC_HANDLES_LORA_LATENCY_OPS.axis,
        0,
        16,
    );
    /// Every metric this struct registers, in field order: names, kinds, help, labels
    /// and buckets, for documentation and tests.
    pub const DESCRIPTORS: &'static [::metric_handles::descriptor::MetricDescriptor] = &[
        Self::__METRIC_HANDLES_SUCCESS,
        Self::__METRIC_HANDLES_ACCEPTED,
        Self::__METRIC_HANDLES_LORA_LATENCY,
    ];
    /**Registers every metric of [`Axes`] in `registry`, as declared.

Each field's family is registered under its `name` (and unit), with its help text.*/
    ///
    /// # Panics
    ///
    /// If a name this struct exposes is already exposed by `registry` (the same struct
    /// registered twice, or another metric whose samples would collide with these);
    /// [`Self::try_register`] returns that error instead.
    #[track_caller]
    pub fn register(registry: &mut ::metric_handles::Registry) -> Self {
        Self::register_with(registry, &::metric_handles::RegisterOptions::new())
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
        registry: &mut ::metric_handles::Registry,
        options: &::metric_handles::RegisterOptions,
    ) -> Self {
        match Self::try_register_with(registry, options) {
            ::metric_handles::__private::std::result::Result::Ok(metrics) => metrics,
            ::metric_handles::__private::std::result::Result::Err(error) => {
                ::metric_handles::__private::std::panic!("{}", error)
            }
        }
    }
    /// Registers every metric in `registry`, as declared, unless a name this struct
    /// exposes (a family name, or a sample name such as `_total`, `_count`, `_bucket`)
    /// is already exposed by `registry`: then nothing is registered and the error says
    /// which names collide.
    pub fn try_register(
        registry: &mut ::metric_handles::Registry,
    ) -> ::metric_handles::__private::std::result::Result<
        Self,
        ::metric_handles::RegistrationError,
    > {
        Self::try_register_with(registry, &::metric_handles::RegisterOptions::new())
    }
    /// [`Self::try_register`] with run-time `options`.
    pub fn try_register_with(
        registry: &mut ::metric_handles::Registry,
        options: &::metric_handles::RegisterOptions,
    ) -> ::metric_handles::__private::std::result::Result<
        Self,
        ::metric_handles::RegistrationError,
    > {
        ::metric_handles::__private::check_registration(
            registry,
            "Axes",
            Self::DESCRIPTORS,
            options,
        )?;
        ::metric_handles::__private::std::result::Result::Ok(Self {
            success: (Self::__METRIC_HANDLES_SUCCESS_OPS
                .register)(registry, &Self::__METRIC_HANDLES_SUCCESS, options),
            accepted: (Self::__METRIC_HANDLES_ACCEPTED_OPS
                .register)(registry, &Self::__METRIC_HANDLES_ACCEPTED, options),
            lora_latency: (Self::__METRIC_HANDLES_LORA_LATENCY_OPS
                .register)(
                registry,
                &Self::__METRIC_HANDLES_LORA_LATENCY,
                &::metric_handles::__private::with_declared_idle_timeout(
                    options,
                    Self::__METRIC_HANDLES_LORA_LATENCY.name,
                    600000u64,
                ),
            ),
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
        families: &::metric_handles::family::RuntimeFamilies<Engine>,
    ) -> ::metric_handles::__private::std::result::Result<
        Self,
        ::metric_handles::RegistrationError,
    > {
        let declared = ::metric_handles::__private::DeclaredFamilies::claim(
            families,
            "Axes",
            Self::DESCRIPTORS,
        )?;
        let declared = &declared;
        let options = &::metric_handles::RegisterOptions::new();
        ::metric_handles::__private::std::result::Result::Ok(Self {
            success: (Self::__METRIC_HANDLES_SUCCESS_OPS
                .register_in)(declared, &Self::__METRIC_HANDLES_SUCCESS, options),
            accepted: (Self::__METRIC_HANDLES_ACCEPTED_OPS
                .register_in)(declared, &Self::__METRIC_HANDLES_ACCEPTED, options),
            lora_latency: (Self::__METRIC_HANDLES_LORA_LATENCY_OPS
                .register_in)(
                declared,
                &Self::__METRIC_HANDLES_LORA_LATENCY,
                &::metric_handles::__private::with_declared_idle_timeout(
                    options,
                    Self::__METRIC_HANDLES_LORA_LATENCY.name,
                    600000u64,
                ),
            ),
        })
    }
    /**Resolves every metric's series for `labels` once, into [`AxesHandles`].

This is the slow path (hash, lock, maybe allocate); recording through the returned handles is atomic operations only. Call it once per label set and keep the result.*/
    pub fn resolve(&self, labels: &Engine) -> AxesHandles {
        AxesHandles {
            success: (Self::__METRIC_HANDLES_SUCCESS_OPS.resolve)(&self.success, labels),
            accepted: (Self::__METRIC_HANDLES_ACCEPTED_OPS
                .resolve)(&self.accepted, labels),
            lora_latency: (Self::__METRIC_HANDLES_LORA_LATENCY_OPS
                .resolve)(&self.lora_latency, labels),
        }
    }
    /// Removes every series of `labels` from the exposition (an engine that left).
    /// Handles resolved earlier keep working but are no longer exported.
    pub fn remove(&self, labels: &Engine) {
        let _ = (Self::__METRIC_HANDLES_SUCCESS_OPS.remove)(&self.success, labels);
        let _ = (Self::__METRIC_HANDLES_ACCEPTED_OPS.remove)(&self.accepted, labels);
        let _ = (Self::__METRIC_HANDLES_LORA_LATENCY_OPS
            .remove)(&self.lora_latency, labels);
    }
}
const _: () = Axes::__METRIC_HANDLES_SUCCESS_CHECK_0;
const _: () = Axes::__METRIC_HANDLES_SUCCESS_CHECK_1;
const _: () = Axes::__METRIC_HANDLES_SUCCESS_CHECK_2;
const _: () = Axes::__METRIC_HANDLES_ACCEPTED_CHECK_0;
const _: () = Axes::__METRIC_HANDLES_ACCEPTED_CHECK_1;
const _: () = Axes::__METRIC_HANDLES_ACCEPTED_CHECK_2;
const _: () = Axes::__METRIC_HANDLES_LORA_LATENCY_CHECK_0;
const _: () = Axes::__METRIC_HANDLES_LORA_LATENCY_CHECK_1;
const _: () = Axes::__METRIC_HANDLES_LORA_LATENCY_CHECK_2;
///Cached handles of [`Grids`] for one label set.
///
pub struct GridsHandles {
    /// Store operations by operation and status
    pub operations: ByLabels<(Operation, Outcome), Counter>,
    /// Accepted tokens by method and draft position
    pub accepted: ByLabels<(Method, Position), Counter>,
}
#[automatically_derived]
impl ::core::clone::Clone for GridsHandles {
    fn clone(&self) -> Self {
        GridsHandles {
            operations: (<Grids>::__METRIC_HANDLES_OPERATIONS_OPS
                .clone_member)(&self.operations),
            accepted: (<Grids>::__METRIC_HANDLES_ACCEPTED_OPS
                .clone_member)(&self.accepted),
        }
    }
}
#[automatically_derived]
impl ::core::fmt::Debug for GridsHandles {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        let debug = &mut f.debug_struct("GridsHandles");
        debug
            .field(
                "operations",
                &::metric_handles::__private::DebugMember(
                    &self.operations,
                    <Grids>::__METRIC_HANDLES_OPERATIONS_OPS.debug_member,
                ),
            );
        debug
            .field(
                "accepted",
                &::metric_handles::__private::DebugMember(
                    &self.accepted,
                    <Grids>::__METRIC_HANDLES_ACCEPTED_OPS.debug_member,
                ),
            );
        debug.finish()
    }
}
impl Grids {
    #[doc(hidden)]
    const __METRIC_HANDLES_COMMON_LABELS: &'static [&'static str] = ::metric_handles::__private::field_ops::<
        Store,
        ::metric_handles::Family<Store, ::metric_handles::Counter>,
        Store,
        ::metric_handles::Counter,
    >()
        .common_keys;
    #[doc(hidden)]
    const __METRIC_HANDLES_OPERATIONS_OPS: ::metric_handles::__private::FieldOps<
        Store,
        Family<Store, ByLabels<(Operation, Outcome), Counter>>,
        ByLabels<(Operation, Outcome), Counter>,
    > = ::metric_handles::__private::field_ops::<
        Store,
        Family<Store, ByLabels<(Operation, Outcome), Counter>>,
        Store,
        ByLabels<(Operation, Outcome), Counter>,
    >();
    #[doc(hidden)]
    const __METRIC_HANDLES_ACCEPTED_OPS: ::metric_handles::__private::FieldOps<
        Store,
        Family<Store, ByLabels<(Method, Position), Counter>>,
        ByLabels<(Method, Position), Counter>,
    > = ::metric_handles::__private::field_ops::<
        Store,
        Family<Store, ByLabels<(Method, Position), Counter>>,
        Store,
        ByLabels<(Method, Position), Counter>,
    >();
    #[doc(hidden)]
    const __METRIC_HANDLES_OPERATIONS_GRID: &'static [::metric_handles::descriptor::LabelAxis] = &[
        ::metric_handles::__private::grid_axis(
            Self::__METRIC_HANDLES_OPERATIONS_OPS.axis,
            0usize,
            "operation",
            0,
        ),
        ::metric_handles::__private::grid_axis(
            Self::__METRIC_HANDLES_OPERATIONS_OPS.axis,
            1usize,
            "status",
            0,
        ),
    ];
    #[doc(hidden)]
    const __METRIC_HANDLES_OPERATIONS: ::metric_handles::descriptor::MetricDescriptor = ::metric_handles::descriptor::MetricDescriptor {
        name: "kv:operation",
        field: "operations",
        kind: Self::__METRIC_HANDLES_OPERATIONS_OPS.kind,
        value_type: "ByLabels<(Operation, Outcome), Counter>",
        help: "Store operations by operation and status",
        computed: ::metric_handles::__private::std::option::Option::None,
        unit: ::metric_handles::__private::std::option::Option::None,
        common_labels: Self::__METRIC_HANDLES_COMMON_LABELS,
        axis: ::metric_handles::__private::describe_axis(
            Self::__METRIC_HANDLES_OPERATIONS_OPS.axis,
            &["operation", "status"],
            Self::__METRIC_HANDLES_OPERATIONS_GRID,
            0,
        ),
        buckets: ::metric_handles::__private::std::option::Option::None,
        native: ::metric_handles::__private::std::option::Option::None,
        max_series: ::metric_handles::limits::DEFAULT_MAX_SERIES,
        max_label_sets: ::metric_handles::limits::DEFAULT_MAX_LABEL_SETS,
        aliases: &[],
    };
    #[doc(hidden)]
    const __METRIC_HANDLES_ACCEPTED_GRID: &'static [::metric_handles::descriptor::LabelAxis] = &[
        ::metric_handles::__private::grid_axis(
            Self::__METRIC_HANDLES_ACCEPTED_OPS.axis,
            0usize,
            "method",
            2,
        ),
        ::metric_handles::__private::grid_axis(
            Self::__METRIC_HANDLES_ACCEPTED_OPS.axis,
            1usize,
            "position",
            2,
        ),
    ];
    #[doc(hidden)]
    const __METRIC_HANDLES_ACCEPTED: ::metric_handles::descriptor::MetricDescriptor = ::metric_handles::descriptor::MetricDescriptor {
        name: "kv:accepted",
        field: "accepted",
        kind: Self::__METRIC_HANDLES_ACCEPTED_OPS.kind,
        value_type: "ByLabels<(Method, Position), Counter>",
        help: "Accepted tokens by method and draft position",
        computed: ::metric_handles::__private::std::option::Option::None,
        unit: ::metric_handles::__private::std::option::Option::None,
        common_labels: Self::__METRIC_HANDLES_COMMON_LABELS,
        axis: ::metric_handles::__private::describe_axis(
            Self::__METRIC_HANDLES_ACCEPTED_OPS.axis,
            &["method", "position"],
            Self::__METRIC_HANDLES_ACCEPTED_GRID,
            2,
        ),
        buckets: ::metric_handles::__private::std::option::Option::None,
        native: ::metric_handles::__private::std::option::Option::None,
        max_series: ::metric_handles::limits::DEFAULT_MAX_SERIES,
        max_label_sets: ::metric_handles::limits::DEFAULT_MAX_LABEL_SETS,
        aliases: &[],
    };
    #[doc(hidden)]
    const __METRIC_HANDLES_OPERATIONS_CHECK_0: () = ::metric_handles::__private::assert_axis_key_is_free(
        Self::__METRIC_HANDLES_COMMON_LABELS,
        "operation",
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_OPERATIONS_CHECK_1: () = ::metric_handles::__private::assert_axis_key_is_free(
        Self::__METRIC_HANDLES_COMMON_LABELS,
        "status",
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_OPERATIONS_CHECK_2: () = ::metric_handles::__private::assert_axis_keys_are_free(
        Self::__METRIC_HANDLES_COMMON_LABELS,
        ::metric_handles::__private::dynamic_keys(
            Self::__METRIC_HANDLES_OPERATIONS_OPS.axis,
        ),
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_OPERATIONS_CHECK_3: () = ::metric_handles::__private::assert_fits_max_series(
        "operations",
        Self::__METRIC_HANDLES_OPERATIONS_OPS.axis,
        0,
        ::metric_handles::limits::DEFAULT_MAX_SERIES,
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_ACCEPTED_CHECK_0: () = ::metric_handles::__private::assert_axis_key_is_free(
        Self::__METRIC_HANDLES_COMMON_LABELS,
        "method",
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_ACCEPTED_CHECK_1: () = ::metric_handles::__private::assert_axis_key_is_free(
        Self::__METRIC_HANDLES_COMMON_LABELS,
        "position",
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_ACCEPTED_CHECK_2: () = ::metric_handles::__private::assert_axis_keys_are_free(
        Self::__METRIC_HANDLES_COMMON_LABELS,
        ::metric_handles::__private::dynamic_keys(
            Self::__METRIC_HANDLES_ACCEPTED_OPS.axis,
        ),
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_ACCEPTED_CHECK_3: () = ::metric_handles::__private::assert_fits_max_series(
        "accepted",
        Self::__METRIC_HANDLES_ACCEPTED_OPS.axis,
        2,
        ::metric_handles::limits::DEFAULT_MAX_SERIES,
    );
    /// Every metric this struct registers, in field order: names, kinds, help, labels
    /// and buckets, for documentation and tests.
    pub const DESCRIPTORS: &'static [::metric_handles::descriptor::MetricDescriptor] = &[
        Self::__METRIC_HANDLES_OPERATIONS,
        Self::__METRIC_HANDLES_ACCEPTED,
    ];
    /**Registers every metric of [`Grids`] in `registry`, as declared.

Each field's family is registered under its `name` (and unit), with its help text.*/
    ///
    /// # Panics
    ///
    /// If a name this struct exposes is already exposed by `registry` (the same struct
    /// registered twice, or another metric whose samples would collide with these);
    /// [`Self::try_register`] returns that error instead.
    #[track_caller]
    pub fn register(registry: &mut ::metric_handles::Registry) -> Self {
        Self::register_with(registry, &::metric_handles::RegisterOptions::new())
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
        registry: &mut ::metric_handles::Registry,
        options: &::metric_handles::RegisterOptions,
    ) -> Self {
        match Self::try_register_with(registry, options) {
            ::metric_handles::__private::std::result::Result::Ok(metrics) => metrics,
            ::metric_handles::__private::std::result::Result::Err(error) => {
                ::metric_handles::__private::std::panic!("{}", error)
            }
        }
    }
    /// Registers every metric in `registry`, as declared, unless a name this struct
    /// exposes (a family name, or a sample name such as `_total`, `_count`, `_bucket`)
    /// is already exposed by `registry`: then nothing is registered and the error says
    /// which names collide.
    pub fn try_register(
        registry: &mut ::metric_handles::Registry,
    ) -> ::metric_handles::__private::std::result::Result<
        Self,
        ::metric_handles::RegistrationError,
    > {
        Self::try_register_with(registry, &::metric_handles::RegisterOptions::new())
    }
    /// [`Self::try_register`] with run-time `options`.
    pub fn try_register_with(
        registry: &mut ::metric_handles::Registry,
        options: &::metric_handles::RegisterOptions,
    ) -> ::metric_handles::__private::std::result::Result<
        Self,
        ::metric_handles::RegistrationError,
    > {
        ::metric_handles::__private::check_registration(
            registry,
            "Grids",
            Self::DESCRIPTORS,
            options,
        )?;
        ::metric_handles::__private::std::result::Result::Ok(Self {
            operations: (Self::__METRIC_HANDLES_OPERATIONS_OPS
                .register)(registry, &Self::__METRIC_HANDLES_OPERATIONS, options),
            accepted: (Self::__METRIC_HANDLES_ACCEPTED_OPS
                .register)(registry, &Self::__METRIC_HANDLES_ACCEPTED, options),
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
        families: &::metric_handles::family::RuntimeFamilies<Store>,
    ) -> ::metric_handles::__private::std::result::Result<
        Self,
        ::metric_handles::RegistrationError,
    > {
        let declared = ::metric_handles::__private::DeclaredFamilies::claim(
            families,
            "Grids",
            Self::DESCRIPTORS,
        )?;
        let declared = &declared;
        let options = &::metric_handles::RegisterOptions::new();
        ::metric_handles::__private::std::result::Result::Ok(Self {
            operations: (Self::__METRIC_HANDLES_OPERATIONS_OPS
                .register_in)(declared, &Self::__METRIC_HANDLES_OPERATIONS, options),
            accepted: (Self::__METRIC_HANDLES_ACCEPTED_OPS
                .register_in)(declared, &Self::__METRIC_HANDLES_ACCEPTED, options),
        })
    }
    /**Resolves every metric's series for `labels` once, into [`GridsHandles`].

This is the slow path (hash, lock, maybe allocate); recording through the returned handles is atomic operations only. Call it once per label set and keep the result.*/
    pub fn resolve(&self, labels: &Store) -> GridsHandles {
        GridsHandles {
            operations: (Self::__METRIC_HANDLES_OPERATIONS_OPS
                .resolve)(&self.operations, labels),
            accepted: (Self::__METRIC_HANDLES_ACCEPTED_OPS
                .resolve)(&self.accepted, labels),
        }
    }
    /// Removes every series of `labels` from the exposition (an engine that left).
    /// Handles resolved earlier keep working but are no longer exported.
    pub fn remove(&self, labels: &Store) {
        let _ = (Self::__METRIC_HANDLES_OPERATIONS_OPS.remove)(&self.operations, labels);
        let _ = (Self::__METRIC_HANDLES_ACCEPTED_OPS.remove)(&self.accepted, labels);
    }
}
const _: () = Grids::__METRIC_HANDLES_OPERATIONS_CHECK_0;
const _: () = Grids::__METRIC_HANDLES_OPERATIONS_CHECK_1;
const _: () = Grids::__METRIC_HANDLES_OPERATIONS_CHECK_2;
const _: () = Grids::__METRIC_HANDLES_OPERATIONS_CHECK_3;
const _: () = Grids::__METRIC_HANDLES_ACCEPTED_CHECK_0;
const _: () = Grids::__METRIC_HANDLES_ACCEPTED_CHECK_1;
const _: () = Grids::__METRIC_HANDLES_ACCEPTED_CHECK_2;
const _: () = Grids::__METRIC_HANDLES_ACCEPTED_CHECK_3;
