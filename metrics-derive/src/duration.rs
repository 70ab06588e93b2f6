//! `idle_timeout = "5m"`: a duration written as numbers with units, read at compile time.

/// The units a duration may use, longest first so that `ms` is not read as `m` then `s`.
const UNITS: &[(&str, u64)] = &[("ms", 1), ("h", 3_600_000), ("m", 60_000), ("s", 1_000)];

/// What to write, for every error message.
pub const WRITE: &str = "write a number and a unit (`ms`, `s`, `m`, `h`), or several from largest to smallest, e.g. `idle_timeout = \"5m\"`, `\"90s\"` or `\"1h30m\"`";

/// The duration `text` spells, in milliseconds: one or more `<digits><unit>` parts, each unit
/// at most once and from largest to smallest, adding up to more than zero and at most a year.
pub fn parse_millis(text: &str) -> Result<u64, String> {
    const YEAR_MS: u64 = 365 * 24 * 3_600_000;
    if text.trim().is_empty() {
        return Err(format!("`idle_timeout` is empty: {WRITE}"));
    }
    let mut rest = text;
    let mut total: u64 = 0;
    let mut smallest_so_far = u64::MAX;
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return Err(format!(
                "`idle_timeout = \"{text}\"` is not a duration: {WRITE}"
            ));
        }
        let (number, after) = rest.split_at(digits);
        let Some(&(unit, scale)) = UNITS.iter().find(|(unit, _)| after.starts_with(unit)) else {
            let word: String = after
                .chars()
                .take_while(char::is_ascii_alphabetic)
                .collect();
            return Err(if word.is_empty() {
                format!("`idle_timeout = \"{text}\"`: `{number}` has no unit: {WRITE}")
            } else {
                format!("`idle_timeout = \"{text}\"`: `{word}` is not a unit: {WRITE}")
            });
        };
        if scale >= smallest_so_far {
            return Err(format!(
                "`idle_timeout = \"{text}\"` repeats a unit or puts a larger one after a smaller one: {WRITE}"
            ));
        }
        smallest_so_far = scale;
        let part = number
            .parse::<u64>()
            .ok()
            .and_then(|n| n.checked_mul(scale))
            .and_then(|ms| total.checked_add(ms))
            .filter(|&ms| ms <= YEAR_MS);
        let Some(sum) = part else {
            return Err(format!(
                "`idle_timeout = \"{text}\"` is longer than a year: for a series that never expires, leave `idle_timeout` out"
            ));
        };
        total = sum;
        rest = &after[unit.len()..];
    }
    if total == 0 {
        return Err(format!(
            "`idle_timeout = \"{text}\"` is zero: every series would expire at every scrape; give a duration longer than the scrape interval, e.g. `idle_timeout = \"5m\"`, or leave `idle_timeout` out"
        ));
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::parse_millis;

    #[test]
    fn durations_add_their_parts() {
        assert_eq!(parse_millis("5m"), Ok(300_000));
        assert_eq!(parse_millis("90s"), Ok(90_000));
        assert_eq!(parse_millis("1h30m"), Ok(5_400_000));
        assert_eq!(parse_millis("2m500ms"), Ok(120_500));
        assert_eq!(parse_millis("250ms"), Ok(250));
    }

    #[test]
    fn malformed_durations_say_what_to_write() {
        for bad in [
            "", "5", "m5", "5 m", "5min", "5d", "30s1m", "1m1m", "-5m", "0s", "0h0m",
        ] {
            let error = parse_millis(bad).expect_err(bad);
            assert!(error.contains("idle_timeout"), "{bad}: {error}");
        }
        assert!(parse_millis("9000h")
            .unwrap_err()
            .contains("longer than a year"));
    }
}
