use metric_handles::{runtime_families, ByLabel, Counter, LabelEnum, NoLabels};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
enum Tier {
    Host,
    Disk,
}

runtime_families! {
    struct Families<NoLabels> {
        fetches: ByLabel<Tier, Counter> = ("acme:fetches", "Blocks fetched"),
    }
}

fn main() {}
