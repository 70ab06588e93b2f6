///Cached handles of [`Axes`] for one label set.
///
#[derive(Clone)]
pub struct AxesHandles {
    /// Finished requests by reason
    pub success: ByLabel<FinishReason, Counter>,
    /// Accepted draft tokens by position
    pub accepted: ByPosition<Counter>,
    /// Latency by adapter
    pub lora_latency: Dynamic<Adapter, Histogram>,
}
#[automatically_derived]
impl ::core::fmt::Debug for AxesHandles {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        let debug = &mut f.debug_struct("AxesHandles");
        debug.field("success", &self.success);
        debug.field("accepted", &self.accepted);
        debug.field("lora_latency", &self.lora_latency);
        debug.finish()
    }
}
impl Axes {
    #[doc(hidden)]
    const __METRIC_HANDLES_COMMON_LABELS: &'static [&'static str] = <Engine as ::metric_handles::LabelSet>::KEYS;
    #[doc(hidden)]
    const __METRIC_HANDLES_SUCCESS_GRID: &'static [::metric_handles::LabelAxis] = &[
        ::metric_handles::__private::grid_axis(
            <ByLabel<FinishReason, Counter> as ::metric_handles::FamilyMember>::AXIS,
            0usize,
            "finished_reason",
            0,
        ),
    ];
    #[doc(hidden)]
    const __METRIC_HANDLES_SUCCESS: ::metric_handles::MetricDescriptor = ::metric_handles::MetricDescriptor {
        name: "ax:request_success",
        field: "success",
        kind: <ByLabel<FinishReason, Counter> as ::metric_handles::FamilyMember>::KIND,
        value_type: "ByLabel<FinishReason, Counter>",
        help: "Finished requests by reason",
        unit: ::metric_handles::__private::std::option::Option::None,
        common_labels: Self::__METRIC_HANDLES_COMMON_LABELS,
        axis: ::metric_handles::__private::describe_axis(
            <ByLabel<FinishReason, Counter> as ::metric_handles::FamilyMember>::AXIS,
            &["finished_reason"],
            Self::__METRIC_HANDLES_SUCCESS_GRID,
            0,
        ),
        buckets: ::metric_handles::__private::std::option::Option::None,
        max_series: ::metric_handles::DEFAULT_MAX_SERIES,
        max_label_sets: ::metric_handles::DEFAULT_MAX_LABEL_SETS,
        aliases: &[],
    };
    #[doc(hidden)]
    const __METRIC_HANDLES_ACCEPTED_GRID: &'static [::metric_handles::LabelAxis] = &[
        ::metric_handles::__private::grid_axis(
            <ByPosition<Counter> as ::metric_handles::FamilyMember>::AXIS,
            0usize,
            "position",
            3,
        ),
    ];
    #[doc(hidden)]
    const __METRIC_HANDLES_ACCEPTED: ::metric_handles::MetricDescriptor = ::metric_handles::MetricDescriptor {
        name: "ax:accepted",
        field: "accepted",
        kind: <ByPosition<Counter> as ::metric_handles::FamilyMember>::KIND,
        value_type: "ByPosition<Counter>",
        help: "Accepted draft tokens by position",
        unit: ::metric_handles::__private::std::option::Option::None,
        common_labels: Self::__METRIC_HANDLES_COMMON_LABELS,
        axis: ::metric_handles::__private::describe_axis(
            <ByPosition<Counter> as ::metric_handles::FamilyMember>::AXIS,
            &["position"],
            Self::__METRIC_HANDLES_ACCEPTED_GRID,
            3,
        ),
        buckets: ::metric_handles::__private::std::option::Option::None,
        max_series: ::metric_handles::DEFAULT_MAX_SERIES,
        max_label_sets: ::metric_handles::DEFAULT_MAX_LABEL_SETS,
        aliases: &[],
    };
    #[doc(hidden)]
    const __METRIC_HANDLES_LORA_LATENCY: ::metric_handles::MetricDescriptor = ::metric_handles::MetricDescriptor {
        name: "ax:lora_latency",
        field: "lora_latency",
        kind: <Dynamic<Adapter, Histogram> as ::metric_handles::FamilyMember>::KIND,
        value_type: "Dynamic<Adapter, Histogram>",
        help: "Latency by adapter",
        unit: ::metric_handles::__private::std::option::Option::None,
        common_labels: Self::__METRIC_HANDLES_COMMON_LABELS,
        axis: ::metric_handles::__private::describe_axis(
            <Dynamic<Adapter, Histogram> as ::metric_handles::FamilyMember>::AXIS,
            &[],
            &[],
            0,
        ),
        buckets: ::metric_handles::__private::std::option::Option::Some(::metric_handles::Buckets::Exponential {
            start: 0.5,
            factor: 2.0,
            count: 4,
        }),
        max_series: 16,
        max_label_sets: ::metric_handles::DEFAULT_MAX_LABEL_SETS,
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
            <ByLabel<FinishReason, Counter> as ::metric_handles::FamilyMember>::AXIS,
        ),
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_SUCCESS_CHECK_2: () = if <ByLabel<
        FinishReason,
        Counter,
    > as ::metric_handles::FamilyMember>::AXIS
        .preresolved(0) > ::metric_handles::DEFAULT_MAX_SERIES
    {
        ::core::panic!(
            "field `success`: its fixed axes pre-resolve more series per label set than its `max_series` allows (the product of the axes' lengths): raise `max_series`, or lower `positions`"
        )
    };
    #[doc(hidden)]
    const __METRIC_HANDLES_ACCEPTED_CHECK_0: () = ::metric_handles::__private::assert_axis_key_is_free(
        Self::__METRIC_HANDLES_COMMON_LABELS,
        "position",
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_ACCEPTED_CHECK_1: () = ::metric_handles::__private::assert_axis_keys_are_free(
        Self::__METRIC_HANDLES_COMMON_LABELS,
        ::metric_handles::__private::dynamic_keys(
            <ByPosition<Counter> as ::metric_handles::FamilyMember>::AXIS,
        ),
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_ACCEPTED_CHECK_2: () = if <ByPosition<
        Counter,
    > as ::metric_handles::FamilyMember>::AXIS
        .preresolved(3) > ::metric_handles::DEFAULT_MAX_SERIES
    {
        ::core::panic!(
            "field `accepted`: its fixed axes pre-resolve more series per label set than its `max_series` allows (the product of the axes' lengths): raise `max_series`, or lower `positions`"
        )
    };
    #[doc(hidden)]
    const __METRIC_HANDLES_LORA_LATENCY_CHECK_0: () = ::metric_handles::__private::assert_axis_keys_are_free(
        Self::__METRIC_HANDLES_COMMON_LABELS,
        ::metric_handles::__private::dynamic_keys(
            <Dynamic<Adapter, Histogram> as ::metric_handles::FamilyMember>::AXIS,
        ),
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_LORA_LATENCY_CHECK_1: () = ::metric_handles::__private::assert_valid_generator(::metric_handles::Buckets::Exponential {
        start: 0.5,
        factor: 2.0,
        count: 4,
    });
    #[doc(hidden)]
    const __METRIC_HANDLES_LORA_LATENCY_CHECK_2: () = if <Dynamic<
        Adapter,
        Histogram,
    > as ::metric_handles::FamilyMember>::AXIS
        .preresolved(0) > 16
    {
        ::core::panic!(
            "field `lora_latency`: its fixed axes pre-resolve more series per label set than its `max_series` allows (the product of the axes' lengths): raise `max_series`, or lower `positions`"
        )
    };
    /// Every metric this struct registers, in field order: names, kinds, help, labels
    /// and buckets, for documentation and tests.
    pub const DESCRIPTORS: &'static [::metric_handles::MetricDescriptor] = &[
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
    pub fn register(registry: &mut ::metric_handles::Registry) -> Self {
        Self::register_with(registry, &::metric_handles::RegisterOptions::new())
    }
    /// Registers every metric in `registry`, with run-time `options` (bucket, position
    /// and series-limit overrides, deprecated names to show).
    ///
    /// # Panics
    ///
    /// As [`Self::register`]; [`Self::try_register_with`] returns the error instead.
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
            success: ::metric_handles::__private::register_family(
                registry,
                &Self::__METRIC_HANDLES_SUCCESS,
                options,
            ),
            accepted: ::metric_handles::__private::register_family(
                registry,
                &Self::__METRIC_HANDLES_ACCEPTED,
                options,
            ),
            lora_latency: ::metric_handles::__private::register_family(
                registry,
                &Self::__METRIC_HANDLES_LORA_LATENCY,
                options,
            ),
        })
    }
    /**Resolves every metric's series for `labels` once, into [`AxesHandles`].

This is the slow path (hash, lock, maybe allocate); recording through the returned handles is atomic operations only. Call it once per label set and keep the result.*/
    pub fn resolve(&self, labels: &Engine) -> AxesHandles {
        AxesHandles {
            success: self
                .success
                .get_or_create(
                    ::metric_handles::__private::same_labels::<Engine, _>(labels),
                ),
            accepted: self
                .accepted
                .get_or_create(
                    ::metric_handles::__private::same_labels::<Engine, _>(labels),
                ),
            lora_latency: self
                .lora_latency
                .get_or_create(
                    ::metric_handles::__private::same_labels::<Engine, _>(labels),
                ),
        }
    }
    /// Removes every series of `labels` from the exposition (an engine that left).
    /// Handles resolved earlier keep working but are no longer exported.
    pub fn remove(&self, labels: &Engine) {
        let _ = self
            .success
            .remove(::metric_handles::__private::same_labels::<Engine, _>(labels));
        let _ = self
            .accepted
            .remove(::metric_handles::__private::same_labels::<Engine, _>(labels));
        let _ = self
            .lora_latency
            .remove(::metric_handles::__private::same_labels::<Engine, _>(labels));
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
#[derive(Clone)]
pub struct GridsHandles {
    /// Store operations by operation and status
    pub operations: ByLabels<(Operation, Outcome), Counter>,
    /// Accepted tokens by method and draft position
    pub accepted: ByLabels<(Method, Position), Counter>,
}
#[automatically_derived]
impl ::core::fmt::Debug for GridsHandles {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        let debug = &mut f.debug_struct("GridsHandles");
        debug.field("operations", &self.operations);
        debug.field("accepted", &self.accepted);
        debug.finish()
    }
}
impl Grids {
    #[doc(hidden)]
    const __METRIC_HANDLES_COMMON_LABELS: &'static [&'static str] = <Store as ::metric_handles::LabelSet>::KEYS;
    #[doc(hidden)]
    const __METRIC_HANDLES_OPERATIONS_GRID: &'static [::metric_handles::LabelAxis] = &[
        ::metric_handles::__private::grid_axis(
            <ByLabels<
                (Operation, Outcome),
                Counter,
            > as ::metric_handles::FamilyMember>::AXIS,
            0usize,
            "operation",
            0,
        ),
        ::metric_handles::__private::grid_axis(
            <ByLabels<
                (Operation, Outcome),
                Counter,
            > as ::metric_handles::FamilyMember>::AXIS,
            1usize,
            "status",
            0,
        ),
    ];
    #[doc(hidden)]
    const __METRIC_HANDLES_OPERATIONS: ::metric_handles::MetricDescriptor = ::metric_handles::MetricDescriptor {
        name: "kv:operation",
        field: "operations",
        kind: <ByLabels<
            (Operation, Outcome),
            Counter,
        > as ::metric_handles::FamilyMember>::KIND,
        value_type: "ByLabels<(Operation, Outcome), Counter>",
        help: "Store operations by operation and status",
        unit: ::metric_handles::__private::std::option::Option::None,
        common_labels: Self::__METRIC_HANDLES_COMMON_LABELS,
        axis: ::metric_handles::__private::describe_axis(
            <ByLabels<
                (Operation, Outcome),
                Counter,
            > as ::metric_handles::FamilyMember>::AXIS,
            &["operation", "status"],
            Self::__METRIC_HANDLES_OPERATIONS_GRID,
            0,
        ),
        buckets: ::metric_handles::__private::std::option::Option::None,
        max_series: ::metric_handles::DEFAULT_MAX_SERIES,
        max_label_sets: ::metric_handles::DEFAULT_MAX_LABEL_SETS,
        aliases: &[],
    };
    #[doc(hidden)]
    const __METRIC_HANDLES_ACCEPTED_GRID: &'static [::metric_handles::LabelAxis] = &[
        ::metric_handles::__private::grid_axis(
            <ByLabels<
                (Method, Position),
                Counter,
            > as ::metric_handles::FamilyMember>::AXIS,
            0usize,
            "method",
            2,
        ),
        ::metric_handles::__private::grid_axis(
            <ByLabels<
                (Method, Position),
                Counter,
            > as ::metric_handles::FamilyMember>::AXIS,
            1usize,
            "position",
            2,
        ),
    ];
    #[doc(hidden)]
    const __METRIC_HANDLES_ACCEPTED: ::metric_handles::MetricDescriptor = ::metric_handles::MetricDescriptor {
        name: "kv:accepted",
        field: "accepted",
        kind: <ByLabels<
            (Method, Position),
            Counter,
        > as ::metric_handles::FamilyMember>::KIND,
        value_type: "ByLabels<(Method, Position), Counter>",
        help: "Accepted tokens by method and draft position",
        unit: ::metric_handles::__private::std::option::Option::None,
        common_labels: Self::__METRIC_HANDLES_COMMON_LABELS,
        axis: ::metric_handles::__private::describe_axis(
            <ByLabels<
                (Method, Position),
                Counter,
            > as ::metric_handles::FamilyMember>::AXIS,
            &["method", "position"],
            Self::__METRIC_HANDLES_ACCEPTED_GRID,
            2,
        ),
        buckets: ::metric_handles::__private::std::option::Option::None,
        max_series: ::metric_handles::DEFAULT_MAX_SERIES,
        max_label_sets: ::metric_handles::DEFAULT_MAX_LABEL_SETS,
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
            <ByLabels<
                (Operation, Outcome),
                Counter,
            > as ::metric_handles::FamilyMember>::AXIS,
        ),
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_OPERATIONS_CHECK_3: () = if <ByLabels<
        (Operation, Outcome),
        Counter,
    > as ::metric_handles::FamilyMember>::AXIS
        .preresolved(0) > ::metric_handles::DEFAULT_MAX_SERIES
    {
        ::core::panic!(
            "field `operations`: its fixed axes pre-resolve more series per label set than its `max_series` allows (the product of the axes' lengths): raise `max_series`, or lower `positions`"
        )
    };
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
            <ByLabels<
                (Method, Position),
                Counter,
            > as ::metric_handles::FamilyMember>::AXIS,
        ),
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_ACCEPTED_CHECK_3: () = if <ByLabels<
        (Method, Position),
        Counter,
    > as ::metric_handles::FamilyMember>::AXIS
        .preresolved(2) > ::metric_handles::DEFAULT_MAX_SERIES
    {
        ::core::panic!(
            "field `accepted`: its fixed axes pre-resolve more series per label set than its `max_series` allows (the product of the axes' lengths): raise `max_series`, or lower `positions`"
        )
    };
    /// Every metric this struct registers, in field order: names, kinds, help, labels
    /// and buckets, for documentation and tests.
    pub const DESCRIPTORS: &'static [::metric_handles::MetricDescriptor] = &[
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
    pub fn register(registry: &mut ::metric_handles::Registry) -> Self {
        Self::register_with(registry, &::metric_handles::RegisterOptions::new())
    }
    /// Registers every metric in `registry`, with run-time `options` (bucket, position
    /// and series-limit overrides, deprecated names to show).
    ///
    /// # Panics
    ///
    /// As [`Self::register`]; [`Self::try_register_with`] returns the error instead.
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
            operations: ::metric_handles::__private::register_family(
                registry,
                &Self::__METRIC_HANDLES_OPERATIONS,
                options,
            ),
            accepted: ::metric_handles::__private::register_family(
                registry,
                &Self::__METRIC_HANDLES_ACCEPTED,
                options,
            ),
        })
    }
    /**Resolves every metric's series for `labels` once, into [`GridsHandles`].

This is the slow path (hash, lock, maybe allocate); recording through the returned handles is atomic operations only. Call it once per label set and keep the result.*/
    pub fn resolve(&self, labels: &Store) -> GridsHandles {
        GridsHandles {
            operations: self
                .operations
                .get_or_create(
                    ::metric_handles::__private::same_labels::<Store, _>(labels),
                ),
            accepted: self
                .accepted
                .get_or_create(
                    ::metric_handles::__private::same_labels::<Store, _>(labels),
                ),
        }
    }
    /// Removes every series of `labels` from the exposition (an engine that left).
    /// Handles resolved earlier keep working but are no longer exported.
    pub fn remove(&self, labels: &Store) {
        let _ = self
            .operations
            .remove(::metric_handles::__private::same_labels::<Store, _>(labels));
        let _ = self
            .accepted
            .remove(::metric_handles::__private::same_labels::<Store, _>(labels));
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
