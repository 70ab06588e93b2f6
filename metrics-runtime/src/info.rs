//! [`Info`]: OpenMetrics' info type, a constant 1 whose labels carry the information.

use std::fmt;

use prometheus_client::encoding::{EncodeMetric, MetricEncoder};
use prometheus_client::metrics::{MetricType, TypedMetric};

/// One info series: `name_info{labels} 1`, as prometheus-client's `Info` writes it.
///
/// There is nothing to record: resolving a label set creates its series, and removing the
/// label set removes it. The information is the labels, so an info family's label set is the
/// information (build version, configuration) plus whatever identifies the series (an
/// engine):
///
/// ```
/// use metric_handles::{Family, Info, LabelSet, MetricHandles, Registry};
///
/// #[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
/// struct Build {
///     version: String,
///     commit: String,
/// }
///
/// #[derive(MetricHandles)]
/// #[metric_handles(handles = BuildHandles, labels = Build)]
/// struct BuildMetrics {
///     /// The build this process runs
///     #[metric(name = "build")]
///     build: Family<Build, Info>,
/// }
///
/// let mut registry = Registry::default();
/// let metrics = BuildMetrics::register(&mut registry);
/// let _build = metrics.resolve(&Build { version: "1.2.0".into(), commit: "abc123".into() });
/// let scrape = metric_handles::testing::Scrape::of(&registry);
/// let labels = [("version", "1.2.0"), ("commit", "abc123")];
/// assert_eq!(scrape.value("build_info", &labels), Some(1.0));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Info;

impl TypedMetric for Info {
    const TYPE: MetricType = MetricType::Info;
}

/// The family's labels (given through `encode_family`) are the info's labels.
impl EncodeMetric for Info {
    fn encode(&self, mut encoder: MetricEncoder) -> Result<(), fmt::Error> {
        // No labels of its own (an empty array: `record` names nothing of `series`).
        encoder.encode_info(&[] as &[(&str, &str); 0])
    }

    fn metric_type(&self) -> MetricType {
        <Self as TypedMetric>::TYPE
    }
}
