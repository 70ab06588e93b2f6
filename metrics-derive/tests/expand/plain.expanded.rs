///Cached handles of [`EngineMetrics`] for one label set.
///
#[allow(clippy::struct_field_names)]
pub struct EngineHandles {
    /// Number of requests in model execution batches
    pub running: Gauge,
    /// Number of generation tokens processed
    ///
    /// # Computed
    ///
    /// Increased by the tokens of each output.
    pub generation_tokens: Counter,
    /// Time to first token
    pub ttft: Histogram,
    /// The engine's build
    #[allow(dead_code)]
    pub build: Info,
}
#[automatically_derived]
impl ::core::clone::Clone for EngineHandles {
    fn clone(&self) -> Self {
        EngineHandles {
            running: (<EngineMetrics>::__METRIC_HANDLES_RUNNING_OPS
                .clone_member)(&self.running),
            generation_tokens: (<EngineMetrics>::__METRIC_HANDLES_GENERATION_TOKENS_OPS
                .clone_member)(&self.generation_tokens),
            ttft: (<EngineMetrics>::__METRIC_HANDLES_TTFT_OPS.clone_member)(&self.ttft),
            build: (<EngineMetrics>::__METRIC_HANDLES_BUILD_OPS
                .clone_member)(&self.build),
        }
    }
}
#[automatically_derived]
impl ::core::fmt::Debug for EngineHandles {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        let debug = &mut f.debug_struct("EngineHandles");
        debug
            .field(
                "running",
                &::metric_handles::__private::DebugMember(
                    &self.running,
                    <EngineMetrics>::__METRIC_HANDLES_RUNNING_OPS.debug_member,
                ),
            );
        debug
            .field(
                "generation_tokens",
                &::metric_handles::__private::DebugMember(
                    &self.generation_tokens,
                    <EngineMetrics>::__METRIC_HANDLES_GENERATION_TOKENS_OPS.debug_member,
                ),
            );
        debug
            .field(
                "ttft",
                &::metric_handles::__private::DebugMember(
                    &self.ttft,
                    <EngineMetrics>::__METRIC_HANDLES_TTFT_OPS.debug_member,
                ),
            );
        debug
            .field(
                "build",
                &::metric_handles::__private::DebugMember(
                    &self.build,
                    <EngineMetrics>::__METRIC_HANDLES_BUILD_OPS.debug_member,
                ),
            );
        debug.finish()
    }
}
impl EngineMetrics {
    #[doc(hidden)]
    const __METRIC_HANDLES_COMMON_LABELS: &'static [&'static str] = ::metric_handles::__private::field_ops::<
        EngineLabels,
        ::metric_handles::Family<EngineLabels, ::metric_handles::Counter>,
        EngineLabels,
        ::metric_handles::Counter,
    >()
        .common_keys;
    #[doc(hidden)]
    const __METRIC_HANDLES_RUNNING_OPS: ::metric_handles::__private::FieldOps<
        EngineLabels,
        Family<EngineLabels, Gauge>,
        Gauge,
    > = ::metric_handles::__private::field_ops::<
        EngineLabels,
        Family<EngineLabels, Gauge>,
        EngineLabels,
        Gauge,
    >();
    #[doc(hidden)]
    const __METRIC_HANDLES_GENERATION_TOKENS_OPS: ::metric_handles::__private::FieldOps<
        EngineLabels,
        Family<EngineLabels, Counter>,
        Counter,
    > = ::metric_handles::__private::field_ops::<
        EngineLabels,
        Family<EngineLabels, Counter>,
        EngineLabels,
        Counter,
    >();
    #[doc(hidden)]
    const __METRIC_HANDLES_TTFT_OPS: ::metric_handles::__private::FieldOps<
        EngineLabels,
        Family<EngineLabels, Histogram>,
        Histogram,
    > = ::metric_handles::__private::field_ops::<
        EngineLabels,
        Family<EngineLabels, Histogram>,
        EngineLabels,
        Histogram,
    >();
    #[doc(hidden)]
    const __METRIC_HANDLES_BUILD_OPS: ::metric_handles::__private::FieldOps<
        EngineLabels,
        Family<EngineLabels, Info>,
        Info,
    > = ::metric_handles::__private::field_ops::<
        EngineLabels,
        Family<EngineLabels, Info>,
        EngineLabels,
        Info,
    >();
    #[doc(hidden)]
    const __METRIC_HANDLES_RUNNING: ::metric_handles::descriptor::MetricDescriptor = ::metric_handles::descriptor::MetricDescriptor {
        name: "demo:num_requests_running",
        field: "running",
        kind: Self::__METRIC_HANDLES_RUNNING_OPS.kind,
        value_type: "Gauge",
        help: "Number of requests in model execution batches",
        computed: ::metric_handles::__private::std::option::Option::None,
        unit: ::metric_handles::__private::std::option::Option::None,
        common_labels: Self::__METRIC_HANDLES_COMMON_LABELS,
        axis: ::metric_handles::__private::describe_axis(
            Self::__METRIC_HANDLES_RUNNING_OPS.axis,
            &[],
            &[],
            0,
        ),
        buckets: ::metric_handles::__private::std::option::Option::None,
        native: ::metric_handles::__private::std::option::Option::None,
        max_series: ::metric_handles::limits::DEFAULT_MAX_SERIES,
        max_label_sets: ::metric_handles::limits::DEFAULT_MAX_LABEL_SETS,
        aliases: &[],
    };
    #[doc(hidden)]
    const __METRIC_HANDLES_GENERATION_TOKENS: ::metric_handles::descriptor::MetricDescriptor = ::metric_handles::descriptor::MetricDescriptor {
        name: "demo:generation_tokens",
        field: "generation_tokens",
        kind: Self::__METRIC_HANDLES_GENERATION_TOKENS_OPS.kind,
        value_type: "Counter",
        help: "Number of generation tokens processed",
        computed: ::metric_handles::__private::std::option::Option::Some(
            "Increased by the tokens of each output.",
        ),
        unit: ::metric_handles::__private::std::option::Option::None,
        common_labels: Self::__METRIC_HANDLES_COMMON_LABELS,
        axis: ::metric_handles::__private::describe_axis(
            Self::__METRIC_HANDLES_GENERATION_TOKENS_OPS.axis,
            &[],
            &[],
            0,
        ),
        buckets: ::metric_handles::__private::std::option::Option::None,
        native: ::metric_handles::__private::std::option::Option::None,
        max_series: ::metric_handles::limits::DEFAULT_MAX_SERIES,
        max_label_sets: ::metric_handles::limits::DEFAULT_MAX_LABEL_SETS,
        aliases: &[],
    };
    #[doc(hidden)]
    const __METRIC_HANDLES_TTFT: ::metric_handles::descriptor::MetricDescriptor = ::metric_handles::descriptor::MetricDescriptor {
        name: "demo:time_to_first_token",
        field: "ttft",
        kind: Self::__METRIC_HANDLES_TTFT_OPS.kind,
        value_type: "Histogram",
        help: "Time to first token",
        computed: ::metric_handles::__private::std::option::Option::None,
        unit: ::metric_handles::__private::std::option::Option::Some("seconds"),
        common_labels: Self::__METRIC_HANDLES_COMMON_LABELS,
        axis: ::metric_handles::__private::describe_axis(
            Self::__METRIC_HANDLES_TTFT_OPS.axis,
            &[],
            &[],
            0,
        ),
        buckets: ::metric_handles::__private::std::option::Option::Some(
            ::metric_handles::Buckets::Explicit(&[0.01, 0.1, 1.0]),
        ),
        native: ::metric_handles::__private::std::option::Option::None,
        max_series: ::metric_handles::limits::DEFAULT_MAX_SERIES,
        max_label_sets: ::metric_handles::limits::DEFAULT_MAX_LABEL_SETS,
        aliases: &[],
    };
    #[doc(hidden)]
    const __METRIC_HANDLES_BUILD: ::metric_handles::descriptor::MetricDescriptor = ::metric_handles::descriptor::MetricDescriptor {
        name: "demo:build",
        field: "build",
        kind: Self::__METRIC_HANDLES_BUILD_OPS.kind,
        value_type: "Info",
        help: "The engine's build",
        computed: ::metric_handles::__private::std::option::Option::None,
        unit: ::metric_handles::__private::std::option::Option::None,
        common_labels: Self::__METRIC_HANDLES_COMMON_LABELS,
        axis: ::metric_handles::__private::describe_axis(
            Self::__METRIC_HANDLES_BUILD_OPS.axis,
            &[],
            &[],
            0,
        ),
        buckets: ::metric_handles::__private::std::option::Option::None,
        native: ::metric_handles::__private::std::option::Option::None,
        max_series: ::metric_handles::limits::DEFAULT_MAX_SERIES,
        max_label_sets: ::metric_handles::limits::DEFAULT_MAX_LABEL_SETS,
        aliases: &[],
    };
    #[doc(hidden)]
    const __METRIC_HANDLES_RUNNING_CHECK_0: () = ::metric_handles::__private::assert_axis_keys_are_free(
        Self::__METRIC_HANDLES_COMMON_LABELS,
        ::metric_handles::__private::dynamic_keys(
            Self::__METRIC_HANDLES_RUNNING_OPS.axis,
        ),
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_RUNNING_CHECK_1: () = ::metric_handles::__private::assert_fits_max_series(
        "running",
        Self::__METRIC_HANDLES_RUNNING_OPS.axis,
        0,
        ::metric_handles::limits::DEFAULT_MAX_SERIES,
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_GENERATION_TOKENS_CHECK_0: () = ::metric_handles::__private::assert_axis_keys_are_free(
        Self::__METRIC_HANDLES_COMMON_LABELS,
        ::metric_handles::__private::dynamic_keys(
            Self::__METRIC_HANDLES_GENERATION_TOKENS_OPS.axis,
        ),
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_GENERATION_TOKENS_CHECK_1: () = ::metric_handles::__private::assert_fits_max_series(
        "generation_tokens",
        Self::__METRIC_HANDLES_GENERATION_TOKENS_OPS.axis,
        0,
        ::metric_handles::limits::DEFAULT_MAX_SERIES,
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_TTFT_CHECK_0: () = ::metric_handles::__private::assert_axis_keys_are_free(
        Self::__METRIC_HANDLES_COMMON_LABELS,
        ::metric_handles::__private::dynamic_keys(Self::__METRIC_HANDLES_TTFT_OPS.axis),
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_TTFT_CHECK_1: () = ::metric_handles::__private::assert_fits_max_series(
        "ttft",
        Self::__METRIC_HANDLES_TTFT_OPS.axis,
        0,
        ::metric_handles::limits::DEFAULT_MAX_SERIES,
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_BUILD_CHECK_0: () = ::metric_handles::__private::assert_axis_keys_are_free(
        Self::__METRIC_HANDLES_COMMON_LABELS,
        ::metric_handles::__private::dynamic_keys(Self::__METRIC_HANDLES_BUILD_OPS.axis),
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_BUILD_CHECK_1: () = ::metric_handles::__private::assert_fits_max_series(
        "build",
        Self::__METRIC_HANDLES_BUILD_OPS.axis,
        0,
        ::metric_handles::limits::DEFAULT_MAX_SERIES,
    );
    /// Every metric this struct registers, in field order: names, kinds, help, labels
    /// and buckets, for documentation and tests.
    pub const DESCRIPTORS: &'static [::metric_handles::descriptor::MetricDescriptor] = &[
        Self::__METRIC_HANDLES_RUNNING,
        Self::__METRIC_HANDLES_GENERATION_TOKENS,
        Self::__METRIC_HANDLES_TTFT,
        Self::__METRIC_HANDLES_BUILD,
    ];
    /**Registers every metric of [`EngineMetrics`] in `registry`, as declared.

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
            "EngineMetrics",
            Self::DESCRIPTORS,
            options,
        )?;
        ::metric_handles::__private::std::result::Result::Ok(Self {
            running: (Self::__METRIC_HANDLES_RUNNING_OPS
                .register)(registry, &Self::__METRIC_HANDLES_RUNNING, options),
            generation_tokens: (Self::__METRIC_HANDLES_GENERATION_TOKENS_OPS
                .register)(registry, &Self::__METRIC_HANDLES_GENERATION_TOKENS, options),
            ttft: (Self::__METRIC_HANDLES_TTFT_OPS
                .register)(registry, &Self::__METRIC_HANDLES_TTFT, options),
            build: (Self::__METRIC_HANDLES_BUILD_OPS
                .register)(registry, &Self::__METRIC_HANDLES_BUILD, options),
            started: ::metric_handles::__private::skipped_field::<u64>(),
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
        families: &::metric_handles::family::RuntimeFamilies<EngineLabels>,
    ) -> ::metric_handles::__private::std::result::Result<
        Self,
        ::metric_handles::RegistrationError,
    > {
        let declared = ::metric_handles::__private::DeclaredFamilies::claim(
            families,
            "EngineMetrics",
            Self::DESCRIPTORS,
        )?;
        let declared = &declared;
        let options = &::metric_handles::RegisterOptions::new();
        ::metric_handles::__private::std::result::Result::Ok(Self {
            running: (Self::__METRIC_HANDLES_RUNNING_OPS
                .register_in)(declared, &Self::__METRIC_HANDLES_RUNNING, options),
            generation_tokens: (Self::__METRIC_HANDLES_GENERATION_TOKENS_OPS
                .register_in)(
                declared,
                &Self::__METRIC_HANDLES_GENERATION_TOKENS,
                options,
            ),
            ttft: (Self::__METRIC_HANDLES_TTFT_OPS
                .register_in)(declared, &Self::__METRIC_HANDLES_TTFT, options),
            build: (Self::__METRIC_HANDLES_BUILD_OPS
                .register_in)(declared, &Self::__METRIC_HANDLES_BUILD, options),
            started: ::metric_handles::__private::skipped_field::<u64>(),
        })
    }
    /**Resolves every metric's series for `labels` once, into [`EngineHandles`].

This is the slow path (hash, lock, maybe allocate); recording through the returned handles is atomic operations only. Call it once per label set and keep the result.*/
    pub fn resolve(&self, labels: &EngineLabels) -> EngineHandles {
        let handles = EngineHandles {
            running: (Self::__METRIC_HANDLES_RUNNING_OPS.resolve)(&self.running, labels),
            generation_tokens: (Self::__METRIC_HANDLES_GENERATION_TOKENS_OPS
                .resolve)(&self.generation_tokens, labels),
            ttft: (Self::__METRIC_HANDLES_TTFT_OPS.resolve)(&self.ttft, labels),
            build: (Self::__METRIC_HANDLES_BUILD_OPS.resolve)(&self.build, labels),
        };
        let _ = &handles.build;
        handles
    }
    /// Removes every series of `labels` from the exposition (an engine that left).
    /// Handles resolved earlier keep working but are no longer exported.
    pub fn remove(&self, labels: &EngineLabels) {
        let _ = (Self::__METRIC_HANDLES_RUNNING_OPS.remove)(&self.running, labels);
        let _ = (Self::__METRIC_HANDLES_GENERATION_TOKENS_OPS
            .remove)(&self.generation_tokens, labels);
        let _ = (Self::__METRIC_HANDLES_TTFT_OPS.remove)(&self.ttft, labels);
        let _ = (Self::__METRIC_HANDLES_BUILD_OPS.remove)(&self.build, labels);
    }
}
const _: () = EngineMetrics::__METRIC_HANDLES_RUNNING_CHECK_0;
const _: () = EngineMetrics::__METRIC_HANDLES_RUNNING_CHECK_1;
const _: () = EngineMetrics::__METRIC_HANDLES_GENERATION_TOKENS_CHECK_0;
const _: () = EngineMetrics::__METRIC_HANDLES_GENERATION_TOKENS_CHECK_1;
const _: () = EngineMetrics::__METRIC_HANDLES_TTFT_CHECK_0;
const _: () = EngineMetrics::__METRIC_HANDLES_TTFT_CHECK_1;
const _: () = EngineMetrics::__METRIC_HANDLES_BUILD_CHECK_0;
const _: () = EngineMetrics::__METRIC_HANDLES_BUILD_CHECK_1;
