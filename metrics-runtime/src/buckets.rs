//! Histogram bucket specifications: explicit lists and the generators the derive accepts.
//!
//! A [`Buckets`] value is `const`-constructible so it can sit in a [`MetricDescriptor`]
//! table, and expands to its bounds with [`Buckets::bounds`] at registration time.
//!
//! [`MetricDescriptor`]: crate::descriptor::MetricDescriptor

use std::fmt;

/// How a histogram's bucket upper bounds are defined.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Buckets {
    /// An explicit list of strictly increasing, finite bounds.
    Explicit(&'static [f64]),
    /// `count` bounds: `start`, `start * factor`, `start * factor^2`, ...
    Exponential {
        /// The first bound (> 0).
        start: f64,
        /// The ratio between consecutive bounds (> 1).
        factor: f64,
        /// How many bounds (>= 1).
        count: u16,
    },
    /// `count` bounds: `start`, `start + width`, `start + 2 * width`, ...
    Linear {
        /// The first bound.
        start: f64,
        /// The distance between consecutive bounds (> 0).
        width: f64,
        /// How many bounds (>= 1).
        count: u16,
    },
    /// The 1-2-5 series up to `max`, ending with `max` itself (vLLM's token buckets):
    /// see [`one_two_five`].
    OneTwoFive {
        /// The largest bound (>= 1).
        max: f64,
    },
}

impl Buckets {
    /// The bucket upper bounds this specification stands for (without `+Inf`).
    pub fn bounds(&self) -> Vec<f64> {
        match *self {
            Buckets::Explicit(bounds) => bounds.to_vec(),
            Buckets::Exponential {
                start,
                factor,
                count,
            } => exponential(start, factor, count),
            Buckets::Linear {
                start,
                width,
                count,
            } => linear(start, width, count),
            Buckets::OneTwoFive { max } => one_two_five(max),
        }
    }
}

impl fmt::Display for Buckets {
    /// Renders the specification the way it is written in a `#[metric(buckets = ...)]`
    /// attribute, for the metric catalogue.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Buckets::Explicit(bounds) => {
                f.write_str("[")?;
                for (i, b) in bounds.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{b:?}")?;
                }
                f.write_str("]")
            }
            Buckets::Exponential {
                start,
                factor,
                count,
            } => write!(
                f,
                "exponential(start = {start:?}, factor = {factor:?}, count = {count})"
            ),
            Buckets::Linear {
                start,
                width,
                count,
            } => write!(
                f,
                "linear(start = {start:?}, width = {width:?}, count = {count})"
            ),
            Buckets::OneTwoFive { max } => write!(f, "one_two_five(max = {max:?})"),
        }
    }
}

/// `count` exponentially growing bounds starting at `start`.
pub fn exponential(start: f64, factor: f64, count: u16) -> Vec<f64> {
    stepwise(Buckets::Exponential {
        start,
        factor,
        count,
    })
}

/// `count` evenly spaced bounds starting at `start`.
pub fn linear(start: f64, width: f64, count: u16) -> Vec<f64> {
    stepwise(Buckets::Linear {
        start,
        width,
        count,
    })
}

/// The bounds of a generator made bound by bound, with [`Buckets::step`].
fn stepwise(generator: Buckets) -> Vec<f64> {
    let mut bound = 0.0;
    let mut bounds = Vec::new();
    let mut index = 0;
    while let Some(next) = generator.step(bound, index) {
        bound = next;
        bounds.push(bound);
        index += 1;
    }
    bounds
}

impl Buckets {
    /// Bound `index` of an `exponential` or `linear` generator, given bound `index - 1` as
    /// `previous` (ignored for index 0); `None` past its `count`, and for the forms not made
    /// bound by bound. The generators' arithmetic, written once and `const`: the lists above
    /// and the compile-time check of a declared generator (which the derive's generated code
    /// calls for every `exponential(...)` and `linear(...)`) walk the same bounds.
    pub(crate) const fn step(self, previous: f64, index: u16) -> Option<f64> {
        match self {
            Buckets::Exponential { count, .. } | Buckets::Linear { count, .. }
                if index >= count =>
            {
                None
            }
            Buckets::Exponential { start, .. } if index == 0 => Some(start),
            // Repeated multiplication, not `powi`: every bound is the one before times `factor`.
            Buckets::Exponential { factor, .. } => Some(previous * factor),
            Buckets::Linear { start, width, .. } => Some(start + width * index as f64),
            Buckets::Explicit(_) | Buckets::OneTwoFive { .. } => None,
        }
    }
}

/// The 1-2-5 series up to `max`: for exponents 0, 1, 2, ... emit 1·10^e, 2·10^e, 5·10^e while
/// the value is `<= max`; at the first value above `max`, emit `max` itself (unless it was just
/// emitted) and stop. This is vLLM's Rust frontend rule (its Python frontend omits the trailing
/// `max`).
///
/// ```
/// assert_eq!(
///     metric_handles::buckets::one_two_five(131072.0),
///     [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0, 5000.0,
///      10000.0, 20000.0, 50000.0, 100000.0, 131072.0]
/// );
/// assert_eq!(metric_handles::buckets::one_two_five(20.0), [1.0, 2.0, 5.0, 10.0, 20.0]);
/// ```
///
/// A `max` below 1 (or not finite) yields `[max]` when finite and positive, else nothing, so
/// the histogram still has a well-formed bucket list.
pub fn one_two_five(max: f64) -> Vec<f64> {
    if !max.is_finite() || max <= 0.0 {
        return Vec::new();
    }
    let mut bounds = Vec::new();
    let mut power = 1.0_f64;
    loop {
        for mantissa in [1.0, 2.0, 5.0] {
            let value = mantissa * power;
            if value > max {
                if bounds.last() != Some(&max) {
                    bounds.push(max);
                }
                return bounds;
            }
            bounds.push(value);
        }
        power *= 10.0;
    }
}

/// The most bounds a bucket list may have. Every bound is one series per label set in every
/// scrape (and a cell per thread shard in memory); classic histograms use a few dozen.
pub const MAX_BUCKETS: usize = 256;

/// Whether `bounds` is a valid explicit bucket list: non-empty, at most [`MAX_BUCKETS`] bounds,
/// finite, non-negative and strictly increasing.
///
/// Bounds are non-negative because every histogram here exposes `_sum`, and OpenMetrics
/// forbids `_sum` on a histogram with a negative bucket bound (Python's parser rejects the
/// scrape): histograms measure sizes and durations, which are never negative.
///
/// A `const fn`, so the derive can check a bucket constant named by path at compile time.
#[cfg(test)]
pub(crate) const fn is_valid_bucket_list(bounds: &[f64]) -> bool {
    if bounds.is_empty() || bounds.len() > MAX_BUCKETS {
        return false;
    }
    let mut i = 0;
    while i < bounds.len() {
        if !bounds[i].is_finite() || bounds[i] < 0.0 {
            return false;
        }
        if i > 0 && bounds[i] <= bounds[i - 1] {
            return false;
        }
        i += 1;
    }
    true
}

/// Why a bucket list was rejected by [`RegisterOptions::buckets`](crate::RegisterOptions::buckets).
#[derive(Clone, Debug, PartialEq)]
pub enum BucketError {
    /// The list has no bounds.
    Empty,
    /// The list has more than [`MAX_BUCKETS`] bounds.
    TooMany {
        /// How many bounds it has.
        count: usize,
    },
    /// A bound is NaN or infinite.
    NotFinite {
        /// The offending bound's position.
        index: usize,
    },
    /// A bound is negative (OpenMetrics then forbids the histogram's `_sum`).
    Negative {
        /// The offending bound's position.
        index: usize,
    },
    /// A bound is not greater than the one before it.
    NotIncreasing {
        /// The offending bound's position.
        index: usize,
    },
}

impl fmt::Display for BucketError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BucketError::Empty => f.write_str("a bucket list needs at least one bound"),
            BucketError::TooMany { count } => write!(
                f,
                "a bucket list has at most {MAX_BUCKETS} bounds, this one has {count}"
            ),
            BucketError::NotFinite { index } => {
                write!(f, "bucket bound #{index} is not finite")
            }
            BucketError::Negative { index } => write!(
                f,
                "bucket bound #{index} is negative: OpenMetrics forbids `_sum` on a histogram with negative buckets"
            ),
            BucketError::NotIncreasing { index } => write!(
                f,
                "bucket bound #{index} is not greater than the bound before it"
            ),
        }
    }
}

impl std::error::Error for BucketError {}

/// Checks a run-time bucket list (for example one given in [`RegisterOptions`]) against the
/// rules above (non-empty, at most `MAX_BUCKETS`, finite, not negative, increasing), naming
/// the first bound that breaks one.
///
/// [`RegisterOptions`]: crate::RegisterOptions
pub(crate) fn validate(bounds: &[f64]) -> Result<(), BucketError> {
    if bounds.is_empty() {
        return Err(BucketError::Empty);
    }
    if bounds.len() > MAX_BUCKETS {
        return Err(BucketError::TooMany {
            count: bounds.len(),
        });
    }
    for (index, pair) in bounds.windows(2).enumerate() {
        if pair[1] <= pair[0] {
            return Err(BucketError::NotIncreasing { index: index + 1 });
        }
    }
    if let Some(index) = bounds.iter().position(|b| !b.is_finite()) {
        return Err(BucketError::NotFinite { index });
    }
    match bounds.iter().position(|b| *b < 0.0) {
        Some(index) => Err(BucketError::Negative { index }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generators_match_their_definitions() {
        assert_eq!(exponential(1.0, 2.0, 4), [1.0, 2.0, 4.0, 8.0]);
        assert_eq!(linear(0.5, 0.5, 3), [0.5, 1.0, 1.5]);
        assert_eq!(one_two_five(1.0), [1.0]);
        assert_eq!(one_two_five(3.0), [1.0, 2.0, 3.0]);
        assert_eq!(one_two_five(5.0), [1.0, 2.0, 5.0]);
        assert_eq!(one_two_five(0.5), [0.5]);
        assert!(one_two_five(f64::NAN).is_empty());
    }

    #[test]
    fn validation_names_the_offending_bound() {
        assert_eq!(validate(&[]), Err(BucketError::Empty));
        assert_eq!(
            validate(&[1.0, 1.0]),
            Err(BucketError::NotIncreasing { index: 1 })
        );
        assert_eq!(
            validate(&[1.0, f64::INFINITY]),
            Err(BucketError::NotFinite { index: 1 })
        );
        assert_eq!(validate(&[1.0, 2.0]), Ok(()));
        assert_eq!(validate(&[0.0, 2.0]), Ok(()));
        assert_eq!(
            validate(&[-1.0, 2.0]),
            Err(BucketError::Negative { index: 0 })
        );
        assert!(!is_valid_bucket_list(&[-1.0, 2.0]));
        let many: Vec<f64> = (0..=MAX_BUCKETS).map(|i| i as f64).collect();
        assert_eq!(
            validate(&many),
            Err(BucketError::TooMany {
                count: MAX_BUCKETS + 1
            })
        );
        assert!(!is_valid_bucket_list(&many));
        assert!(is_valid_bucket_list(&many[..MAX_BUCKETS]));
        assert!(is_valid_bucket_list(&[1.0, 2.0]));
        assert!(!is_valid_bucket_list(&[2.0, 1.0]));
        assert!(!is_valid_bucket_list(&[f64::NAN]));
        assert!(!is_valid_bucket_list(&[]));
    }

    #[test]
    fn specs_expand_and_render() {
        let spec = Buckets::OneTwoFive { max: 20.0 };
        assert_eq!(spec.bounds(), [1.0, 2.0, 5.0, 10.0, 20.0]);
        assert_eq!(spec.to_string(), "one_two_five(max = 20.0)");
        assert_eq!(Buckets::Explicit(&[0.1, 1.0]).to_string(), "[0.1, 1.0]");
    }
}
