// Every bucket form.
use metric_handles::Registry;
use metric_handles::{Buckets, Family, Histogram, MetricHandles, NoLabels};

const LATENCY: &[f64] = &[0.005, 0.05, 0.5];

/// Generator arguments may be constants.
const START: f64 = 0.001;
const COUNT: usize = 5;

/// An array, as vLLM's Rust code declares its buckets.
const ITL: [f64; 4] = [0.01, 0.025, 0.05, 0.075];

pub mod consts {
    pub const TOKENS: &[f64] = &[1.0, 8.0, 64.0];
}

#[derive(MetricHandles)]
pub struct Metrics {
    /// Inline list, with integer literals
    #[metric(name = "b:inline", buckets = [0, 0.5, 1, 2])]
    pub inline: Family<NoLabels, Histogram>,
    /// A constant
    #[metric(name = "b:constant", buckets = LATENCY)]
    pub constant: Family<NoLabels, Histogram>,
    /// A constant by path
    #[metric(name = "b:path", buckets = consts::TOKENS)]
    pub path: Family<NoLabels, Histogram>,
    /// Exponential
    #[metric(name = "b:exp", buckets = exponential(start = 1.0, factor = 2.0, count = 4))]
    pub exp: Family<NoLabels, Histogram>,
    /// Linear
    #[metric(name = "b:lin", buckets = linear(start = 0, width = 0.25, count = 3))]
    pub lin: Family<NoLabels, Histogram>,
    /// One-two-five, vLLM's token buckets
    #[metric(name = "b:ott", buckets = one_two_five(max = 131072))]
    pub ott: Family<NoLabels, Histogram>,
    /// An array constant
    #[metric(name = "b:array", buckets = ITL)]
    pub array: Family<NoLabels, Histogram>,
    /// A generator with constant arguments
    #[metric(name = "b:exp_const", buckets = exponential(start = START, factor = 10.0, count = COUNT))]
    pub exp_const: Family<NoLabels, Histogram>,
}

fn main() {
    let d = Metrics::DESCRIPTORS;
    assert_eq!(d[0].buckets, Some(Buckets::Explicit(&[0.0, 0.5, 1.0, 2.0])));
    assert_eq!(d[1].buckets, Some(Buckets::Explicit(LATENCY)));
    assert_eq!(d[2].buckets, Some(Buckets::Explicit(consts::TOKENS)));
    assert_eq!(d[3].buckets.map(|b| b.bounds()), Some(vec![1.0, 2.0, 4.0, 8.0]));
    assert_eq!(d[4].buckets.map(|b| b.bounds()), Some(vec![0.0, 0.25, 0.5]));
    assert_eq!(d[5].buckets, Some(Buckets::OneTwoFive { max: 131072.0 }));
    assert_eq!(d[6].buckets, Some(Buckets::Explicit(&ITL)));
    assert_eq!(
        d[7].buckets,
        Some(Buckets::Exponential { start: 0.001, factor: 10.0, count: 5 })
    );
    let mut registry = Registry::default();
    let handles = Metrics::register(&mut registry).resolve(&NoLabels);
    handles.inline.observe(0.1);
    handles.ott.observe(3.0);
}
