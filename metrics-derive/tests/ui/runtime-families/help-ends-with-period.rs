use metric_handles::{runtime_families, Counter, NoLabels};

runtime_families! {
    struct Families<NoLabels> {
        fetches: Counter = ("acme:fetches", "Blocks fetched."),
    }
}

fn main() {}
