//! The compile-time check of a bucket constant named by path (`buckets = ITL`), with a message
//! that names the constant, the offending index and its value.
//!
//! Runs in `const` evaluation, where `format!` is unavailable: the message is written into a
//! fixed buffer ([`Message`]).

use crate::declare::const_message::Message;

/// Fails compilation when the bucket constant `name` is not a valid bucket list (non-empty, at
/// most [`MAX_BUCKETS`](crate::buckets::MAX_BUCKETS), finite, not negative, strictly
/// increasing), naming the offending index and value.
pub const fn assert_valid_buckets(name: &str, bounds: &[f64]) {
    let start = Message::new()
        .push_str("bucket constant `")
        .push_str(name)
        .push_str("`: ");
    if bounds.is_empty() {
        start
            .push_str("it has no bounds; list at least one, e.g. `[0.1, 1.0]`")
            .fail();
    }
    if bounds.len() > crate::buckets::MAX_BUCKETS {
        start
            .push_str("it has ")
            .push_usize(bounds.len())
            .push_str(" bounds, more than the 256 a histogram may have")
            .fail();
    }
    let mut i = 0;
    while i < bounds.len() {
        if bounds[i] < 0.0 {
            start
                .push_str("bound [")
                .push_usize(i)
                .push_str("] = ")
                .push_f64(bounds[i])
                .push_str(" is negative (OpenMetrics forbids `_sum` beside negative buckets)")
                .fail();
        }
        if !bounds[i].is_finite() {
            start
                .push_str("bound [")
                .push_usize(i)
                .push_str("] = ")
                .push_f64(bounds[i])
                .push_str(" is not finite (`+Inf` is always added; list only finite bounds)")
                .fail();
        }
        if i > 0 && bounds[i] <= bounds[i - 1] {
            start
                .push_str("bound [")
                .push_usize(i)
                .push_str("] = ")
                .push_f64(bounds[i])
                .push_str(" is not greater than bound [")
                .push_usize(i - 1)
                .push_str("] = ")
                .push_f64(bounds[i - 1])
                .push_str("; bounds must be strictly increasing")
                .fail();
        }
        i += 1;
    }
}

/// A generator's `count` given as a constant, as the `u16` the descriptor holds; fails
/// compilation outside 1..=256 (a negative constant wraps far above).
pub const fn bucket_count(count: u128) -> u16 {
    if count == 0 || count > crate::buckets::MAX_BUCKETS as u128 {
        panic!("bucket generator: `count` must be an integer from 1 to 256");
    }
    count as u16
}

/// Fails compilation when a declared generator is invalid: the argument rules (which the derive
/// also applies, with a span, to literal arguments), and every bound it makes finite and
/// strictly increasing, walked with the generators' own arithmetic.
pub const fn assert_valid_generator(buckets: crate::Buckets) {
    use crate::Buckets;
    let start = Message::new().push_str("bucket generator ");
    match buckets {
        Buckets::Exponential {
            start: first,
            factor,
            count: _,
        } => {
            let name = start.push_str("`exponential(...)`: ");
            if !(first.is_finite() && first > 0.0) {
                name.push_str("`start` must be greater than 0, got ")
                    .push_f64(first)
                    .fail();
            }
            if !(factor.is_finite() && factor > 1.0) {
                name.push_str("`factor` must be greater than 1, got ")
                    .push_f64(factor)
                    .fail();
            }
            check_generated(name, buckets);
        }
        Buckets::Linear {
            start: first,
            width,
            count: _,
        } => {
            let name = start.push_str("`linear(...)`: ");
            if !(first.is_finite() && first >= 0.0) {
                name.push_str("`start` must be finite and not negative, got ")
                    .push_f64(first)
                    .fail();
            }
            if !(width.is_finite() && width > 0.0) {
                name.push_str("`width` must be greater than 0, got ")
                    .push_f64(width)
                    .fail();
            }
            check_generated(name, buckets);
        }
        Buckets::OneTwoFive { max } => {
            if !(max.is_finite() && max >= 1.0) {
                start
                    .push_str("`one_two_five(...)`: `max` must be at least 1, got ")
                    .push_f64(max)
                    .fail();
            }
        }
        Buckets::Explicit(bounds) => assert_valid_buckets("", bounds),
    }
}

/// Fails compilation unless every bound `generator` makes is finite and above the one before,
/// walking them as registration will make them.
const fn check_generated(name: Message, generator: crate::Buckets) {
    let mut previous = 0.0;
    let mut index = 0;
    while let Some(bound) = generator.step(previous, index) {
        if !bound.is_finite() {
            name.push_str("its bounds overflow `f64`: use fewer buckets")
                .fail();
        }
        if index > 0 && bound <= previous {
            name.push_str("its bounds stop increasing at bound [")
                .push_usize(index as usize)
                .push_str("] = ")
                .push_f64(bound)
                .push_str(": use a larger step or fewer buckets")
                .fail();
        }
        previous = bound;
        index += 1;
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn valid_lists_pass() {
        super::assert_valid_buckets("OK", &[0.1, 0.5, 1.0]);
    }

    #[test]
    #[should_panic(
        expected = "bucket constant `ITL`: bound [2] = 0.5 is not greater than bound [1] = 1"
    )]
    fn a_decreasing_bound_is_named() {
        super::assert_valid_buckets("ITL", &[0.1, 1.0, 0.5]);
    }

    #[test]
    fn generators_within_the_rules_pass() {
        use crate::Buckets;
        super::assert_valid_generator(Buckets::Exponential {
            start: 0.001,
            factor: 2.0,
            count: 256,
        });
        super::assert_valid_generator(Buckets::Linear {
            start: 0.0,
            width: 0.5,
            count: 256,
        });
        super::assert_valid_generator(Buckets::OneTwoFive { max: 4096.0 });
    }

    #[test]
    #[should_panic(expected = "bucket generator `exponential(...)`: its bounds overflow `f64`")]
    fn an_overflowing_exponential_generator_fails() {
        super::assert_valid_generator(crate::Buckets::Exponential {
            start: 1e300,
            factor: 10.0,
            count: 20,
        });
    }

    #[test]
    #[should_panic(
        expected = "bucket generator `linear(...)`: its bounds stop increasing at bound [1]"
    )]
    fn a_linear_step_lost_to_rounding_fails() {
        // 1e17 + 1 rounds back to 1e17: the bounds would not increase.
        super::assert_valid_generator(crate::Buckets::Linear {
            start: 1e17,
            width: 1.0,
            count: 3,
        });
    }
}
