//! Tokenizer: stable counts, the call counter, encodings, thread safety.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use smallebot_agent::tokenizer::{
    SUPPORTED_ENCODINGS, Tokenizer, TokenizerError, token_upper_bound,
};

const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Tokenizer>();
};

const TEXTS: [&str; 4] = [
    "hello world",
    "你好，世界！今天天气很好。",
    "🦀🚀 emoji 👩‍👩‍👧",
    "fn main() { println!(\"<|endoftext|>\"); }",
];

#[test]
fn counts_are_stable_and_non_zero() {
    for encoding in SUPPORTED_ENCODINGS {
        let first = Tokenizer::new(encoding).unwrap();
        let second = Tokenizer::new(encoding).unwrap();
        for text in TEXTS {
            let n = first.count(text);
            assert!(n > 0, "{encoding}: {text}");
            assert_eq!(first.count(text), n, "{encoding}: {text}");
            assert_eq!(second.count(text), n, "{encoding}: {text}");
        }
    }
}

#[test]
fn the_byte_bound_is_never_below_the_exact_count() {
    let long = "x".repeat(5000) + &"日本語のテキスト ".repeat(200) + &"\u{0}\t\n ".repeat(100);
    for encoding in SUPPORTED_ENCODINGS {
        let tokenizer = Tokenizer::new(encoding).unwrap();
        for text in TEXTS
            .iter()
            .copied()
            .chain([long.as_str(), "a", " ", "\u{10FFFF}"])
        {
            let exact = tokenizer.count(text);
            assert!(
                token_upper_bound(text) >= exact,
                "{encoding}: bound {} < exact {exact} for {text:?}",
                token_upper_bound(text)
            );
        }
    }
}

#[test]
fn known_counts() {
    let o200k = Tokenizer::new("o200k_base").unwrap();
    let cl100k = Tokenizer::new("cl100k_base").unwrap();
    assert_eq!(o200k.count("hello world"), 2);
    assert_eq!(cl100k.count("hello world"), 2);
    assert_eq!(o200k.count(""), 0);
    // Special tokens are counted as plain text, not rejected or collapsed.
    assert!(o200k.count("<|endoftext|>") > 1);
}

#[test]
fn count_calls_counts_every_call() {
    let tokenizer = Tokenizer::new("o200k_base").unwrap();
    assert_eq!(tokenizer.count_calls(), 0);
    tokenizer.count("a");
    tokenizer.count("");
    tokenizer.count("b c");
    assert_eq!(tokenizer.count_calls(), 3);
    tokenizer.warm_up();
    assert_eq!(tokenizer.count_calls(), 3, "warm_up is not a count");
}

#[test]
fn unknown_encoding_is_an_error_naming_it() {
    let err = Tokenizer::new("bogus").unwrap_err();
    assert_eq!(
        err,
        TokenizerError::UnknownEncoding {
            name: "bogus".into()
        }
    );
    let shown = err.to_string();
    assert!(
        shown.contains("bogus") && shown.contains("o200k_base"),
        "{shown}"
    );
}

#[test]
fn encoding_name_is_kept() {
    assert_eq!(
        Tokenizer::new("cl100k_base").unwrap().encoding(),
        "cl100k_base"
    );
    assert_eq!(
        Tokenizer::new("o200k_base").unwrap().encoding(),
        "o200k_base"
    );
}

#[test]
fn warm_up_on_a_background_thread_then_count() {
    let tokenizer = Arc::new(Tokenizer::new("o200k_base").unwrap());
    let background = Arc::clone(&tokenizer);
    let handle = std::thread::spawn(move || background.warm_up());
    // Counting while the warm-up runs waits for the same encoder, never builds another.
    assert_eq!(tokenizer.count("hello world"), 2);
    handle.join().unwrap();
    assert_eq!(tokenizer.count("hello world"), 2);
    assert_eq!(tokenizer.count_calls(), 2);
}
