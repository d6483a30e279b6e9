//! Token counting with tiktoken-rs, built once per [`Tokenizer`] (lazily, or ahead of
//! time with [`Tokenizer::warm_up`] on a background thread), never per call.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use tiktoken_rs::CoreBPE;

/// The encoding name is not one this build knows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown tokenizer '{0}': use \"o200k_base\" or \"cl100k_base\" in models.json")]
pub struct TokenizerError(pub String);

/// Counts tokens of text; shared by the host through an `Arc`.
pub struct Tokenizer {
    encoding: String,
    bpe: OnceLock<Option<CoreBPE>>,
    calls: AtomicU64,
    warned: AtomicBool,
}

impl std::fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokenizer")
            .field("encoding", &self.encoding)
            .field("calls", &self.count_calls())
            .finish_non_exhaustive()
    }
}

impl Tokenizer {
    /// A tokenizer for `encoding` (`o200k_base` or `cl100k_base`); the encoder is built
    /// on first use or by [`Tokenizer::warm_up`].
    ///
    /// # Errors
    /// An unknown encoding name.
    pub fn new(encoding: &str) -> Result<Self, TokenizerError> {
        match encoding {
            "o200k_base" | "cl100k_base" => Ok(Self {
                encoding: encoding.to_owned(),
                bpe: OnceLock::new(),
                calls: AtomicU64::new(0),
                warned: AtomicBool::new(false),
            }),
            other => Err(TokenizerError(other.to_owned())),
        }
    }

    fn bpe(&self) -> Option<&CoreBPE> {
        self.bpe
            .get_or_init(|| {
                let built = match self.encoding.as_str() {
                    "cl100k_base" => tiktoken_rs::cl100k_base(),
                    _ => tiktoken_rs::o200k_base(),
                };
                built.ok()
            })
            .as_ref()
    }

    /// Builds the encoder now (~150 ms), so the first count is fast.
    pub fn warm_up(&self) {
        let _ = self.bpe();
    }

    /// Tokens of `text`. If the encoder cannot be built, an approximation
    /// (characters / 4, rounded up) is used and a warning logged once.
    pub fn count(&self, text: &str) -> usize {
        self.calls.fetch_add(1, Ordering::Relaxed);
        match self.bpe() {
            Some(bpe) => bpe.encode_ordinary(text).len(),
            None => {
                if !self.warned.swap(true, Ordering::Relaxed) {
                    tracing::warn!(encoding = %self.encoding, "tokenizer unavailable; approximating token counts");
                }
                text.chars().count().div_ceil(4)
            }
        }
    }

    /// How many times [`Tokenizer::count`] ran.
    pub fn count_calls(&self) -> u64 {
        self.calls.load(Ordering::Relaxed)
    }

    /// The encoding name.
    pub fn encoding(&self) -> &str {
        &self.encoding
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_stable_and_calls_are_counted() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Tokenizer>();
        let t = Tokenizer::new("o200k_base").unwrap();
        t.warm_up();
        assert_eq!(t.count_calls(), 0);
        for text in ["hello world", "日本語のテキスト", "emoji 🎉🎉 ok"] {
            let n = t.count(text);
            assert!(n > 0, "{text}");
            assert_eq!(t.count(text), n);
        }
        assert_eq!(t.count(""), 0);
        assert_eq!(t.count_calls(), 7);
        assert_eq!(
            Tokenizer::new("cl100k_base").unwrap().count("hello world"),
            2
        );
        assert!(
            Tokenizer::new("bogus")
                .unwrap_err()
                .to_string()
                .contains("'bogus'")
        );
    }
}
