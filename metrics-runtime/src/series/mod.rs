//! How a family keeps its series: the bounded series map (with its overflow series), idle
//! expiry, and any label set written as an exemplar's labels.

pub(crate) mod bounded;
mod exemplar_labels;
pub(crate) mod idle;
