//! See README.md.

use std::collections::BTreeMap;

/// Adds two numbers (the crate's first function).
pub fn add(a: u64, b: u64) -> u64 {
    a + b
}

/// How often each lowercased alphanumeric word occurs.
pub fn word_count(text: &str) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        *counts.entry(word.to_lowercase()).or_insert(0) += 1;
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(2, 2), 4);
    }

    #[test]
    fn counts() {
        assert_eq!(word_count("a A b")["a"], 2);
    }
}
