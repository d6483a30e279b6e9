//! Reasoning sent inline: local servers often stream a leading `<think>…</think>` in
//! the answer text. [`ThinkSplitter`] turns it into reasoning while it streams, however
//! the tags are split across chunks; text after the closing tag is the answer.

use smallebot_application::ports::ModelDelta;

const OPEN: &str = "<think>";
const CLOSE: &str = "</think>";

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Nothing but whitespace yet: the text may still open with `<think>`.
    #[default]
    Start,
    /// Inside the think block.
    Thinking,
    /// Right after it: whitespace before the answer is dropped.
    AfterThinking,
    /// After it (or there was none): everything is answer text.
    Answer,
}

/// Splits streamed content into reasoning (a leading think block) and answer text.
#[derive(Debug, Default)]
pub(crate) struct ThinkSplitter {
    state: State,
    /// Text held back because it may be the start of a tag.
    pending: String,
}

impl ThinkSplitter {
    /// The deltas for one piece of content.
    pub(crate) fn push(&mut self, piece: &str) -> Vec<ModelDelta> {
        let mut out = Vec::new();
        self.pending.push_str(piece);
        loop {
            match self.state {
                State::Start => {
                    let trimmed = self.pending.trim_start();
                    if let Some(rest) = trimmed.strip_prefix(OPEN) {
                        self.pending = rest.to_owned();
                        self.state = State::Thinking;
                    } else if OPEN.starts_with(trimmed) {
                        return out; // maybe the tag, not complete yet
                    } else {
                        self.state = State::Answer;
                    }
                }
                State::Thinking => {
                    if let Some(end) = self.pending.find(CLOSE) {
                        let reasoning: String = self.pending[..end].to_owned();
                        let rest = self.pending[end + CLOSE.len()..].to_owned();
                        push(&mut out, ModelDelta::Reasoning, reasoning);
                        self.pending = rest;
                        self.state = State::AfterThinking;
                    } else {
                        let keep = partial_suffix(&self.pending, CLOSE);
                        let cut = self.pending.len() - keep;
                        let reasoning: String = self.pending.drain(..cut).collect();
                        push(&mut out, ModelDelta::Reasoning, reasoning);
                        return out;
                    }
                }
                State::AfterThinking => {
                    let rest = self.pending.trim_start();
                    if rest.is_empty() {
                        self.pending.clear();
                        return out;
                    }
                    self.pending = rest.to_owned();
                    self.state = State::Answer;
                }
                State::Answer => {
                    let text = std::mem::take(&mut self.pending);
                    push(&mut out, ModelDelta::Text, text);
                    return out;
                }
            }
        }
    }

    /// What was held back, at the end of the stream.
    pub(crate) fn finish(&mut self) -> Vec<ModelDelta> {
        let rest = std::mem::take(&mut self.pending);
        let mut out = Vec::new();
        match self.state {
            State::Thinking => push(&mut out, ModelDelta::Reasoning, rest),
            State::Start | State::AfterThinking | State::Answer => {
                push(&mut out, ModelDelta::Text, rest);
            }
        }
        out
    }
}

fn push(out: &mut Vec<ModelDelta>, make: fn(String) -> ModelDelta, text: String) {
    if !text.is_empty() {
        out.push(make(text));
    }
}

/// The length of the longest suffix of `text` that is a proper prefix of `tag` (bytes;
/// tags are ASCII, so the cut is on a char boundary).
fn partial_suffix(text: &str, tag: &str) -> usize {
    (1..tag.len())
        .rev()
        .find(|&n| {
            text.len() >= n
                && text.is_char_boundary(text.len() - n)
                && tag.starts_with(&text[text.len() - n..])
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (reasoning, text) after streaming `input` in pieces of `size` chars.
    fn split(input: &str, size: usize) -> (String, String) {
        let mut splitter = ThinkSplitter::default();
        let chars: Vec<char> = input.chars().collect();
        let mut deltas = Vec::new();
        for piece in chars.chunks(size) {
            deltas.extend(splitter.push(&piece.iter().collect::<String>()));
        }
        deltas.extend(splitter.finish());
        let (mut reasoning, mut text) = (String::new(), String::new());
        for delta in deltas {
            match delta {
                ModelDelta::Reasoning(r) => reasoning.push_str(&r),
                ModelDelta::Text(t) => text.push_str(&t),
                other => panic!("{other:?}"),
            }
        }
        (reasoning, text)
    }

    #[test]
    fn a_leading_think_block_is_reasoning_however_it_is_split() {
        let cases = [
            (
                "<think>plan it</think>The answer.",
                "plan it",
                "The answer.",
            ),
            (
                "\n <think>a < b </thin k></think>\n\nYes",
                "a < b </thin k>",
                "Yes",
            ),
            ("No think here.", "", "No think here."),
            (
                "Text mentioning <think> later",
                "",
                "Text mentioning <think> later",
            ),
            ("<thinking>not the tag", "", "<thinking>not the tag"),
            ("<think>never closed", "never closed", ""),
            ("<thi", "", "<thi"),
            ("<think>日本語</think>答え", "日本語", "答え"),
            ("", "", ""),
        ];
        for (input, reasoning, text) in cases {
            for size in 1..=input.chars().count().max(1) {
                assert_eq!(
                    split(input, size),
                    (reasoning.to_owned(), text.to_owned()),
                    "{input:?} in pieces of {size}"
                );
            }
        }
    }
}
