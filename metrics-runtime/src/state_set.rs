//! [`StateSet`]: OpenMetrics' state set, one sample per value of a [`LabelEnum`], exactly one
//! of them set.

use std::fmt;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use prometheus_client::encoding::{EncodeLabelSet, EncodeMetric, MetricEncoder};
use prometheus_client::metrics::{MetricType, TypedMetric};

use crate::labels::{LabelEnum, NoLabels, WithLabels};

/// Which value of the enum `E` a series is in: the series writes one sample per value,
/// `name{labels,name="value"}`, 1 for the current value and 0 for the others.
///
/// The label that names the state is the family's own name, as OpenMetrics requires (so the
/// name must be a valid label name: no `:`, which the derive checks). A new series starts in
/// the enum's first value. [`set`](Self::set) is one atomic store, so exactly one value is
/// set at every scrape. A Prometheus-text (0.0.4) scraper reads the same samples as a gauge
/// family, as Python's `prometheus_client` writes a state set there.
///
/// ```
/// use metric_handles::{Family, LabelEnum, MetricHandles, NoLabels, Registry, StateSet};
///
/// #[derive(Clone, Copy, Debug, PartialEq, Eq, LabelEnum)]
/// #[label(rename_all = "snake_case")]
/// enum Phase {
///     Starting,
///     Serving,
///     Draining,
/// }
///
/// #[derive(MetricHandles)]
/// #[metric_handles(handles = ServerHandles, labels = NoLabels)]
/// struct ServerMetrics {
///     /// What the server is doing
///     #[metric(name = "phase")]
///     phase: Family<NoLabels, StateSet<Phase>>,
/// }
///
/// let mut registry = Registry::default();
/// let server = ServerMetrics::register(&mut registry).resolve(&NoLabels);
/// server.phase.set(Phase::Serving);
/// assert_eq!(server.phase.get(), "serving");
/// let scrape = metric_handles::testing::Scrape::of(&registry);
/// assert_eq!(scrape.value("phase", &[("phase", "serving")]), Some(1.0));
/// assert_eq!(scrape.value("phase", &[("phase", "starting")]), Some(0.0));
/// ```
pub struct StateSet<E> {
    state: Arc<State>,
    _values: PhantomData<fn() -> E>,
}

/// What the handles of one series share: the current value's index, and the label key that
/// names the states (the family's name) for prometheus-client's encoders.
#[derive(Debug)]
struct State {
    current: AtomicUsize,
    key: Arc<str>,
}

impl<E: LabelEnum> StateSet<E> {
    /// A series in `E`'s first value, whose states are labelled `key` when encoded through
    /// prometheus-client's encoders (this crate's text writer uses the family's name).
    pub(crate) fn with_key(key: Arc<str>) -> Self {
        StateSet {
            state: Arc::new(State {
                current: AtomicUsize::new(0),
                key,
            }),
            _values: PhantomData,
        }
    }

    /// Makes `state` the one value that is set: one atomic store.
    #[inline]
    pub fn set(&self, state: E) {
        self.state.current.store(state.index(), Ordering::Relaxed);
    }

    /// The label value of the state that is set.
    pub fn get(&self) -> &'static str {
        E::VALUES.get(self.current_index()).copied().unwrap_or("")
    }

    /// Encodes one gauge sample per state, each labelled `labels` and then the state.
    pub(crate) fn encode_states<L: EncodeLabelSet>(
        &self,
        labels: &L,
        encoder: &mut MetricEncoder<'_>,
    ) -> Result<(), fmt::Error> {
        let current = self.current_index();
        for (index, value) in E::VALUES.iter().enumerate() {
            let state = [(&*self.state.key, *value)];
            let labels = WithLabels {
                base: labels,
                extra: &state,
            };
            encoder
                .encode_family(&labels)?
                .encode_gauge(&i64::from(index == current))?;
        }
        Ok(())
    }

    /// The index in `E::VARIANTS` of the value that is set.
    pub(crate) fn current_index(&self) -> usize {
        self.state.current.load(Ordering::Relaxed)
    }
}

impl<E> Clone for StateSet<E> {
    fn clone(&self) -> Self {
        StateSet {
            state: Arc::clone(&self.state),
            _values: PhantomData,
        }
    }
}

impl<E: LabelEnum> fmt::Debug for StateSet<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateSet")
            .field("state", &self.get())
            .finish()
    }
}

/// prometheus-client has no state set: its encoders get the samples as a gauge family, the
/// fallback OpenMetrics' own Prometheus-text clients use.
impl<E: LabelEnum> TypedMetric for StateSet<E> {
    const TYPE: MetricType = MetricType::Gauge;
}

impl<E: LabelEnum> EncodeMetric for StateSet<E> {
    fn encode(&self, mut encoder: MetricEncoder) -> Result<(), fmt::Error> {
        self.encode_states(&NoLabels, &mut encoder)
    }

    fn metric_type(&self) -> MetricType {
        <Self as TypedMetric>::TYPE
    }
}
