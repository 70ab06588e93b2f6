//! "Did you mean `...`?" for misspelt keys and rename rules.

/// The candidate closest to `input`, if it is close enough to be a plausible typo.
pub fn closest<'a>(input: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let lower = input.to_ascii_lowercase().replace('-', "_");
    candidates
        .iter()
        .map(|candidate| {
            let normalized = candidate.to_ascii_lowercase().replace('-', "_");
            let distance = if normalized == lower {
                0
            } else {
                1 + distance(&lower, &normalized)
            };
            (distance, *candidate)
        })
        .filter(|(distance, candidate)| *distance <= 1 + (candidate.len() / 3).max(1))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

/// A message suffix: ` (did you mean `x`?)` or a list of what is accepted.
pub fn hint(input: &str, candidates: &[&str]) -> String {
    match closest(input, candidates) {
        Some(candidate) => format!("did you mean `{candidate}`?"),
        None => format!("expected one of {}", list(candidates)),
    }
}

/// `` `a`, `b` or `c` ``.
pub fn list(candidates: &[&str]) -> String {
    let quoted: Vec<String> = candidates.iter().map(|c| format!("`{c}`")).collect();
    match quoted.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// Optimal string alignment distance (Levenshtein plus adjacent transpositions), so `lable`
/// is one edit from `label`.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * width];
    for i in 0..=a.len() {
        d[i * width] = i;
    }
    for (j, cell) in d.iter_mut().enumerate().take(width) {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[(i - 1) * width + j] + 1)
                .min(d[i * width + j - 1] + 1)
                .min(d[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[(i - 2) * width + j - 2] + 1);
            }
            d[i * width + j] = best;
        }
    }
    d[a.len() * width + b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_keys_only() {
        let keys = ["name", "help", "unit", "buckets", "label", "max_series"];
        assert_eq!(closest("bukets", &keys), Some("buckets"));
        assert_eq!(closest("lable", &keys), Some("label"));
        assert_eq!(closest("max-series", &keys), Some("max_series"));
        assert_eq!(closest("Name", &keys), Some("name"));
        assert_eq!(closest("frobnicate", &keys), None);
        assert_eq!(list(&["a", "b", "c"]), "`a`, `b` or `c`");
        assert_eq!(list(&["a"]), "`a`");
    }
}
