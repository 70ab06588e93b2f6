// Several fixed axes on one member: enum x enum, enum x position, three axes; every
// combination exported at 0, in declaration order.
use metric_handles::Registry;
use metric_handles::{Counter, Family, Histogram, LabelEnum, LabelSet, MetricHandles};
use metric_handles::axis::{ByLabels, Position};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Store {
    pub store: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "snake_case")]
pub enum Operation {
    Put,
    Get,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "snake_case")]
pub enum Outcome {
    Success,
    Failed,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "snake_case")]
pub enum Tier {
    Memory,
    Disk,
}

#[derive(MetricHandles)]
#[metric_handles(labels = Store)]
pub struct StoreMetrics {
    /// Store operations by operation and status
    #[metric(name = "kv:operation", label = ["operation", "status"])]
    pub operations: Family<Store, ByLabels<(Operation, Outcome), Counter>>,
    /// Operation time by operation and status
    #[metric(name = "kv:operation_time", unit = "seconds", label = ["operation", "status"], buckets = [0.001, 0.01])]
    pub operation_time: Family<Store, ByLabels<(Operation, Outcome), Histogram>>,
    /// Retries by operation and attempt
    #[metric(name = "kv:retries", label = ["operation", "attempt"], positions = 2)]
    pub retries: Family<Store, ByLabels<(Operation, Position), Counter>>,
    /// Keys by operation, status and tier
    #[metric(name = "kv:keys", label = ["operation", "status", "tier"])]
    pub keys: Family<Store, ByLabels<(Operation, Outcome, Tier), Counter>>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = StoreMetrics::register(&mut registry);
    let h = metrics.resolve(&Store { store: "s0".into() });
    h.operations.get_or_create((Operation::Get, Outcome::Failed)).inc();
    h.operation_time.get_or_create((Operation::Put, Outcome::Success)).observe(0.005);
    h.retries.get_or_create((Operation::Put, 1)).inc();
    h.keys.get_or_create((Operation::Get, Outcome::Success, Tier::Disk)).inc_by(4);
    let text = metric_handles::ExpositionFormat::PrometheusText.encode(&registry).unwrap();
    let ops: Vec<&str> = text.lines().filter(|l| l.starts_with("kv:operation_total")).collect();
    assert_eq!(
        ops,
        [
            r#"kv:operation_total{store="s0",operation="put",status="success"} 0"#,
            r#"kv:operation_total{store="s0",operation="put",status="failed"} 0"#,
            r#"kv:operation_total{store="s0",operation="get",status="success"} 0"#,
            r#"kv:operation_total{store="s0",operation="get",status="failed"} 1"#,
        ]
    );
    assert!(text.contains(r#"kv:retries_total{store="s0",operation="put",attempt="1"} 1"#), "{text}");
    assert!(text.contains(r#"kv:keys_total{store="s0",operation="get",status="success",tier="disk"} 4"#), "{text}");
    assert_eq!(text.lines().filter(|l| l.starts_with("kv:keys_total")).count(), 8);
    assert_eq!(
        StoreMetrics::DESCRIPTORS[3].label_keys(),
        ["store", "operation", "status", "tier"]
    );
}
