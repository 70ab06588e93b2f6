// `#[cfg]` on fields: the field, its handle and its descriptor come and go together.
use metric_handles::Registry;
use metric_handles::{Counter, Family, MetricHandles, NoLabels};

#[derive(MetricHandles)]
pub struct Metrics {
    /// Always there
    #[metric(name = "cfg:always")]
    pub always: Family<NoLabels, Counter>,
    /// Compiled out
    #[cfg(any())]
    #[metric(name = "cfg:never")]
    pub never: Family<NoLabels, Counter>,
    /// Compiled in
    #[cfg(all())]
    #[metric(name = "cfg:sometimes")]
    pub sometimes: Family<NoLabels, Counter>,
    /// The same name under the opposite cfg is not a duplicate
    #[cfg(not(all()))]
    #[metric(name = "cfg:sometimes")]
    pub sometimes_alt: Family<NoLabels, Counter>,
}

fn main() {
    let names: Vec<_> = Metrics::DESCRIPTORS.iter().map(|d| d.name).collect();
    assert_eq!(names, ["cfg:always", "cfg:sometimes"]);
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let handles = metrics.resolve(&NoLabels);
    handles.always.inc();
    handles.sometimes.inc();
}
