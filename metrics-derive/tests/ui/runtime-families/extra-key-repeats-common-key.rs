use metric_handles::{runtime_families, Counter, LabelSet};
use metric_handles::descriptor::LabelAxis;

#[derive(Clone, Debug, Hash, PartialEq, Eq, LabelSet)]
struct EngineLabels {
    engine: u32,
}

runtime_families! {
    struct Families<EngineLabels> {
        fetches: Counter = ("acme:fetches", "Blocks fetched")
            .axis(LabelAxis::Dynamic { keys: &["tier", "engine"] }),
    }
}

fn main() {}
