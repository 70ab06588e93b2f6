//! The members that record: the counter, the gauge, the histogram and their request-local views.

pub(crate) mod counter;
pub(crate) mod gauge;
pub(crate) mod histogram;
pub(crate) mod local;
