//! Label axes a field adds on top of the common labels, as family members.
//!
//! * [`ByLabel`]: one series per variant of a [`LabelEnum`](crate::LabelEnum), pre-resolved into an array.
//! * [`ByPosition`]: one series per position `0..N`, pre-resolved, with a bounded lookup beyond.
//! * [`Dynamic`]: labels only known at record time, in a bounded map with an overflow series.
//!
//! Lookup verbs are the same on every container: `get` never creates a series, `get_or_create`
//! does (and says so).

pub(crate) mod grid;
mod outcome;
pub use grid::{
    ByLabels, EveryCombination, GridAxes, GridAxis, GridKey, GridLookup, Position, SomeCombinations,
};
pub(crate) mod single;

pub use outcome::{OutcomeCounters, OutcomeGuard};
pub use single::{ByLabel, ByPosition, Dynamic, PositionSeries};
