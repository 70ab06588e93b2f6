//! The labels of one series as the writers read them: [`Label`] pieces on a [`LabelStack`],
//! with the series' creation time.

use std::fmt;

use crate::created::Created;

/// One label of a series, as the encoder writes it.
#[derive(Clone, Copy, Debug)]
pub enum Label<'a> {
    /// Labels rendered once (`k="v",k2="v2"`, escaped and sanitised), possibly none.
    Rendered(&'a str),
    /// One `key="value"` whose value is escaped as it is written (an enum axis's value).
    Pair(&'static str, &'a str),
    /// One `key="position"`.
    Position(&'static str, usize),
}

/// The most labels pieces a series is written from: the common label set, up to four grid
/// axes or one axis and a dynamic label set, and the overflow label, with room to spare.
const MAX_PIECES: usize = 8;

/// The labels of one series as pieces borrowed from the family, its members and the stack of
/// the encoder, and when the series was created: a copy costs a few words, and pushing
/// allocates nothing.
#[derive(Clone, Copy, Debug)]
pub struct LabelStack<'a> {
    pieces: [Label<'a>; MAX_PIECES],
    len: usize,
    created: Created,
}

impl<'a> LabelStack<'a> {
    /// The labels `first` alone, of a series created at `created`.
    pub(crate) fn new(first: Label<'a>, created: Created) -> Self {
        let mut stack = LabelStack {
            pieces: [Label::Rendered(""); MAX_PIECES],
            len: 0,
            created,
        };
        stack.pieces[0] = first;
        stack.len = 1;
        stack
    }

    /// These labels, of a series created at `created` (a series a nested map created after
    /// its common label set).
    pub(crate) fn created_at(mut self, created: Created) -> Self {
        self.created = created;
        self
    }

    /// When the series was created.
    pub(crate) fn created(&self) -> Created {
        self.created
    }

    /// These labels followed by `label`. Past [`MAX_PIECES`] pieces (a member nested deeper
    /// than any this crate builds) the encode fails rather than drop a label.
    pub(crate) fn with(mut self, label: Label<'a>) -> Result<Self, fmt::Error> {
        let slot = self.pieces.get_mut(self.len).ok_or(fmt::Error)?;
        *slot = label;
        self.len += 1;
        Ok(self)
    }

    pub(crate) fn pieces(&self) -> &[Label<'a>] {
        &self.pieces[..self.len]
    }
}
