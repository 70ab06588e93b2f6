///Cached handles of [`Metrics`] for one label set.
///
#[derive(Clone, Debug)]
pub struct MetricsHandles {
    ///Cumulative number of preemptions
    pub preemptions: Counter,
}
impl Metrics {
    #[doc(hidden)]
    const __METRIC_HANDLES_PREEMPTIONS: ::metric_handles::MetricDescriptor = ::metric_handles::MetricDescriptor {
        name: "vllm:num_preemptions",
        field: "preemptions",
        kind: <Counter as ::metric_handles::FamilyMember>::KIND,
        value_type: "Counter",
        help: "Cumulative number of preemptions",
        unit: ::metric_handles::__private::std::option::Option::None,
        common_labels: <::metric_handles::NoLabels as ::metric_handles::LabelSet>::KEYS,
        axis: ::metric_handles::__private::std::option::Option::None,
        buckets: ::metric_handles::__private::std::option::Option::None,
        max_series: ::metric_handles::DEFAULT_MAX_SERIES,
        aliases: &[
            ::metric_handles::Alias {
                name: "vllm:num_preemptions_old",
                deprecated_in: "0.10",
            },
        ],
    };
    /// Every metric this struct registers, in field order: names, kinds, help, labels
    /// and buckets, for documentation and tests.
    pub const DESCRIPTORS: &'static [::metric_handles::MetricDescriptor] = &[
        Self::__METRIC_HANDLES_PREEMPTIONS,
    ];
    /**Registers every metric of [`Metrics`] in `registry`, as declared.

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
        Self {
            preemptions: ::metric_handles::Family::register(
                registry,
                &Self::__METRIC_HANDLES_PREEMPTIONS,
                options,
            ),
        }
    }
    /**Resolves every metric's series for `labels` once, into [`MetricsHandles`].

This is the slow path (hash, lock, maybe allocate); recording through the returned handles is atomic operations only. Call it once per label set and keep the result.*/
    pub fn resolve(&self, labels: &::metric_handles::NoLabels) -> MetricsHandles {
        MetricsHandles {
            preemptions: self
                .preemptions
                .resolve(::metric_handles::__private::same_labels::<NoLabels, _>(labels)),
        }
    }
    /// Removes every series of `labels` from the exposition (an engine that left).
    /// Handles resolved earlier keep working but are no longer exported.
    pub fn remove(&self, labels: &::metric_handles::NoLabels) {
        {
            let _ = self
                .preemptions
                .remove(::metric_handles::__private::same_labels::<NoLabels, _>(labels));
        }
    }
}
