//! The in-flight and outcome guards allocate nothing: made, finished, discarded and dropped,
//! borrowing their handles or owning clones of them.

use crate::counting::allocations_during;
use metric_handles::__private::{new_family, SeriesSpec};
use metric_handles::axis::OutcomeGuard;
use metric_handles::gauge::{InFlightGauge, InFlightGuard};
use metric_handles::{ByLabel, Counter, Gauge, LabelEnum, NoLabels};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, LabelEnum)]
#[label(rename_all = "lowercase")]
pub enum Outcome {
    Ok,
    Cancelled,
}

#[test]
fn guards_never_allocate() {
    let gauge: Gauge = Gauge::default();
    let outcomes = new_family::<NoLabels, ByLabel<Outcome, Counter>>(SeriesSpec::new())
        .get_or_create(&NoLabels);

    let allocations = allocations_during(|| {
        for _ in 0..10_000 {
            let in_flight = gauge.track_in_flight();
            let owned = InFlightGuard::new(gauge.clone());
            outcomes
                .outcome_guard(Outcome::Cancelled)
                .finish(Outcome::Ok);
            drop(outcomes.outcome_guard(Outcome::Cancelled));
            OutcomeGuard::new(outcomes.clone(), Outcome::Cancelled).discard();
            drop((in_flight, owned));
        }
    });
    assert_eq!(allocations, 0);
    assert_eq!(gauge.get(), 0);
    assert_eq!(outcomes.get(Outcome::Ok).get(), 10_000);
    assert_eq!(outcomes.get(Outcome::Cancelled).get(), 10_000);
}
