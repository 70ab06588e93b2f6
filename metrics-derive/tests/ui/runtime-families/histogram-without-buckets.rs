use metric_handles::{runtime_families, Histogram, NoLabels};

runtime_families! {
    struct Families<NoLabels> {
        fetch_time: Histogram = ("acme:fetch_seconds", "Time to fetch one block"),
    }
}

fn main() {}
