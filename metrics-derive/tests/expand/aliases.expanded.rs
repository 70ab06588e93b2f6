///Cached handles of [`Metrics`] for one label set.
///
#[derive(Clone)]
pub struct MetricsHandles {
    ///Cumulative number of preemptions
    pub preemptions: Counter,
    /// Tokens generated (a type alias of a counter)
    pub tokens: U64Counter,
    /// Requests running (prometheus-client's gauge by its own path)
    pub running: prometheus_client::metrics::gauge::Gauge,
}
#[automatically_derived]
impl ::core::fmt::Debug for MetricsHandles {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        let debug = &mut f.debug_struct("MetricsHandles");
        debug.field("preemptions", &self.preemptions);
        debug.field("tokens", &self.tokens);
        debug.field("running", &self.running);
        debug.finish()
    }
}
impl Metrics {
    #[doc(hidden)]
    const __METRIC_HANDLES_COMMON_LABELS: &'static [&'static str] = <::metric_handles::NoLabels as ::metric_handles::LabelSet>::KEYS;
    #[doc(hidden)]
    const __METRIC_HANDLES_PREEMPTIONS: ::metric_handles::MetricDescriptor = ::metric_handles::MetricDescriptor {
        name: "vllm:num_preemptions",
        field: "preemptions",
        kind: <Counter as ::metric_handles::FamilyMember>::KIND,
        value_type: "Counter",
        help: "Cumulative number of preemptions",
        unit: ::metric_handles::__private::std::option::Option::None,
        common_labels: Self::__METRIC_HANDLES_COMMON_LABELS,
        axis: ::metric_handles::__private::describe_axis(
            <Counter as ::metric_handles::FamilyMember>::AXIS,
            &[],
            &[],
            0,
        ),
        buckets: ::metric_handles::__private::std::option::Option::None,
        max_series: ::metric_handles::DEFAULT_MAX_SERIES,
        max_label_sets: ::metric_handles::DEFAULT_MAX_LABEL_SETS,
        aliases: &[
            ::metric_handles::Alias {
                name: "vllm:num_preemptions_old",
                deprecated_in: "0.10",
            },
        ],
    };
    #[doc(hidden)]
    const __METRIC_HANDLES_TOKENS: ::metric_handles::MetricDescriptor = ::metric_handles::MetricDescriptor {
        name: "vllm:generation_tokens",
        field: "tokens",
        kind: <U64Counter as ::metric_handles::FamilyMember>::KIND,
        value_type: "U64Counter",
        help: "Tokens generated (a type alias of a counter)",
        unit: ::metric_handles::__private::std::option::Option::None,
        common_labels: Self::__METRIC_HANDLES_COMMON_LABELS,
        axis: ::metric_handles::__private::describe_axis(
            <U64Counter as ::metric_handles::FamilyMember>::AXIS,
            &[],
            &[],
            0,
        ),
        buckets: ::metric_handles::__private::std::option::Option::None,
        max_series: ::metric_handles::DEFAULT_MAX_SERIES,
        max_label_sets: ::metric_handles::DEFAULT_MAX_LABEL_SETS,
        aliases: &[],
    };
    #[doc(hidden)]
    const __METRIC_HANDLES_RUNNING: ::metric_handles::MetricDescriptor = ::metric_handles::MetricDescriptor {
        name: "vllm:num_requests_running",
        field: "running",
        kind: <prometheus_client::metrics::gauge::Gauge as ::metric_handles::FamilyMember>::KIND,
        value_type: "prometheus_client::metrics::gauge::Gauge",
        help: "Requests running (prometheus-client's gauge by its own path)",
        unit: ::metric_handles::__private::std::option::Option::None,
        common_labels: Self::__METRIC_HANDLES_COMMON_LABELS,
        axis: ::metric_handles::__private::describe_axis(
            <prometheus_client::metrics::gauge::Gauge as ::metric_handles::FamilyMember>::AXIS,
            &[],
            &[],
            0,
        ),
        buckets: ::metric_handles::__private::std::option::Option::None,
        max_series: ::metric_handles::DEFAULT_MAX_SERIES,
        max_label_sets: ::metric_handles::DEFAULT_MAX_LABEL_SETS,
        aliases: &[],
    };
    #[doc(hidden)]
    const __METRIC_HANDLES_PREEMPTIONS_CHECK_0: () = ::metric_handles::__private::assert_axis_keys_are_free(
        Self::__METRIC_HANDLES_COMMON_LABELS,
        ::metric_handles::__private::dynamic_keys(
            <Counter as ::metric_handles::FamilyMember>::AXIS,
        ),
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_PREEMPTIONS_CHECK_1: () = if <Counter as ::metric_handles::FamilyMember>::AXIS
        .preresolved(0) > ::metric_handles::DEFAULT_MAX_SERIES
    {
        ::core::panic!(
            "field `preemptions`: its fixed axes pre-resolve more series per label set than its `max_series` allows (the product of the axes' lengths): raise `max_series`, or lower `positions`"
        )
    };
    #[doc(hidden)]
    const __METRIC_HANDLES_TOKENS_CHECK_0: () = ::metric_handles::__private::assert_axis_keys_are_free(
        Self::__METRIC_HANDLES_COMMON_LABELS,
        ::metric_handles::__private::dynamic_keys(
            <U64Counter as ::metric_handles::FamilyMember>::AXIS,
        ),
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_TOKENS_CHECK_1: () = if ::metric_handles::__private::is_histogram(
        <U64Counter as ::metric_handles::FamilyMember>::KIND,
    ) {
        ::core::panic!(
            "field `tokens`: `U64Counter` is a histogram and needs buckets: add e.g. `buckets = [0.1, 0.5, 1.0]` or `buckets = exponential(start = 0.001, factor = 2.0, count = 16)`"
        )
    };
    #[doc(hidden)]
    const __METRIC_HANDLES_TOKENS_CHECK_2: () = if <U64Counter as ::metric_handles::FamilyMember>::AXIS
        .label_keys() != 0usize
    {
        ::core::panic!(
            "field `tokens`: `U64Counter` has a fixed label axis: name its key with `#[metric(label = \"...\")]`, one key per axis (`label = [\"a\", \"b\"]`)"
        )
    };
    #[doc(hidden)]
    const __METRIC_HANDLES_TOKENS_CHECK_3: () = if <U64Counter as ::metric_handles::FamilyMember>::AXIS
        .preresolved(0) > ::metric_handles::DEFAULT_MAX_SERIES
    {
        ::core::panic!(
            "field `tokens`: its fixed axes pre-resolve more series per label set than its `max_series` allows (the product of the axes' lengths): raise `max_series`, or lower `positions`"
        )
    };
    #[doc(hidden)]
    const __METRIC_HANDLES_RUNNING_CHECK_0: () = ::metric_handles::__private::assert_axis_keys_are_free(
        Self::__METRIC_HANDLES_COMMON_LABELS,
        ::metric_handles::__private::dynamic_keys(
            <prometheus_client::metrics::gauge::Gauge as ::metric_handles::FamilyMember>::AXIS,
        ),
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_RUNNING_CHECK_1: () = if <prometheus_client::metrics::gauge::Gauge as ::metric_handles::FamilyMember>::AXIS
        .preresolved(0) > ::metric_handles::DEFAULT_MAX_SERIES
    {
        ::core::panic!(
            "field `running`: its fixed axes pre-resolve more series per label set than its `max_series` allows (the product of the axes' lengths): raise `max_series`, or lower `positions`"
        )
    };
    /// Every metric this struct registers, in field order: names, kinds, help, labels
    /// and buckets, for documentation and tests.
    pub const DESCRIPTORS: &'static [::metric_handles::MetricDescriptor] = &[
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
            "Metrics",
            Self::DESCRIPTORS,
            options,
        )?;
        ::metric_handles::__private::std::result::Result::Ok(Self {
            preemptions: ::metric_handles::__private::register_family(
                registry,
                &Self::__METRIC_HANDLES_PREEMPTIONS,
                options,
            ),
            tokens: ::metric_handles::__private::register_family(
                registry,
                &Self::__METRIC_HANDLES_TOKENS,
                options,
            ),
            running: ::metric_handles::__private::register_family(
                registry,
                &Self::__METRIC_HANDLES_RUNNING,
                options,
            ),
        })
    }
    /**Resolves every metric's series for `labels` once, into [`MetricsHandles`].

This is the slow path (hash, lock, maybe allocate); recording through the returned handles is atomic operations only. Call it once per label set and keep the result.*/
    pub fn resolve(&self, labels: &::metric_handles::NoLabels) -> MetricsHandles {
        MetricsHandles {
            preemptions: self
                .preemptions
                .get_or_create(
                    ::metric_handles::__private::same_labels::<NoLabels, _>(labels),
                ),
            tokens: self
                .tokens
                .get_or_create(
                    ::metric_handles::__private::same_labels::<NoLabels, _>(labels),
                ),
            running: self
                .running
                .get_or_create(
                    ::metric_handles::__private::same_labels::<NoLabels, _>(labels),
                ),
        }
    }
    /// Removes every series of `labels` from the exposition (an engine that left).
    /// Handles resolved earlier keep working but are no longer exported.
    pub fn remove(&self, labels: &::metric_handles::NoLabels) {
        let _ = self
            .preemptions
            .remove(::metric_handles::__private::same_labels::<NoLabels, _>(labels));
        let _ = self
            .tokens
            .remove(::metric_handles::__private::same_labels::<NoLabels, _>(labels));
        let _ = self
            .running
            .remove(::metric_handles::__private::same_labels::<NoLabels, _>(labels));
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
