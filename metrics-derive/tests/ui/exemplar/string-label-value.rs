// An exemplar's labels are `(&str, &str)` pairs: a `String` value is told to write `.as_str()`.
use metric_handles::{Counter, Histogram};

fn main() {
    let trace_id: String = "3a2f90c9f80b894f".to_owned();
    let requests: Counter = Counter::default();
    let _ = requests.inc_with_exemplar(&[("trace_id", trace_id.clone())]);
    let latency = Histogram::new([0.1, 1.0]);
    let _ = latency.observe_with_exemplar(0.3, &[("trace_id", &trace_id)]);
}
