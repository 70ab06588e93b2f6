// `get` on a grid of enum axes returns the series itself (every combination exists); with a
// `Position` axis it returns an `Option`, `None` for a position never recorded.
use metric_handles::{Counter, ExpositionFormat, Family, LabelEnum, MetricHandles, NoLabels, Registry};
use metric_handles::axis::{ByLabels, Position};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "lowercase")]
pub enum Method {
    Get,
    Put,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "lowercase")]
pub enum Status {
    Ok,
    Error,
}

#[derive(MetricHandles)]
pub struct Metrics {
    /// Requests by method and status
    #[metric(name = "app:requests", label = ["method", "status"])]
    requests: Family<NoLabels, ByLabels<(Method, Status), Counter>>,
    /// Retries by method and attempt
    #[metric(name = "app:retries", label = ["method", "attempt"], positions = 2)]
    retries: Family<NoLabels, ByLabels<(Method, Position), Counter>>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let handles = metrics.resolve(&NoLabels);
    handles.requests.get((Method::Put, Status::Error)).inc();
    handles.requests.get((Method::Get, Status::Ok)).inc_by(2);
    let counted: &Counter = handles.requests.get((Method::Put, Status::Error));
    assert_eq!(counted.get(), 1);
    assert_eq!(handles.requests.get((Method::Get, Status::Error)).get(), 0);

    assert!(handles.retries.get((Method::Get, 1)).is_some());
    assert!(handles.retries.get((Method::Get, 7)).is_none());
    handles.retries.get_or_create((Method::Get, 7)).inc();
    assert_eq!(handles.retries.get((Method::Get, 7)).map(|c| c.get()), Some(1));

    let text = ExpositionFormat::PrometheusText.encode(&registry).unwrap();
    assert!(text.contains(r#"app:requests_total{method="put",status="error"} 1"#), "{text}");
    assert!(text.contains(r#"app:requests_total{method="get",status="ok"} 2"#), "{text}");
    assert!(text.contains(r#"app:requests_total{method="get",status="error"} 0"#), "{text}");
}
