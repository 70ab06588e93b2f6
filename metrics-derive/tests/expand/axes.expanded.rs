///Cached handles of [`Axes`] for one label set.
///
#[derive(Clone, Debug)]
pub struct AxesHandles {
    /// Finished requests by reason
    pub success: ByLabel<FinishReason, Counter>,
    /// Accepted draft tokens by position
    pub accepted: ByPosition<Counter>,
    /// Latency by adapter
    pub lora_latency: Dynamic<Adapter, Histogram>,
}
impl Axes {
    #[doc(hidden)]
    const __METRIC_HANDLES_SUCCESS: ::metric_handles::MetricDescriptor = ::metric_handles::MetricDescriptor {
        name: "ax:request_success",
        field: "success",
        kind: <ByLabel<FinishReason, Counter> as ::metric_handles::FamilyMember>::KIND,
        value_type: "ByLabel<FinishReason, Counter>",
        help: "Finished requests by reason",
        unit: ::metric_handles::__private::std::option::Option::None,
        common_labels: <Engine as ::metric_handles::LabelSet>::KEYS,
        axis: ::metric_handles::__private::std::option::Option::Some(::metric_handles::LabelAxis::Enum {
            key: "finished_reason",
            values: <ByLabel<
                FinishReason,
                Counter,
            > as ::metric_handles::FamilyMember>::AXIS_VALUES,
        }),
        buckets: ::metric_handles::__private::std::option::Option::None,
        max_series: ::metric_handles::DEFAULT_MAX_SERIES,
        aliases: &[],
    };
    #[doc(hidden)]
    const __METRIC_HANDLES_ACCEPTED: ::metric_handles::MetricDescriptor = ::metric_handles::MetricDescriptor {
        name: "ax:accepted",
        field: "accepted",
        kind: <ByPosition<Counter> as ::metric_handles::FamilyMember>::KIND,
        value_type: "ByPosition<Counter>",
        help: "Accepted draft tokens by position",
        unit: ::metric_handles::__private::std::option::Option::None,
        common_labels: <Engine as ::metric_handles::LabelSet>::KEYS,
        axis: ::metric_handles::__private::std::option::Option::Some(::metric_handles::LabelAxis::Position {
            key: "position",
            count: 3,
        }),
        buckets: ::metric_handles::__private::std::option::Option::None,
        max_series: ::metric_handles::DEFAULT_MAX_SERIES,
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
        common_labels: <Engine as ::metric_handles::LabelSet>::KEYS,
        axis: ::metric_handles::__private::std::option::Option::Some(::metric_handles::LabelAxis::Dynamic {
            keys: <Adapter as ::metric_handles::LabelSet>::KEYS,
        }),
        buckets: ::metric_handles::__private::std::option::Option::Some(::metric_handles::Buckets::Exponential {
            start: 0.5,
            factor: 2.0,
            count: 4,
        }),
        max_series: 16,
        aliases: &[],
    };
    #[doc(hidden)]
    const __METRIC_HANDLES_SUCCESS_CHECK_0: () = ::metric_handles::__private::assert_axis_key_is_free(
        <Engine as ::metric_handles::LabelSet>::KEYS,
        "finished_reason",
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_ACCEPTED_CHECK_0: () = ::metric_handles::__private::assert_axis_key_is_free(
        <Engine as ::metric_handles::LabelSet>::KEYS,
        "position",
    );
    #[doc(hidden)]
    const __METRIC_HANDLES_LORA_LATENCY_CHECK_0: () = ::metric_handles::__private::assert_axis_keys_are_free(
        <Engine as ::metric_handles::LabelSet>::KEYS,
        <Adapter as ::metric_handles::LabelSet>::KEYS,
    );
    /// Every metric this struct registers, in field order: names, kinds, help, labels
    /// and buckets, for documentation and tests.
    pub const DESCRIPTORS: &'static [::metric_handles::MetricDescriptor] = &[
        Self::__METRIC_HANDLES_SUCCESS,
        Self::__METRIC_HANDLES_ACCEPTED,
        Self::__METRIC_HANDLES_LORA_LATENCY,
    ];
    /**Registers every metric of [`Axes`] in `registry`, as declared.

Each field's family is registered under its `name` (and unit), with its help text.*/
    pub fn register(registry: &mut ::metric_handles::__private::Registry) -> Self {
        Self::register_with(registry, &::metric_handles::RegisterOptions::new())
    }
    /// Registers every metric in `registry`, with run-time `options` (bucket, position
    /// and series-limit overrides, deprecated names to show).
    pub fn register_with(
        registry: &mut ::metric_handles::__private::Registry,
        options: &::metric_handles::RegisterOptions,
    ) -> Self {
        let () = Self::__METRIC_HANDLES_SUCCESS_CHECK_0;
        let () = Self::__METRIC_HANDLES_ACCEPTED_CHECK_0;
        let () = Self::__METRIC_HANDLES_LORA_LATENCY_CHECK_0;
        Self {
            success: ::metric_handles::Family::register(
                registry,
                &Self::__METRIC_HANDLES_SUCCESS,
                options,
            ),
            accepted: ::metric_handles::Family::register(
                registry,
                &Self::__METRIC_HANDLES_ACCEPTED,
                options,
            ),
            lora_latency: ::metric_handles::Family::register(
                registry,
                &Self::__METRIC_HANDLES_LORA_LATENCY,
                options,
            ),
        }
    }
    /**Resolves every metric's series for `labels` once, into [`AxesHandles`].

This is the slow path (hash, lock, maybe allocate); recording through the returned handles is atomic operations only. Call it once per label set and keep the result.*/
    pub fn resolve(&self, labels: &Engine) -> AxesHandles {
        AxesHandles {
            success: self
                .success
                .resolve(::metric_handles::__private::same_labels::<Engine, _>(labels)),
            accepted: self
                .accepted
                .resolve(::metric_handles::__private::same_labels::<Engine, _>(labels)),
            lora_latency: self
                .lora_latency
                .resolve(::metric_handles::__private::same_labels::<Engine, _>(labels)),
        }
    }
    /// Removes every series of `labels` from the exposition (an engine that left).
    /// Handles resolved earlier keep working but are no longer exported.
    pub fn remove(&self, labels: &Engine) {
        {
            let _ = self
                .success
                .remove(::metric_handles::__private::same_labels::<Engine, _>(labels));
        }
        {
            let _ = self
                .accepted
                .remove(::metric_handles::__private::same_labels::<Engine, _>(labels));
        }
        {
            let _ = self
                .lora_latency
                .remove(::metric_handles::__private::same_labels::<Engine, _>(labels));
        }
    }
}
const _: () = Axes::__METRIC_HANDLES_SUCCESS_CHECK_0;
const _: () = Axes::__METRIC_HANDLES_ACCEPTED_CHECK_0;
const _: () = Axes::__METRIC_HANDLES_LORA_LATENCY_CHECK_0;
