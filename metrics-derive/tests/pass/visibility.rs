// Visibility is copied: private, `pub(crate)` and `pub` fields, in a private module.
mod inner {
    use metric_handles::{Counter, Family, Gauge, MetricHandles, NoLabels};

    #[derive(MetricHandles)]
    pub(crate) struct Metrics {
        /// Visible to the crate
        #[metric(name = "vis:crate_visible")]
        pub(crate) crate_visible: Family<NoLabels, Counter>,
        /// Visible everywhere
        #[metric(name = "vis:public")]
        pub public: Family<NoLabels, Gauge>,
        /// Only visible in this module
        #[metric(name = "vis:private")]
        private: Family<NoLabels, Counter>,
    }

    pub(crate) fn bump_private(handles: &MetricsHandles) {
        handles.private.inc();
    }
}

fn main() {
    let mut registry = metric_handles::Registry::default();
    let metrics = inner::Metrics::register(&mut registry);
    let handles: inner::MetricsHandles = metrics.resolve(&metric_handles::NoLabels);
    handles.crate_visible.inc();
    handles.public.set(1);
    inner::bump_private(&handles);
    let text = metric_handles::ExpositionFormat::PrometheusText.encode(&registry).unwrap();
    assert!(text.contains("vis:private_total 1"), "{text}");
}
