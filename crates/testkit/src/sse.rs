//! Rendering a [`Completion`] as `chat.completion.chunk` SSE events or as one
//! `chat.completion` object.

use serde_json::{Value, json};

use crate::script::{Completion, ToolCallSpec, Usage};

/// The SSE line that ends a successful stream.
pub(crate) const DONE: &str = "data: [DONE]\n\n";
/// The malformed event inserted by [`crate::ScriptedResponse::malformed_chunk_at`].
pub(crate) const MALFORMED: &str = "data: {not json\n\n";

/// What every chunk or object of one response shares.
#[derive(Debug, Clone)]
pub(crate) struct RenderContext {
    /// `id`, e.g. `chatcmpl-testkit-3`.
    pub id: String,
    /// `created`, Unix seconds.
    pub created: u64,
    /// `model`, echoed from the request.
    pub model: String,
    /// Whether to send the usage chunk (streaming only).
    pub include_usage: bool,
    /// Length of the request body, for the default prompt token estimate.
    pub prompt_chars: usize,
}

/// The SSE events (`data: {...}\n\n`) of a streamed completion, without `[DONE]`.
pub(crate) fn stream_events(completion: &Completion, ctx: &RenderContext) -> Vec<String> {
    let mut events: Vec<String> = deltas(completion)
        .into_iter()
        .map(|delta| {
            event(&chunk(
                ctx,
                json!([{"index": 0, "delta": delta, "finish_reason": null}]),
            ))
        })
        .collect();
    let finish = completion.effective_finish_reason();
    events.push(event(&chunk(
        ctx,
        json!([{"index": 0, "delta": {}, "finish_reason": finish}]),
    )));
    if ctx.include_usage {
        let mut last = chunk(ctx, json!([]));
        last["usage"] = usage(completion, ctx).to_json();
        events.push(event(&last));
    }
    events
}

/// The `chat.completion` object of a non-streamed completion.
pub(crate) fn completion_object(completion: &Completion, ctx: &RenderContext) -> Value {
    let mut message = json!({"role": "assistant"});
    message["content"] = if completion.text.is_empty() && !completion.tool_calls.is_empty() {
        Value::Null
    } else {
        Value::String(completion.text.clone())
    };
    if let Some(reasoning) = &completion.reasoning {
        message[completion.reasoning_field] = Value::String(reasoning.clone());
    }
    if !completion.tool_calls.is_empty() {
        let calls: Vec<Value> = completion
            .tool_calls
            .iter()
            .map(|call| {
                json!({
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                })
            })
            .collect();
        message["tool_calls"] = Value::Array(calls);
    }
    json!({
        "id": ctx.id,
        "object": "chat.completion",
        "created": ctx.created,
        "model": ctx.model,
        "choices": [{
            "index": 0,
            "message": message,
            "finish_reason": completion.effective_finish_reason(),
            "logprobs": null,
        }],
        "usage": usage(completion, ctx).to_json(),
    })
}

fn event(value: &Value) -> String {
    format!("data: {value}\n\n")
}

fn chunk(ctx: &RenderContext, choices: Value) -> Value {
    json!({
        "id": ctx.id,
        "object": "chat.completion.chunk",
        "created": ctx.created,
        "model": ctx.model,
        "choices": choices,
    })
}

/// The scripted usage, or about four characters per token (at least 1 each).
fn usage(completion: &Completion, ctx: &RenderContext) -> Usage {
    completion.usage.unwrap_or_else(|| {
        let calls: usize = completion
            .tool_calls
            .iter()
            .map(|c| c.name.chars().count() + c.arguments.chars().count())
            .sum();
        let chars = completion
            .reasoning
            .as_deref()
            .map_or(0, |r| r.chars().count())
            + completion.text.chars().count()
            + calls;
        Usage {
            prompt_tokens: estimate_tokens(ctx.prompt_chars),
            completion_tokens: estimate_tokens(chars),
            cached_tokens: None,
            reasoning_tokens: None,
        }
    })
}

fn estimate_tokens(chars: usize) -> u64 {
    u64::try_from(chars.div_ceil(4).max(1)).unwrap_or(u64::MAX)
}

/// The `delta` objects in stream order; the first one also carries `role: "assistant"`.
fn deltas(completion: &Completion) -> Vec<Value> {
    let size = completion.chunk_size.max(1);
    let mut out = Vec::new();
    if let Some(reasoning) = &completion.reasoning {
        out.extend(
            split(reasoning, size)
                .into_iter()
                .map(|p| json!({ completion.reasoning_field: p })),
        );
    }
    out.extend(
        split(&completion.text, size)
            .into_iter()
            .map(|p| json!({"content": p})),
    );
    let per_call: Vec<Vec<Value>> = completion
        .tool_calls
        .iter()
        .enumerate()
        .map(|(index, call)| tool_call_deltas(index, call, size))
        .collect();
    if completion.interleaved {
        let longest = per_call.iter().map(Vec::len).max().unwrap_or(0);
        for step in 0..longest {
            out.extend(
                per_call
                    .iter()
                    .filter_map(|deltas| deltas.get(step).cloned()),
            );
        }
    } else {
        out.extend(per_call.into_iter().flatten());
    }
    match out.first_mut() {
        Some(first) => first["role"] = json!("assistant"),
        None => out.push(json!({"role": "assistant", "content": ""})),
    }
    out
}

/// The header delta (index, id, type, name) followed by the argument pieces.
fn tool_call_deltas(index: usize, call: &ToolCallSpec, size: usize) -> Vec<Value> {
    let mut pieces = split(&call.arguments, size).into_iter();
    let first = if call.first_piece_in_header {
        pieces.next().unwrap_or_default()
    } else {
        String::new()
    };
    let header = json!({"tool_calls": [{
        "index": index,
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": first},
    }]});
    std::iter::once(header)
        .chain(pieces.map(
            |piece| json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}),
        ))
        .collect()
}

/// `text` in pieces of `size` characters (never splitting a UTF-8 character).
fn split(text: &str, size: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::{ResponseKind, ScriptedResponse};

    fn completion(response: ScriptedResponse) -> Completion {
        match response.kind {
            ResponseKind::Completion(c) => c,
            _ => panic!("not a completion"),
        }
    }

    #[test]
    fn split_respects_characters() {
        assert_eq!(split("héllo", 2), vec!["hé", "ll", "o"]);
        assert!(split("", 3).is_empty());
    }

    #[test]
    fn interleaved_calls_alternate_after_their_headers() {
        let c = completion(
            ScriptedResponse::tool_calls([
                ToolCallSpec::new("a", "A", "1234"),
                ToolCallSpec::new("b", "B", "56"),
            ])
            .chunk_size(2)
            .interleaved(),
        );
        let order: Vec<(u64, bool)> = deltas(&c)
            .iter()
            .map(|d| {
                let call = &d["tool_calls"][0];
                (
                    call["index"].as_u64().unwrap_or(99),
                    call.get("id").is_some(),
                )
            })
            .collect();
        assert_eq!(
            order,
            vec![(0, true), (1, true), (0, false), (1, false), (0, false)]
        );
    }

    #[test]
    fn empty_answer_still_has_a_role_delta() {
        let c = completion(ScriptedResponse::text(""));
        assert_eq!(
            deltas(&c),
            vec![json!({"role": "assistant", "content": ""})]
        );
    }
}
