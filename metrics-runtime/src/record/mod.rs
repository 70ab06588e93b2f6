//! The members that record: the counter, the gauge, the histogram, their request-local views,
//! timers that observe into a histogram, the in-flight guard of a gauge, the gauge histogram and the info, and the exemplar
//! slots a counter or histogram can carry.

pub(crate) mod counter;
pub(crate) mod exemplar;
pub(crate) mod gauge;
pub(crate) mod gauge_histogram;
pub(crate) mod histogram;
pub(crate) mod in_flight;
pub(crate) mod info;
pub(crate) mod local;
pub(crate) mod timer;
