// A struct generic over its label set and an axis enum, declared without bounds: the derive
// bounds `L: LabelSet` and the member types on what it generates.
use metric_handles::Registry;
use metric_handles::{ByLabel, Counter, ExpositionFormat, Family, Gauge, LabelEnum, LabelSet, MetricHandles};

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Shard {
    pub shard: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "lowercase")]
pub enum Operation {
    Get,
    Put,
}

#[derive(MetricHandles)]
#[metric_handles(labels = L)]
pub struct Store<L> {
    /// Gets
    #[metric(name = "kv:gets")]
    gets: Family<L, Counter>,
    /// Size
    #[metric(name = "kv:size")]
    size: Family<L, Gauge>,
}

#[derive(MetricHandles)]
pub struct Operations<L, E> {
    /// Operations by kind
    #[metric(name = "kv:operations", label = "operation")]
    operations: Family<L, ByLabel<E, Counter>>,
}

fn main() {
    let mut registry = Registry::default();
    let store = Store::<Shard>::register(&mut registry);
    let handles = store.resolve(&Shard { shard: 1 });
    handles.gets.inc();
    handles.size.set(3);
    let operations = Operations::<Shard, Operation>::register(&mut registry);
    let handles = operations.resolve(&Shard { shard: 2 });
    handles.operations.get(Operation::Put).inc();
    println!("{handles:?}");

    let text = ExpositionFormat::PrometheusText.encode(&registry).unwrap();
    assert!(text.contains(r#"kv:gets_total{shard="1"} 1"#), "{text}");
    assert!(text.contains(r#"kv:size{shard="1"} 3"#), "{text}");
    assert!(text.contains(r#"kv:operations_total{shard="2",operation="put"} 1"#), "{text}");
}
