//! Conversation titles: a fallback from the first message, then one from the model.

use smallebot_core::rules::title_text::clean_title as clean_stored_title;

use crate::ports::{ChatModel, ModelMessage, ModelRequest, RequestBilling, RequestPurpose};

/// The instruction that starts a title request's user message.
pub const TITLE_INSTRUCTION: &str = "Generate a short title (at most 6 words) for a conversation \
that starts with the message below. Reply with the title only, without quotes.";

/// The most tokens a title request's answer may have: a six-word title with room to
/// spare. A model that rambles is stopped there (its first line is kept, cleaned).
pub const TITLE_MAX_TOKENS: u32 = 32;

/// Longest title kept from the model.
const MAX_TITLE_CHARS: usize = 80;

/// The first 20 characters of the first message, with "…" when it was longer (cleaned
/// as every stored title is, see [`smallebot_core::rules::title_text`]).
#[must_use]
pub fn fallback_title(first_message: &str) -> String {
    let flat = clean_stored_title(first_message);
    let mut chars = flat.chars();
    let head: String = chars.by_ref().take(20).collect();
    if chars.next().is_some() {
        format!("{head}…")
    } else {
        head
    }
}

/// Asks the model (the conversation's, `model_id`) for a title; `None` when it fails or answers nothing usable.
pub(crate) async fn model_title(
    model: &dyn ChatModel,
    model_id: Option<&str>,
    first_message: &str,
    billing: RequestBilling,
) -> Option<String> {
    let request = ModelRequest {
        purpose: RequestPurpose::Title,
        system: "You name conversations.".to_owned(),
        messages: vec![ModelMessage::user(format!(
            "{TITLE_INSTRUCTION}\n\n{first_message}"
        ))],
        tools: std::sync::Arc::default(),
        thinking: false,
        model: model_id.map(str::to_owned),
        max_tokens: Some(TITLE_MAX_TOKENS),
        billing: Some(billing),
    };
    // A title cut at its bound still has its first words: kept.
    let response = model.complete(&request, &|_| {}).await.ok()?;
    clean_title(&response.text)
}

fn clean_title(raw: &str) -> Option<String> {
    let line = raw.lines().map(str::trim).find(|l| !l.is_empty())?;
    let line = clean_stored_title(line);
    let line = line.trim_start_matches("Title:").trim();
    let trimmed =
        line.trim_matches(|c: char| matches!(c, '"' | '\'' | '*' | '#' | '`' | '“' | '”'));
    let title: String = trimmed.trim().chars().take(MAX_TITLE_CHARS).collect();
    (!title.is_empty()).then_some(title)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fallback_is_twenty_chars_and_an_ellipsis() {
        let cases = [
            ("short", "short"),
            ("exactly twenty chars", "exactly twenty chars"),
            (
                "this message is longer than twenty",
                "this message is long…",
            ),
            ("multi\nline   spaced text here ok", "multi line spaced te…"),
            (
                "日本語のメッセージはとても長いですね、本当に長い",
                "日本語のメッセージはとても長いですね、本…",
            ),
        ];
        for (input, expected) in cases {
            assert_eq!(fallback_title(input), expected, "{input:?}");
        }
    }

    #[test]
    fn model_titles_are_cleaned() {
        let cases = [
            ("Time check", Some("Time check")),
            ("\"Quoted title\"\n", Some("Quoted title")),
            ("Title: **Bold**", Some("Bold")),
            ("   \n  ", None),
            ("\"\"", None),
            ("Bidi\u{202E}txt.exe\u{7}", Some("Bidi txt.exe")),
        ];
        for (input, expected) in cases {
            assert_eq!(clean_title(input).as_deref(), expected, "{input:?}");
        }
    }
}
