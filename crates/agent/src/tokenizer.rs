//! Token counts with tiktoken ([`Tokenizer`]).
//!
//! Building a tiktoken encoder takes ~150 ms, so a [`Tokenizer`] builds its encoder
//! once, lazily (or ahead of time with [`Tokenizer::warm_up`] on a background thread),
//! and keeps it. There is no process-wide cache: the host creates one `Tokenizer` per
//! encoding and shares it in an `Arc`.
//!
//! Short texts that come again (tool names, small arguments such as `{}`) are counted
//! once: their counts are kept in a small table of the tokenizer's ([`MEMO_MAX_BYTES`],
//! [`MEMO_ENTRIES`]). Counting with the encoder looks every piece of the text up in a
//! table of 200 000 tokens, and between a turn's steps (the model answering) that table
//! leaves the CPU's caches: on a small virtual machine a count of a short text then took
//! 50–600 µs instead of 3 µs, several times per step.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

use tiktoken_rs::CoreBPE;

/// The encodings a [`Tokenizer`] (and the `tokenizer` key of `models.json`) accepts.
pub const SUPPORTED_ENCODINGS: &[&str] = &["o200k_base", "cl100k_base"];

/// Why a [`Tokenizer`] could not be created.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TokenizerError {
    /// The encoding name is not one of [`SUPPORTED_ENCODINGS`].
    #[error("unknown tokenizer encoding `{name}`: use \"o200k_base\" or \"cl100k_base\"")]
    UnknownEncoding {
        /// The name that was given.
        name: String,
    },
}

/// Texts up to this many bytes have their counts kept.
pub const MEMO_MAX_BYTES: usize = 32;
/// The most counts kept; the table starts empty again when it is full.
pub const MEMO_ENTRIES: usize = 512;

/// Counts tokens of text with one tiktoken encoding.
///
/// `Send + Sync`: share it between threads in an `Arc`.
pub struct Tokenizer {
    /// The encoding name, one of [`SUPPORTED_ENCODINGS`].
    encoding: &'static str,
    /// The encoder, built once; `None` when building failed (counts are approximated).
    bpe: OnceLock<Option<CoreBPE>>,
    /// How many times [`Tokenizer::count`] ran.
    calls: AtomicU64,
    /// Counts of short texts, by text.
    memo: Mutex<HashMap<Box<str>, usize>>,
    /// How many times the encoder counted a text.
    encoded: AtomicU64,
}

impl Tokenizer {
    /// A tokenizer for `encoding` (`"o200k_base"` or `"cl100k_base"`). Cheap: the
    /// encoder is built on first use or by [`Tokenizer::warm_up`].
    ///
    /// # Errors
    /// [`TokenizerError::UnknownEncoding`] for any other name.
    pub fn new(encoding: &str) -> Result<Self, TokenizerError> {
        let encoding = SUPPORTED_ENCODINGS
            .iter()
            .copied()
            .find(|name| *name == encoding)
            .ok_or_else(|| TokenizerError::UnknownEncoding {
                name: encoding.to_owned(),
            })?;
        Ok(Self {
            encoding,
            bpe: OnceLock::new(),
            calls: AtomicU64::new(0),
            memo: Mutex::default(),
            encoded: AtomicU64::new(0),
        })
    }

    /// Builds the encoder now, if not built yet (~150 ms). The host calls this on a
    /// background thread at start-up: `std::thread::spawn(move || tokenizer.warm_up())`
    /// with the tokenizer in an `Arc`.
    pub fn warm_up(&self) {
        self.encoder();
    }

    /// The number of tokens in `text` (`encode_ordinary`: special tokens count as
    /// plain text). Builds the encoder on first use unless [`Tokenizer::warm_up`] did.
    ///
    /// Never panics: if the encoder could not be built, the count is the approximation
    /// `chars / 4`, rounded up (a warning is logged once).
    pub fn count(&self, text: &str) -> usize {
        self.calls.fetch_add(1, Ordering::Relaxed);
        if text.is_empty() {
            return 0;
        }
        let Some(bpe) = self.encoder() else {
            return approximate_count(text);
        };
        if text.len() > MEMO_MAX_BYTES {
            return self.encode(bpe, text);
        }
        if let Some(&kept) = self.memo().get(text) {
            return kept;
        }
        let counted = self.encode(bpe, text);
        let mut memo = self.memo();
        if memo.len() >= MEMO_ENTRIES {
            memo.clear();
        }
        memo.insert(text.into(), counted);
        counted
    }

    fn encode(&self, bpe: &CoreBPE, text: &str) -> usize {
        self.encoded.fetch_add(1, Ordering::Relaxed);
        bpe.encode_ordinary(text).len()
    }

    fn memo(&self) -> std::sync::MutexGuard<'_, HashMap<Box<str>, usize>> {
        self.memo.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether the encoder is built (or failed to build), so [`Tokenizer::count`]
    /// answers at once. Never blocks.
    pub fn is_ready(&self) -> bool {
        self.bpe.get().is_some()
    }

    /// The exact count if the encoder is ready, else the upper bound
    /// [`token_upper_bound`]. Never builds the encoder: for counts on the way to a
    /// request, where building it (~150 ms) would be the slowest part.
    pub fn count_or_bound(&self, text: &str) -> (usize, bool) {
        if self.is_ready() {
            (self.count(text), true)
        } else {
            (token_upper_bound(text), false)
        }
    }

    /// How many times [`Tokenizer::count`] ran on this tokenizer.
    pub fn count_calls(&self) -> u64 {
        self.calls.load(Ordering::Relaxed)
    }

    /// The encoding name, e.g. `"o200k_base"`.
    pub fn encoding(&self) -> &str {
        self.encoding
    }

    fn encoder(&self) -> Option<&CoreBPE> {
        self.bpe.get_or_init(|| build(self.encoding)).as_ref()
    }
}

impl fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tokenizer")
            .field("encoding", &self.encoding)
            .field("built", &self.bpe.get().is_some())
            .field("count_calls", &self.count_calls())
            .finish()
    }
}

/// Builds the encoder; `None` (with a warning) if tiktoken fails.
fn build(encoding: &str) -> Option<CoreBPE> {
    let built = match encoding {
        "cl100k_base" => tiktoken_rs::cl100k_base(),
        _ => tiktoken_rs::o200k_base(),
    };
    match built {
        Ok(bpe) => Some(bpe),
        Err(error) => {
            tracing::warn!(
                encoding,
                %error,
                "cannot build the tokenizer; token counts are approximated as chars / 4"
            );
            None
        }
    }
}

/// An upper bound of the token count of `text` in every supported encoding: its
/// length in bytes. Both encodings are byte-level BPE, where every token stands for at
/// least one byte of the text.
#[must_use]
pub fn token_upper_bound(text: &str) -> usize {
    text.len()
}

/// The fallback count: chars / 4, rounded up.
fn approximate_count(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn approximation_is_chars_over_four_rounded_up() {
        assert_eq!(approximate_count(""), 0);
        assert_eq!(approximate_count("a"), 1);
        assert_eq!(approximate_count("abcd"), 1);
        assert_eq!(approximate_count("abcde"), 2);
        assert_eq!(approximate_count("你好世界!"), 2);
    }

    #[test]
    fn a_cold_tokenizer_answers_a_bound_without_building() {
        let tokenizer = Tokenizer::new("o200k_base").expect("known encoding");
        assert!(!tokenizer.is_ready());
        assert_eq!(tokenizer.count_or_bound("hello world"), (11, false));
        assert!(!tokenizer.is_ready(), "a bound never builds the encoder");
        tokenizer.warm_up();
        assert!(tokenizer.is_ready());
        assert_eq!(tokenizer.count_or_bound("hello world"), (2, true));
    }

    #[test]
    fn failed_encoder_falls_back_without_panicking() {
        let tokenizer = Tokenizer {
            encoding: "o200k_base",
            bpe: OnceLock::from(None),
            calls: AtomicU64::new(0),
            memo: Mutex::default(),
            encoded: AtomicU64::new(0),
        };
        assert_eq!(tokenizer.count("hello world"), 3);
        assert_eq!(tokenizer.count_calls(), 1);
    }

    #[test]
    fn a_short_text_that_comes_again_is_encoded_once() {
        let tokenizer = Tokenizer::new("o200k_base").expect("known encoding");
        let long = "The quick brown fox. ".repeat(2);
        assert!(long.len() > MEMO_MAX_BYTES);
        let short = "GetCurrentTime";
        let first = tokenizer.count(short);
        let long_first = tokenizer.count(&long);
        for _ in 0..3 {
            assert_eq!(tokenizer.count(short), first);
            assert_eq!(tokenizer.count(&long), long_first);
        }
        // The short text once, the long one every time.
        assert_eq!(tokenizer.encoded.load(Ordering::Relaxed), 1 + 4);
        assert_eq!(tokenizer.count_calls(), 8);
    }

    #[test]
    fn kept_counts_are_bounded_and_stay_exact() {
        let tokenizer = Tokenizer::new("cl100k_base").expect("known encoding");
        let bpe = tiktoken_rs::cl100k_base().expect("builds");
        for i in 0..MEMO_ENTRIES * 2 + 7 {
            let text = format!("call {i} of {}", i * 7919);
            assert_eq!(
                tokenizer.count(&text),
                bpe.encode_ordinary(&text).len(),
                "{text}"
            );
            assert!(tokenizer.memo().len() <= MEMO_ENTRIES);
        }
    }
}
