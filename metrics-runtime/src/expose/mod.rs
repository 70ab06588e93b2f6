//! Writing the exposition: the text formats, the negotiation of one from `Accept`, and the
//! sanitizing of what the parsers would trip on.

pub(crate) mod accept;
pub(crate) mod exposition;
