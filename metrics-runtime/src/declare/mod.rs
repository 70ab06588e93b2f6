//! The checks the derive's generated code runs at compile time on what a metrics struct
//! declares (bucket bounds, and the messages of their failures).

pub(crate) mod bucket_check;
pub(crate) mod const_message;
