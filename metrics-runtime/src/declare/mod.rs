//! What a metrics struct declares: its descriptors, bucket bounds and the checks the derive's
//! generated code runs on them at compile time.

pub(crate) mod bucket_check;
pub mod buckets;
pub(crate) mod const_message;
pub(crate) mod descriptor;
