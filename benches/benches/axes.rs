//! Recording on a member with fixed label axes, against a single cached counter (the floor a
//! pre-resolved series can reach):
//!
//! * `cached_handle`: one counter, resolved once.
//! * `by_label`: `ByLabel<Method, Counter>`, the variant cycling per iteration.
//! * `grid_2`: `ByLabels<(Method, Status), Counter>`, the combination cycling per iteration
//!   (index arithmetic, one array access, the atomic add).
//! * `grid_3`: `ByLabels<(Method, Status, Position), Counter>`, with 4 positions.
//! * `pc_family_2_labels`: prometheus-client's `Family` keyed by both labels, the lookup a
//!   user writes without pre-resolution.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use metric_handles::__private::{new_family, SeriesSpec};
use metric_handles::axis::{ByLabels, Position};
use metric_handles::descriptor::LabelAxis;
use metric_handles::{ByLabel, Counter, Family, LabelEnum, NoLabels};
use metric_handles_benches::runner::{Runner, SingleThread};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "UPPERCASE")]
pub enum Method {
    Get,
    Post,
    Put,
    Delete,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
pub enum Status {
    #[label(rename = "2xx")]
    Success,
    #[label(rename = "4xx")]
    ClientError,
    #[label(rename = "5xx")]
    ServerError,
}

/// prometheus-client's label set for the same two labels.
#[derive(Clone, Debug, Hash, PartialEq, Eq, prometheus_client::encoding::EncodeLabelSet)]
struct HttpLabels {
    method: Method,
    status: Status,
}

const METHODS: [Method; 4] = [Method::Get, Method::Post, Method::Put, Method::Delete];
const STATUSES: [Status; 3] = [Status::Success, Status::ClientError, Status::ServerError];

const METHOD_AXIS: LabelAxis = LabelAxis::Enum {
    key: "method",
    values: Method::VALUES,
};
const STATUS_AXIS: LabelAxis = LabelAxis::Enum {
    key: "status",
    values: Status::VALUES,
};

const GRID_2: &[LabelAxis] = &[METHOD_AXIS, STATUS_AXIS];

const GRID_3: &[LabelAxis] = &[
    METHOD_AXIS,
    STATUS_AXIS,
    LabelAxis::Position {
        key: "attempt",
        count: 4,
    },
];

struct Axes {
    cached: Counter,
    by_label: ByLabel<Method, Counter>,
    grid_2: ByLabels<(Method, Status), Counter>,
    grid_3: ByLabels<(Method, Status, Position), Counter>,
    pc_family: prometheus_client::metrics::family::Family<HttpLabels, Counter>,
}

impl Axes {
    fn new() -> Self {
        let plain: Family<NoLabels, Counter> = new_family(SeriesSpec::new());
        let by_label: Family<NoLabels, ByLabel<Method, Counter>> =
            new_family(SeriesSpec::new().with_axis_key("method"));
        let grid_2: Family<NoLabels, ByLabels<(Method, Status), Counter>> =
            new_family(SeriesSpec::new().with_grid(GRID_2));
        let grid_3: Family<NoLabels, ByLabels<(Method, Status, Position), Counter>> =
            new_family(SeriesSpec::new().with_grid(GRID_3).with_positions(4));
        let pc_family = prometheus_client::metrics::family::Family::default();
        for method in METHODS {
            for status in STATUSES {
                drop(pc_family.get_or_create(&HttpLabels { method, status }));
            }
        }
        Axes {
            cached: plain.get_or_create(&NoLabels),
            by_label: by_label.get_or_create(&NoLabels),
            grid_2: grid_2.get_or_create(&NoLabels),
            grid_3: grid_3.get_or_create(&NoLabels),
            pc_family,
        }
    }

    fn cached(&self, _: usize) {
        black_box(&self.cached).inc();
    }
    fn by_label(&self, i: usize) {
        black_box(&self.by_label).get(METHODS[i & 3]).inc();
    }
    fn grid_2(&self, i: usize) {
        black_box(&self.grid_2)
            .get_or_create((METHODS[i & 3], STATUSES[i % 3]))
            .inc();
    }
    fn grid_3(&self, i: usize) {
        black_box(&self.grid_3)
            .get_or_create((METHODS[i & 3], STATUSES[i % 3], (i >> 2) & 3))
            .inc();
    }
    fn pc_family(&self, i: usize) {
        let labels = HttpLabels {
            method: METHODS[i & 3],
            status: STATUSES[i % 3],
        };
        black_box(&self.pc_family)
            .get_or_create(black_box(&labels))
            .inc();
    }
}

fn single_thread(c: &mut Criterion) {
    SingleThread::new(c, "axes_1t", &Axes::new()).run_all(|runner| {
        runner.run("cached_handle", Axes::cached);
        runner.run("by_label", Axes::by_label);
        runner.run("grid_2", Axes::grid_2);
        runner.run("grid_3", Axes::grid_3);
        runner.run("pc_family_2_labels", Axes::pc_family);
    });
}

criterion_group!(benches, single_thread);
criterion_main!(benches);
