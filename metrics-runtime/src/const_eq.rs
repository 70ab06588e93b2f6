//! Byte-string equality in `const` evaluation, where the standard library's `==` on slices is
//! not available: the checks the derive's generated code runs at compile time and the checks
//! of declared plug-in families both compare names with it.

/// `a == b`, in `const` evaluation.
pub(crate) const fn bytes_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}
