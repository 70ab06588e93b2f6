//! What a registry writes out: the formats ([`ExpositionFormat`]), the one negotiated from a
//! scraper's `Accept` header ([`Negotiated`]), and the options of an encode.

pub(crate) mod accept;
pub(crate) mod format;
mod negotiate;
#[cfg(feature = "protobuf")]
pub(crate) mod protobuf;

pub use format::{EncodeOptions, ExpositionFormat};
pub use negotiate::{NameEscaping, Negotiated};
