// A metrics struct generic over its label set (and a lifetime-free extra parameter).
use metric_handles::Registry;
use metric_handles::{
    ByLabel, Counter, Family, Gauge, LabelEnum, LabelSet, MetricHandles, NoLabels,
};

#[derive(MetricHandles)]
#[metric_handles(labels = L)]
pub struct Generic<L: LabelSet> {
    /// Things counted
    #[metric(name = "gen:things")]
    pub things: Family<L, Counter>,
    /// Current level
    #[metric(name = "gen:level", max_label_sets = 8)]
    pub level: Family<L, Gauge>,
}

#[derive(MetricHandles)]
#[metric_handles(labels = L, handles = ByEnumHandles)]
pub struct ByEnum<L, E>
where
    L: LabelSet,
    E: LabelEnum,
{
    /// Events by kind
    #[metric(name = "gen:events", label = "kind")]
    pub events: Family<L, ByLabel<E, Counter>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
pub enum Kind {
    A,
    B,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
pub struct Shard {
    pub shard: u8,
}

fn main() {
    let mut registry = Registry::default();
    let plain = Generic::<NoLabels>::register(&mut registry);
    let h: GenericHandles<NoLabels> = plain.resolve(&NoLabels);
    h.things.inc();
    h.level.set(-1);
    assert_eq!(Generic::<NoLabels>::DESCRIPTORS[1].max_label_sets, 8);
    assert_eq!(Generic::<Shard>::DESCRIPTORS[0].common_labels, ["shard"]);

    let mut registry = Registry::default();
    let by_enum = ByEnum::<Shard, Kind>::register(&mut registry);
    let h: ByEnumHandles<Shard, Kind> = by_enum.resolve(&Shard { shard: 1 });
    h.events.get(Kind::B).inc();
    let text = metric_handles::ExpositionFormat::PrometheusText.encode(&registry).unwrap();
    assert!(text.contains(r#"gen:events_total{shard="1",kind="B"} 1"#), "{text}");
}
