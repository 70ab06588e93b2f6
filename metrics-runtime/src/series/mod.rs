//! Series: label sets and their size limits, label axes and grids, the bounded series map,
//! families and the members they hold, the state set (a member keyed by an enum), and the
//! outcome guard of an enum axis of counters.

pub(crate) mod axis;
pub(crate) mod bounded;
mod exemplar_labels;
pub(crate) mod family;
pub(crate) mod grid;
pub(crate) mod idle;
pub(crate) mod label_size;
pub(crate) mod labels;
pub(crate) mod member;
pub(crate) mod outcome;
pub(crate) mod state_set;
