///Cached handles of [`Metrics`] for one label set.
///
pub struct MetricsHandles {
    ///Cumulative number of preemptions
    pub preemptions: Counter,
    /// Tokens generated (a type alias of a counter)
    pub tokens: U64Counter,
    /// Requests running (prometheus-client's gauge by its own path)
    pub running: prometheus_client::metrics::gauge::Gauge,
}
#[automatically_derived]
impl ::core::clone::Clone for MetricsHandles {
    fn clone(&self) -> Self {
        MetricsHandles {
            preemptions: (<Metrics>::__METRIC_HANDLES_PREEMPTIONS_OPS
                .clone_member)(&self.preemptions),
            tokens: (<Metrics>::__METRIC_HANDLES_TOKENS_OPS.clone_member)(&self.tokens),
            running: (<Metrics>::__METRIC_HANDLES_RUNNING_OPS
                .clone_member)(&self.running),
        }
    }
}
#[automatically_derived]
impl ::core::fmt::Debug for MetricsHandles {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        let debug = &mut f.debug_struct("MetricsHandles");
        debug
            .field(
                "preemptions",
                &::metric_handles::__private::DebugMember(
                    &self.preemptions,
                    <Metrics>::__METRIC_HANDLES_PREEMPTIONS_OPS.debug_member,
                ),
            );
        debug
            .field(
                "tokens",
                &::metric_handles::__private::DebugMember(
                    &self.tokens,
                    <Metrics>::__METRIC_HANDLES_TOKENS_OPS.debug_member,
                ),
            );
        debug
            .field(
                "running",
                &::metric_handles::__private::DebugMember(
                    &self.running,
                    <Metrics>::__METRIC_HANDLES_RUNNING_OPS.debug_member,
                ),
            );
        debug.finish()
    }
}
impl Metrics {
    #[doc(hidden)]
    const __METRIC_HANDLES_COMMON_LABELS: &'static [&'static str] = ::metric_handles::__private::field_ops::<
        NoLabels,
        ::metric_handles::Family<NoLabels, ::metric_handles::Counter>,
        NoLabels,
        ::metric_handles::Counter,
    >()
        .common_keys;
    #[doc(hidden)]
    const __METRIC_HANDLES_PREEMPTIONS_OPS: ::metric_handles::__private::FieldOps<
        NoLabels,
        Family<NoLabels, Counter>,
        Counter,
    > = ::metric_handles::__private::field_ops::<
        NoLabels,
        Family<NoLabels, Counter>,
        NoLabels,
        Counter,
    >();
    #[doc(hidden)]
    const __METRIC_HANDLES_TOKENS_OPS: ::metric_handles::__private::FieldOps<
        NoLabels,
        Family<NoLabels, U64Counter>,
        U64Counter,
    > = ::metric_handles::__private::field_ops::<
        NoLabels,
        Family<NoLabels, U64Counter>,
        NoLabels,
        U64Counter,
    >();
    #[doc(hidden)]
    const __METRIC_HANDLES_RUNNING_OPS: ::metric_handles::__private::FieldOps<
        NoLabels,
        Family<NoLabels, prometheus_client::metrics::gauge::Gauge>,
        prometheus_client::metrics::gauge::Gauge,
    > = ::metric_handles::__private::field_ops::<
        NoLabels,
        Family<NoLabels, prometheus_client::metrics::gauge::Gauge>,
        NoLabels,
        prometheus_client::metrics::gauge::Gauge,
    >();
    #[doc(hidden)]
    const __METRIC_HANDLES_PREEMPTIONS: ::metric_handles::descriptor::MetricDescriptor = ::metric_handles::descriptor::MetricDescriptor {
        name: "vllm:num_preemptions",
        field: "preemptions",
        kind: Self::__METRIC_HANDLES_PREEMPTIONS_OPS.kind,
        value_type: "Counter",
        help: "Cumulative number of preemptions",
        computed: ::metric_handles::__private::std::option::Option::None,
        unit: ::metric_handles::__private::std::option::Option::None,
        common_labels: Self::__METRIC_HANDLES_COMMON_LABELS,
        axis: ::metric_handles::__private::describe_axis(
            Self::__METRIC_HANDLES_PREEMPTIONS_OPS.axis,
            &[],
            &[],
            0,
        ),
        buckets: ::metric_handles::__private::std::option::Option::None,
        native: ::metric_handles::__private::std::option::Option::None,
        max_series: ::metric_handles::limits::DEFAULT_MAX_SERIES,
        max_label_sets: ::metric_handles::limits::DEFAULT_MAX_LABEL_SETS,
        aliases: &[
            ::metric_handles::descriptor::Alias {
                name: "vllm:num_preemptions_old",
                deprecated_in: "0.10",
            },
        ],
    };
    #[doc(hidden)]
    const __METRIC_HANDLES_TOKENS: ::metric_handles::descriptor::MetricDescriptor = ::metric_handles::descriptor::MetricDescriptor {
        name: "vllm:generation_tokens",
        field: "tokens",
        kind: Self::__METRIC_HANDLES_TOKENS_OPS.kind,
        value_type: "U64Counter",
        help: "Tokens generated (a type alias of a counter)",
        computed: ::metric_handles::__private::std::option::Option::None,
        unit: ::metric_handles::__private::std::option::Option::None,
        common_labels: Self::__METRIC_HANDLES_COMMON_LABELS,
        axis: ::metric_handles::__private::describe_axis(
            Self::__METRIC_HANDLES_TOKENS_OPS.axis,
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
    const __METRIC_HANDLES_RUNNING: ::metric_handles::descriptor::MetricDescriptor = ::metric_handles::descriptor::MetricDescriptor {
        name: "vllm:num_requests_running",
        field: "running",
        kind: Self::__METRIC_HANDLES_RUNNING_OPS.kind,
        value_type: "prometheus_client::metrics::gauge::Gauge",
        help: "Requests running (prometheus-client's gauge by its own path)",
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
    const __METRIC_HANDLES_PREEMPTIONS_CHECK_0: () = ::metric_handles::__private::assert_axis_keys_are_free(
        Self::__METRIC_HANDLES_COMMON_LABELS,
        ::metric_handles::__private::dynamic_keys(
            Self::__METRIC_HANDLES_PREEMPTIONS_OPS.axis,
        ),
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_PREEMPTIONS_CHECK_1: () = ::metric_handles::__private::assert_fits_max_series(
        "preemptions",
        Self::__METRIC_HANDLES_PREEMPTIONS_OPS.axis,
        0,
        ::metric_handles::limits::DEFAULT_MAX_SERIES,
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_TOKENS_CHECK_0: () = ::metric_handles::__private::assert_axis_keys_are_free(
        Self::__METRIC_HANDLES_COMMON_LABELS,
        ::metric_handles::__private::dynamic_keys(Self::__METRIC_HANDLES_TOKENS_OPS.axis),
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_TOKENS_CHECK_1: () = if ::metric_handles::__private::has_buckets(
        Self::__METRIC_HANDLES_TOKENS_OPS.kind,
    ) {
        ::core::panic!(
            "field `tokens`: `U64Counter` is a histogram and needs buckets: add e.g. `buckets = [0.1, 0.5, 1.0]` or `buckets = exponential(start = 0.001, factor = 2.0, count = 16)`"
        )
    };
    #[doc(hidden)]
    const __METRIC_HANDLES_TOKENS_CHECK_2: () = if Self::__METRIC_HANDLES_TOKENS_OPS
        .axis
        .label_keys() != 0usize
    {
        ::core::panic!(
            "field `tokens`: `U64Counter` has a fixed label axis: name its key with `#[metric(label = \"...\")]`, one key per axis (`label = [\"a\", \"b\"]`)"
        )
    };
    #[doc(hidden)]
    const __METRIC_HANDLES_TOKENS_CHECK_3: () = ::metric_handles::__private::assert_fits_max_series(
        "tokens",
        Self::__METRIC_HANDLES_TOKENS_OPS.axis,
        0,
        ::metric_handles::limits::DEFAULT_MAX_SERIES,
    );
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
    /// Every metric this struct registers, in field order: names, kinds, help, labels
    /// and buckets, for documentation and tests.
    pub const DESCRIPTORS: &'static [::metric_handles::descriptor::MetricDescriptor] = &[
        Self::__METRIC_HANDLES_PREEMPTIONS,
        Self::__METRIC_HANDLES_TOKENS,
        Self::__METRIC_HANDLES_RUNNING,
    ];
    /**Registers every metric of [`Metrics`] in `registry`, as declared.

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
            "Metrics",
            Self::DESCRIPTORS,
            options,
        )?;
        ::metric_handles::__private::std::result::Result::Ok(Self {
            preemptions: (Self::__METRIC_HANDLES_PREEMPTIONS_OPS
                .register)(registry, &Self::__METRIC_HANDLES_PREEMPTIONS, options),
            tokens: (Self::__METRIC_HANDLES_TOKENS_OPS
                .register)(registry, &Self::__METRIC_HANDLES_TOKENS, options),
            running: (Self::__METRIC_HANDLES_RUNNING_OPS
                .register)(registry, &Self::__METRIC_HANDLES_RUNNING, options),
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
        families: &::metric_handles::family::RuntimeFamilies<NoLabels>,
    ) -> ::metric_handles::__private::std::result::Result<
        Self,
        ::metric_handles::RegistrationError,
    > {
        let declared = ::metric_handles::__private::DeclaredFamilies::claim(
            families,
            "Metrics",
            Self::DESCRIPTORS,
        )?;
        let declared = &declared;
        let options = &::metric_handles::RegisterOptions::new();
        ::metric_handles::__private::std::result::Result::Ok(Self {
            preemptions: (Self::__METRIC_HANDLES_PREEMPTIONS_OPS
                .register_in)(declared, &Self::__METRIC_HANDLES_PREEMPTIONS, options),
            tokens: (Self::__METRIC_HANDLES_TOKENS_OPS
                .register_in)(declared, &Self::__METRIC_HANDLES_TOKENS, options),
            running: (Self::__METRIC_HANDLES_RUNNING_OPS
                .register_in)(declared, &Self::__METRIC_HANDLES_RUNNING, options),
        })
    }
    /**Resolves every metric's series for `labels` once, into [`MetricsHandles`].

This is the slow path (hash, lock, maybe allocate); recording through the returned handles is atomic operations only. Call it once per label set and keep the result.*/
    pub fn resolve(&self, labels: &NoLabels) -> MetricsHandles {
        MetricsHandles {
            preemptions: (Self::__METRIC_HANDLES_PREEMPTIONS_OPS
                .resolve)(&self.preemptions, labels),
            tokens: (Self::__METRIC_HANDLES_TOKENS_OPS.resolve)(&self.tokens, labels),
            running: (Self::__METRIC_HANDLES_RUNNING_OPS.resolve)(&self.running, labels),
        }
    }
    /// Removes every series of `labels` from the exposition (an engine that left).
    /// Handles resolved earlier keep working but are no longer exported.
    pub fn remove(&self, labels: &NoLabels) {
        let _ = (Self::__METRIC_HANDLES_PREEMPTIONS_OPS
            .remove)(&self.preemptions, labels);
        let _ = (Self::__METRIC_HANDLES_TOKENS_OPS.remove)(&self.tokens, labels);
        let _ = (Self::__METRIC_HANDLES_RUNNING_OPS.remove)(&self.running, labels);
    }
}
const _: () = Metrics::__METRIC_HANDLES_PREEMPTIONS_CHECK_0;
const _: () = Metrics::__METRIC_HANDLES_PREEMPTIONS_CHECK_1;
const _: () = Metrics::__METRIC_HANDLES_TOKENS_CHECK_0;
const _: () = Metrics::__METRIC_HANDLES_TOKENS_CHECK_1;
const _: () = Metrics::__METRIC_HANDLES_TOKENS_CHECK_2;
const _: () = Metrics::__METRIC_HANDLES_TOKENS_CHECK_3;
const _: () = Metrics::__METRIC_HANDLES_RUNNING_CHECK_0;
const _: () = Metrics::__METRIC_HANDLES_RUNNING_CHECK_1;
