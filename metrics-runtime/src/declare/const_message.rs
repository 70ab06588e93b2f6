//! [`Message`]: an error message written during `const` evaluation, where `format!` is
//! unavailable, into a fixed buffer with a small decimal formatter. The generated compile-time
//! checks (bucket constants and generators, grids against `max_series`) fail with it.

/// Message buffer size; a longer message is cut (never a panic of its own).
const CAPACITY: usize = 256;

/// A message under construction; [`Message::fail`] panics with it.
#[derive(Clone, Copy)]
pub(crate) struct Message {
    bytes: [u8; CAPACITY],
    len: usize,
}

impl Message {
    pub(crate) const fn new() -> Self {
        Message {
            bytes: [0; CAPACITY],
            len: 0,
        }
    }

    pub(crate) const fn push_str(mut self, s: &str) -> Self {
        let s = s.as_bytes();
        let mut i = 0;
        while i < s.len() && self.len < CAPACITY {
            self.bytes[self.len] = s[i];
            self.len += 1;
            i += 1;
        }
        self
    }

    pub(crate) const fn push_usize(mut self, mut n: usize) -> Self {
        let mut digits = [0u8; 20];
        let mut count = 0;
        loop {
            digits[count] = b'0' + (n % 10) as u8;
            count += 1;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        while count > 0 && self.len < CAPACITY {
            count -= 1;
            self.bytes[self.len] = digits[count];
            self.len += 1;
        }
        self
    }

    /// `value` in decimal with up to 9 fraction digits (trailing zeros dropped), `NaN`,
    /// `inf`, or in scientific-free form for anything up to `usize::MAX`.
    pub(crate) const fn push_f64(self, value: f64) -> Self {
        if value.is_nan() {
            return self.push_str("NaN");
        }
        let mut message = if value.is_sign_negative() {
            self.push_str("-")
        } else {
            self
        };
        let value = value.abs();
        if value.is_infinite() || value >= 1e19 {
            return message.push_str("inf");
        }
        const SCALE: f64 = 1e9;
        let whole = value as u64;
        let mut fraction = ((value - whole as f64) * SCALE + 0.5) as u64;
        let mut whole = whole;
        if fraction >= SCALE as u64 {
            whole += 1;
            fraction -= SCALE as u64;
        }
        message = message.push_usize(whole as usize);
        if fraction > 0 {
            let mut digits = [b'0'; 9];
            let mut i = 9;
            while i > 0 {
                i -= 1;
                digits[i] = b'0' + (fraction % 10) as u8;
                fraction /= 10;
            }
            let mut end = 9;
            while end > 0 && digits[end - 1] == b'0' {
                end -= 1;
            }
            message = message.push_str(".");
            let mut j = 0;
            while j < end && message.len < CAPACITY {
                message.bytes[message.len] = digits[j];
                message.len += 1;
                j += 1;
            }
        }
        message
    }

    pub(crate) const fn fail(&self) -> ! {
        let bytes = self.bytes.split_at(self.len).0;
        match core::str::from_utf8(bytes) {
            Ok(text) => panic!("{}", text),
            Err(_) => panic!("a compile-time check of metric-handles failed"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Message;

    fn text(message: Message) -> String {
        String::from_utf8(message.bytes[..message.len].to_vec()).unwrap()
    }

    #[test]
    fn formats_numbers_like_the_source_writes_them() {
        let cases: &[(f64, &str)] = &[
            (0.5, "0.5"),
            (1.0, "1"),
            (0.001, "0.001"),
            (2.5e-5, "0.000025"),
            (-3.25, "-3.25"),
            (120.0, "120"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "inf"),
            (0.9999999999, "1"),
        ];
        for &(value, expected) in cases {
            assert_eq!(text(Message::new().push_f64(value)), expected, "{value}");
        }
        assert_eq!(text(Message::new().push_usize(0)), "0");
        assert_eq!(text(Message::new().push_usize(4096)), "4096");
    }
}
