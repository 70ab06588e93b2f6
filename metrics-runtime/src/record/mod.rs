//! The members that record: the counter, the histogram and their request-local views.

pub(crate) mod counter;
pub(crate) mod histogram;
pub(crate) mod local;
