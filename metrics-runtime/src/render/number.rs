//! Sample values as prometheus-client's text encoders spell them: integers with `itoa`,
//! floats with `dtoa`'s shortest round-trip digits. The formats differ only on non-finite
//! floats: OpenMetrics writes `dtoa`'s `NaN`, `inf`, `-inf`; the classic text `NaN`, `+Inf`,
//! `-Inf`.

/// A value a sample line can carry: every value type of prometheus-client's (and this
/// crate's) counters and gauges, and the histogram's sum and counts.
pub trait TextNumber: Copy {
    /// Appends the value as OpenMetrics text spells it.
    fn push_openmetrics(self, out: &mut Vec<u8>);
    /// Appends the value as the classic text format spells it.
    fn push_prometheus(self, out: &mut Vec<u8>);
    /// The value as a protobuf `double` carries it (prometheus-client converts the same way).
    fn as_f64(self) -> f64;
}

macro_rules! integer_text_number {
    ($($t:ty),*) => {$(
        impl TextNumber for $t {
            #[inline]
            fn push_openmetrics(self, out: &mut Vec<u8>) {
                out.extend_from_slice(itoa::Buffer::new().format(self).as_bytes());
            }
            #[inline]
            fn push_prometheus(self, out: &mut Vec<u8>) {
                self.push_openmetrics(out);
            }
            #[inline]
            fn as_f64(self) -> f64 {
                self as f64
            }
        }
    )*};
}

integer_text_number!(u64, i64, u32, i32);

impl TextNumber for f64 {
    #[inline]
    fn push_openmetrics(self, out: &mut Vec<u8>) {
        out.extend_from_slice(dtoa::Buffer::new().format(self).as_bytes());
    }

    #[inline]
    fn push_prometheus(self, out: &mut Vec<u8>) {
        let text = if self.is_finite() {
            return out.extend_from_slice(dtoa::Buffer::new().format_finite(self).as_bytes());
        } else if self.is_nan() {
            "NaN"
        } else if self.is_sign_positive() {
            "+Inf"
        } else {
            "-Inf"
        };
        out.extend_from_slice(text.as_bytes());
    }

    #[inline]
    fn as_f64(self) -> f64 {
        self
    }
}

// prometheus-client widens an `f32` to `f64` before formatting it.
impl TextNumber for f32 {
    #[inline]
    fn push_openmetrics(self, out: &mut Vec<u8>) {
        f64::from(self).push_openmetrics(out);
    }

    #[inline]
    fn push_prometheus(self, out: &mut Vec<u8>) {
        f64::from(self).push_prometheus(out);
    }

    #[inline]
    fn as_f64(self) -> f64 {
        f64::from(self)
    }
}

#[cfg(test)]
mod tests {
    use super::TextNumber;

    fn both(value: impl TextNumber) -> (String, String) {
        let (mut om, mut text) = (Vec::new(), Vec::new());
        value.push_openmetrics(&mut om);
        value.push_prometheus(&mut text);
        (
            String::from_utf8(om).unwrap(),
            String::from_utf8(text).unwrap(),
        )
    }

    #[test]
    fn floats_are_shortest_digits_and_non_finite_values_follow_each_format() {
        assert_eq!(both(0.1f64), ("0.1".into(), "0.1".into()));
        assert_eq!(both(1.0f64), ("1.0".into(), "1.0".into()));
        assert_eq!(both(1e300f64), ("1e300".into(), "1e300".into()));
        assert_eq!(both(f64::INFINITY), ("inf".into(), "+Inf".into()));
        assert_eq!(both(f64::NEG_INFINITY), ("-inf".into(), "-Inf".into()));
        assert_eq!(both(f64::NAN), ("NaN".into(), "NaN".into()));
        assert_eq!(both(0.5f32), ("0.5".into(), "0.5".into()));
        assert_eq!(both(-7i64), ("-7".into(), "-7".into()));
        assert_eq!(both(u64::MAX), (u64::MAX.to_string(), u64::MAX.to_string()));
    }
}
