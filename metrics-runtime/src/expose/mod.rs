//! What a registry writes out: the exposition in the format negotiated from `Accept`, and the
//! Markdown catalogue of its families.

pub(crate) mod accept;
pub mod catalogue;
pub(crate) mod exposition;
#[cfg(feature = "protobuf")]
pub(crate) mod protobuf;
