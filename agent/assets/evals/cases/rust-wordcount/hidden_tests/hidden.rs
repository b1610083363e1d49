use wordcount::word_count;

#[test]
fn counts_lowercased_words() {
    let counts = word_count("The cat, the HAT; the end.");
    assert_eq!(counts["the"], 3);
    assert_eq!(counts["cat"], 1);
    assert_eq!(counts.len(), 4);
}

#[test]
fn unicode_and_empty() {
    let counts = word_count("Ünïcode ünïcode 42 x42");
    assert_eq!(counts["ünïcode"], 2);
    assert_eq!(counts["42"], 1);
    assert_eq!(counts["x42"], 1);
    assert!(word_count("  ,. ").is_empty());
}
