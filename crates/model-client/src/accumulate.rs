//! Assembling streamed chunks into one response.

use std::collections::BTreeMap;

use smallebot_application::ports::{ModelDelta, ModelResponse, ModelToolCall, ModelUsage};
use smallebot_core::entities::AnswerCut;

use crate::think::ThinkSplitter;
use crate::wire::Chunk;

#[derive(Debug, Default)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
}

/// Collects text, reasoning, tool calls (whose pieces may arrive split and interleaved,
/// matched by `index`) and usage from a stream of chunks.
#[derive(Debug, Default)]
pub struct StreamAccumulator {
    text: String,
    reasoning: String,
    calls: BTreeMap<usize, PartialCall>,
    usage: Option<ModelUsage>,
    /// llama.cpp's `timings.cache_n`, for a server that reports no `cached_tokens`.
    cache_n: Option<u64>,
    finished: bool,
    /// The answer reached its `max_tokens` (`finish_reason: "length"`).
    length: bool,
    think: ThinkSplitter,
}

impl StreamAccumulator {
    /// Takes one chunk; returns the text/reasoning deltas to show.
    pub fn push(&mut self, chunk: &Chunk) -> Vec<ModelDelta> {
        let mut deltas = Vec::new();
        if let Some(usage) = chunk.usage {
            self.usage = Some(ModelUsage {
                prompt_tokens: usage.prompt_tokens,
                completion_tokens: usage.completion_tokens,
                cached_tokens: usage.prompt_tokens_details.and_then(|d| d.cached_tokens),
                reasoning_tokens: usage
                    .completion_tokens_details
                    .and_then(|d| d.reasoning_tokens),
            });
        }
        if let Some(cache_n) = chunk.timings.and_then(|t| t.cache_n) {
            self.cache_n = Some(cache_n);
        }
        for choice in &chunk.choices {
            if let Some(reason) = &choice.finish_reason {
                self.finished = true;
                self.length |= reason == "length";
            }
            let Some(delta) = &choice.delta else { continue };
            for reasoning in [&delta.reasoning_content, &delta.reasoning]
                .into_iter()
                .flatten()
            {
                if !reasoning.is_empty() {
                    self.reasoning.push_str(reasoning);
                    deltas.push(ModelDelta::Reasoning(reasoning.clone()));
                }
            }
            if let Some(text) = delta.content.as_ref().filter(|t| !t.is_empty()) {
                for piece in self.think.push(text) {
                    self.take(&piece);
                    deltas.push(piece);
                }
            }
            for piece in delta.tool_calls.iter().flatten() {
                let index = piece.index.unwrap_or_else(|| {
                    // No index: a piece with a new id starts a call, others continue the last.
                    let last = self.calls.keys().next_back().copied();
                    match (&piece.id, last) {
                        (Some(id), Some(l)) if self.calls.get(&l).is_some_and(|c| &c.id != id) => {
                            l + 1
                        }
                        (_, Some(l)) => l,
                        (_, None) => 0,
                    }
                });
                let call = self.calls.entry(index).or_default();
                if let Some(id) = piece.id.as_ref().filter(|id| !id.is_empty()) {
                    call.id.clone_from(id);
                }
                if let Some(function) = &piece.function {
                    if let Some(name) = &function.name {
                        call.name.push_str(name);
                    }
                    if let Some(arguments) = &function.arguments {
                        call.arguments.push_str(arguments);
                    }
                }
            }
        }
        deltas
    }

    /// Adds a text or reasoning piece to the response.
    fn take(&mut self, delta: &ModelDelta) {
        match delta {
            ModelDelta::Text(text) => self.text.push_str(text),
            ModelDelta::Reasoning(reasoning) => self.reasoning.push_str(reasoning),
            _ => {}
        }
    }

    /// The text held back by the think-tag splitter (call once the stream ended).
    pub fn flush(&mut self) -> Vec<ModelDelta> {
        let rest = self.think.finish();
        for piece in &rest {
            self.take(piece);
        }
        rest
    }

    /// Whether a `finish_reason` arrived (the model finished its answer).
    #[must_use]
    pub fn finished(&self) -> bool {
        self.finished
    }

    /// Whether any of the answer came: text (not only reasoning) or a tool call.
    #[must_use]
    pub fn answered(&self) -> bool {
        !self.text.trim().is_empty() || !self.calls.is_empty()
    }

    /// The response so far, marked cut because the server's context filled up while
    /// the model wrote (`detail`: what the server said).
    #[must_use]
    pub fn into_context_full(self, detail: String) -> ModelResponse {
        ModelResponse {
            cut: Some(AnswerCut::ContextFull),
            cut_detail: Some(detail),
            ..self.into_response()
        }
    }

    /// The whole response.
    #[must_use]
    pub fn into_response(self) -> ModelResponse {
        let usage = self.usage.map(|mut usage| {
            usage.cached_tokens = usage.cached_tokens.or(self.cache_n);
            usage
        });
        ModelResponse {
            text: self.text,
            reasoning: self.reasoning,
            tool_calls: self
                .calls
                .into_values()
                .filter(|c| !c.name.is_empty())
                .map(|c| ModelToolCall {
                    call_id: c.id,
                    name: c.name,
                    arguments: c.arguments,
                })
                .collect(),
            usage,
            cut: self.length.then_some(AnswerCut::OutputLimit),
            cut_detail: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn chunk(value: serde_json::Value) -> Chunk {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn interleaved_tool_call_pieces_are_matched_by_index() {
        let mut acc = StreamAccumulator::default();
        let pieces = [
            json!({"choices":[{"delta":{"role":"assistant","content":"Let me "}}]}),
            json!({"choices":[{"delta":{"content":"check."}}]}),
            json!({"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"Get","arguments":""}}]}}]}),
            json!({"choices":[{"delta":{"tool_calls":[{"index":1,"id":"b","type":"function","function":{"name":"Read","arguments":"{\"pa"}}]}}]}),
            json!({"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"x\":"}}]}}]}),
            json!({"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":"th\":\"f\"}"}}]}}]}),
            json!({"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]}}]}),
            json!({"choices":[{"delta":{},"finish_reason":"tool_calls"}]}),
            json!({"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}),
        ];
        let mut shown = Vec::new();
        for p in pieces {
            shown.extend(acc.push(&chunk(p)));
        }
        assert!(acc.finished());
        assert_eq!(
            shown,
            [
                ModelDelta::Text("Let me ".into()),
                ModelDelta::Text("check.".into())
            ]
        );
        let response = acc.into_response();
        assert_eq!(response.text, "Let me check.");
        assert_eq!(
            response.tool_calls,
            [
                ModelToolCall {
                    call_id: "a".into(),
                    name: "Get".into(),
                    arguments: "{\"x\":1}".into()
                },
                ModelToolCall {
                    call_id: "b".into(),
                    name: "Read".into(),
                    arguments: "{\"path\":\"f\"}".into()
                },
            ]
        );
        assert_eq!(
            response.usage,
            Some(ModelUsage {
                prompt_tokens: 10,
                completion_tokens: 5,
                cached_tokens: None,
                reasoning_tokens: None,
            })
        );
    }

    #[test]
    fn reasoning_from_either_field_and_missing_indexes() {
        let mut acc = StreamAccumulator::default();
        for p in [
            json!({"choices":[{"delta":{"reasoning_content":"think "}}]}),
            json!({"choices":[{"delta":{"reasoning":"more"}}]}),
            json!({"choices":[{"delta":{"tool_calls":[{"id":"x","function":{"name":"A","arguments":"{}"}}]}}]}),
            json!({"choices":[{"delta":{"tool_calls":[{"id":"y","function":{"name":"B","arguments":"{"}}]}}]}),
            json!({"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"}"}}]}}]}),
        ] {
            acc.push(&chunk(p));
        }
        assert!(!acc.finished());
        let r = acc.into_response();
        assert_eq!(r.reasoning, "think more");
        let names: Vec<_> = r
            .tool_calls
            .iter()
            .map(|c| (c.name.as_str(), c.arguments.as_str()))
            .collect();
        assert_eq!(names, [("A", "{}"), ("B", "{}")]);
    }

    #[test]
    fn a_length_end_is_a_cut_answer_and_cached_tokens_are_read() {
        let mut acc = StreamAccumulator::default();
        for p in [
            json!({"choices":[{"delta":{"content":"Bonjour, "}}]}),
            json!({"choices":[{"delta":{},"finish_reason":"length"}],"timings":{"cache_n":7,"prompt_n":3}}),
            json!({"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5}}),
        ] {
            acc.push(&chunk(p));
        }
        assert!(acc.finished());
        let r = acc.into_response();
        assert_eq!(r.cut, Some(AnswerCut::OutputLimit));
        assert_eq!(
            r.usage.and_then(|u| u.cached_tokens),
            Some(7),
            "timings.cache_n"
        );

        let mut acc = StreamAccumulator::default();
        for p in [
            json!({"choices":[{"delta":{"content":"Hi"}}]}),
            json!({"choices":[{"delta":{},"finish_reason":"stop"}]}),
            json!({"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":8}},"timings":{"cache_n":2}}),
        ] {
            acc.push(&chunk(p));
        }
        let r = acc.into_response();
        assert_eq!(r.cut, None);
        assert_eq!(r.usage.and_then(|u| u.cached_tokens), Some(8), "usage wins");
    }
}
