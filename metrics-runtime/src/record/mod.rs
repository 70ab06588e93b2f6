//! The members that record: the counter, the gauge, the histogram, their request-local views,
//! the exemplar slots either can carry,
//! and timers that observe into a histogram.

pub(crate) mod counter;
pub(crate) mod exemplar;
pub(crate) mod gauge;
pub(crate) mod histogram;
pub(crate) mod local;
pub(crate) mod timer;
