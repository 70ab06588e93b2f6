// `Info`, `StateSet<E>` and `GaugeHistogram` are members like the others: declared once,
// resolved once, recorded without lookup, alone or under an axis.
use metric_handles::Registry;
use metric_handles::{ByLabel, Family, Info, LabelEnum, LabelSet, MetricHandles, StateSet};
use metric_handles::histogram::GaugeHistogram;
use metric_handles::descriptor::MetricKind;

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Replica {
    pub replica: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, LabelEnum)]
#[label(rename_all = "snake_case")]
pub enum Phase {
    Starting,
    Serving,
    Draining,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, LabelEnum)]
#[label(rename_all = "snake_case")]
pub enum Queue {
    Interactive,
    Batch,
}

#[derive(MetricHandles)]
#[metric_handles(handles = ReplicaHandles, labels = Replica)]
pub struct ReplicaMetrics {
    /// The replica's build
    #[metric(name = "app:build")]
    build: Family<Replica, Info>,
    /// What the replica is doing
    #[metric(name = "app_phase")]
    phase: Family<Replica, StateSet<Phase>>,
    /// Waiting requests by age
    #[metric(name = "app:waiting_age", unit = "seconds", buckets = exponential(start = 0.1, factor = 10.0, count = 4))]
    waiting_age: Family<Replica, GaugeHistogram>,
    /// Waiting requests by age and queue
    #[metric(name = "app:queued_age", unit = "seconds", label = "queue", buckets = [1.0, 10.0])]
    queued_age: Family<Replica, ByLabel<Queue, GaugeHistogram>>,
}

fn main() {
    let mut registry = Registry::default();
    let metrics = ReplicaMetrics::register(&mut registry);
    let handles: ReplicaHandles = metrics.resolve(&Replica {
        replica: "r1".into(),
    });
    let _: &Info = &handles.build;
    handles.phase.set(Phase::Serving);
    assert_eq!(handles.phase.get(), "serving");
    handles.waiting_age.add(0.5);
    handles.waiting_age.remove(0.5);
    handles.queued_age.get(Queue::Batch).add(3.0);
    let kinds: Vec<MetricKind> = ReplicaMetrics::DESCRIPTORS.iter().map(|d| d.kind).collect();
    assert_eq!(
        kinds,
        [
            MetricKind::Info,
            MetricKind::StateSet,
            MetricKind::GaugeHistogram,
            MetricKind::GaugeHistogram
        ]
    );
    let text = metric_handles::ExpositionFormat::OpenMetrics
        .encode(&registry)
        .expect("encodes");
    assert!(text.contains("app_phase{replica=\"r1\",app_phase=\"serving\"} 1\n"));
    assert!(text.contains("app:queued_age_seconds_gcount{replica=\"r1\",queue=\"batch\"} 1\n"));
}
