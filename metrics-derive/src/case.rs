//! `#[label(rename_all = "...")]`: the case conversions of enum variant names.
//!
//! Words are split the way `heck` splits them (an improvement over serde, which turns
//! `HTTPError` into `h_t_t_p_error`): at `_`, at a lower-case letter or digit followed by an
//! upper-case one, and before the last capital of an acronym followed by a lower-case letter.
//! So `HTTPError` is `http_error` and `LocalCacheHit` is `local_cache_hit`.

/// A rename rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenameRule {
    Lower,
    Upper,
    Snake,
    ScreamingSnake,
    Kebab,
    Camel,
    Pascal,
}

/// Every rule, as written in the attribute.
pub const RULES: &[(&str, RenameRule)] = &[
    ("lowercase", RenameRule::Lower),
    ("UPPERCASE", RenameRule::Upper),
    ("snake_case", RenameRule::Snake),
    ("SCREAMING_SNAKE_CASE", RenameRule::ScreamingSnake),
    ("kebab-case", RenameRule::Kebab),
    ("camelCase", RenameRule::Camel),
    ("PascalCase", RenameRule::Pascal),
];

/// The rule names, for messages.
pub fn rule_names() -> Vec<&'static str> {
    RULES.iter().map(|(name, _)| *name).collect()
}

impl RenameRule {
    /// The rule `name` stands for.
    pub fn from_str(name: &str) -> Option<RenameRule> {
        RULES
            .iter()
            .find(|(rule, _)| *rule == name)
            .map(|(_, rule)| *rule)
    }

    /// `variant` converted by the rule.
    pub fn apply(self, variant: &str) -> String {
        match self {
            RenameRule::Lower => variant.to_lowercase(),
            RenameRule::Upper => variant.to_uppercase(),
            RenameRule::Snake => join(variant, "_", |w, _| w.to_lowercase()),
            RenameRule::ScreamingSnake => join(variant, "_", |w, _| w.to_uppercase()),
            RenameRule::Kebab => join(variant, "-", |w, _| w.to_lowercase()),
            RenameRule::Camel => join(variant, "", |w, i| {
                if i == 0 {
                    w.to_lowercase()
                } else {
                    capitalize(w)
                }
            }),
            RenameRule::Pascal => join(variant, "", |w, _| capitalize(w)),
        }
    }
}

fn join(variant: &str, separator: &str, convert: impl Fn(&str, usize) -> String) -> String {
    words(variant)
        .iter()
        .enumerate()
        .map(|(i, word)| convert(word, i))
        .collect::<Vec<_>>()
        .join(separator)
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first
            .to_uppercase()
            .chain(chars.flat_map(char::to_lowercase))
            .collect(),
        None => String::new(),
    }
}

/// Splits an identifier into words.
fn words(ident: &str) -> Vec<String> {
    let mut words = Vec::new();
    for part in ident.split('_').filter(|part| !part.is_empty()) {
        let chars: Vec<char> = part.chars().collect();
        let mut current = String::new();
        for (i, &c) in chars.iter().enumerate() {
            let boundary = i > 0 && c.is_uppercase() && {
                let previous = chars[i - 1];
                let next_is_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
                previous.is_lowercase()
                    || previous.is_numeric()
                    || (previous.is_uppercase() && next_is_lower)
            };
            if boundary && !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            current.push(c);
        }
        if !current.is_empty() {
            words.push(current);
        }
    }
    words
}

#[cfg(test)]
mod tests {
    use super::RenameRule::*;

    #[test]
    fn every_rule() {
        let cases = [
            (Lower, "LocalCacheHit", "localcachehit"),
            (Upper, "LocalCacheHit", "LOCALCACHEHIT"),
            (Snake, "LocalCacheHit", "local_cache_hit"),
            (ScreamingSnake, "LocalCacheHit", "LOCAL_CACHE_HIT"),
            (Kebab, "LocalCacheHit", "local-cache-hit"),
            (Camel, "LocalCacheHit", "localCacheHit"),
            (Pascal, "LocalCacheHit", "LocalCacheHit"),
            (Snake, "HTTPError", "http_error"),
            (Snake, "Gpu2Cpu", "gpu2_cpu"),
            (Pascal, "already_snake", "AlreadySnake"),
            (Camel, "Stop", "stop"),
        ];
        for (rule, input, expected) in cases {
            assert_eq!(rule.apply(input), expected, "{rule:?}({input})");
        }
    }
}
