//! The rules for the names the exposition writes unquoted, at run time: metric names, label
//! keys and units. The derive checks the same rules at compile time (`metrics-derive`'s
//! `names.rs`); plug-in families ([`crate::family`]) and every registration in a
//! [`Registry`](crate::Registry) check them here.

/// `[a-zA-Z_:][a-zA-Z0-9_:]*`
pub(crate) const fn is_metric_name(name: &str) -> bool {
    is_name(name.as_bytes(), true)
}

/// `[a-zA-Z_][a-zA-Z0-9_]*`
pub(crate) const fn is_label_key(key: &str) -> bool {
    is_name(key.as_bytes(), false)
}

/// `[a-zA-Z_:][a-zA-Z0-9_:]*` with `colons`, else `[a-zA-Z_][a-zA-Z0-9_]*` (bytewise: a
/// non-ASCII character's bytes are none of these).
const fn is_name(name: &[u8], colons: bool) -> bool {
    if name.is_empty() || name[0].is_ascii_digit() {
        return false;
    }
    let mut i = 0;
    while i < name.len() {
        let c = name[i];
        if !(c.is_ascii_alphanumeric() || c == b'_' || (colons && c == b':')) {
            return false;
        }
        i += 1;
    }
    true
}

/// `[a-z][a-z0-9_]*`
pub(crate) const fn is_unit(unit: &str) -> bool {
    let unit = unit.as_bytes();
    if unit.is_empty() || !unit[0].is_ascii_lowercase() {
        return false;
    }
    let mut i = 0;
    while i < unit.len() {
        let c = unit[i];
        if !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_') {
            return false;
        }
        i += 1;
    }
    true
}
