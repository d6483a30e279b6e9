//! Traces through the real binary: with `OTEL_EXPORTER_OTLP_ENDPOINT` naming the
//! testkit's OTLP receiver, a `run` that delegates to a sub-agent exports one trace —
//! the turn, a `chat MODEL` client span per model request with its `gen_ai.*`
//! attributes and tokens, an `execute_tool NAME` span per tool call, an
//! `invoke_agent NAME` span for the sub-agent with the sub-agent's turn, requests and
//! tool calls under it. A message's words reach the collector only with
//! `--log-content`; a gRPC protocol is refused by name.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;
mod subagents_support;

use smallebot_testkit::otlp::{OtlpReceiver, ReceivedSpan};
use smallebot_testkit::{ScriptedResponse, TestModel, ToolCallSpec};
use subagents_support::{delegate, home_with_two_agents, of_agent};

const MESSAGE: &str = "find the words obsidian-4471";

/// A model that has the parent delegate to `lister`, which lists the workspace once;
/// every answer reports usage (prompt 40, completion 7).
async fn delegating_model() -> TestModel {
    let model = TestModel::start().await.unwrap();
    cli::answer_titles(&model);
    model.answer_when(
        |r| of_agent(r, "lister"),
        |r| {
            if r.last_role() == Some("tool") {
                ScriptedResponse::text("lister listed").usage(40, 7)
            } else {
                ScriptedResponse::tool_calls([ToolCallSpec::new("l1", "ListFiles", "{}")])
                    .usage(40, 7)
            }
        },
    );
    model.respond_with(|r| {
        if r.last_role() == Some("tool") {
            ScriptedResponse::text("Done.").usage(40, 7)
        } else {
            ScriptedResponse::tool_calls([delegate(
                "d1",
                "lister",
                "List the workspace.",
                "list the files",
            )])
            .usage(40, 7)
        }
    });
    model
}

/// Runs `MESSAGE` in a home with two agents, exporting to `receiver` with `extra`
/// arguments and environment.
async fn run_traced(receiver: &OtlpReceiver, extra: &[&str], env: &[(&str, &str)]) {
    let home = home_with_two_agents();
    std::fs::create_dir_all(home.path().join("workspace")).unwrap();
    let model = delegating_model().await;
    let mut command = cli::smallebot(home.path(), Some(&model.base_url()));
    command
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint())
        .args(extra)
        .args(["run", MESSAGE]);
    for (key, value) in env {
        command.env(key, value);
    }
    let out = command.output().await.unwrap();
    assert!(out.status.success(), "{}", cli::text(&out.stderr));
    assert_eq!(cli::text(&out.stdout).trim(), "Done.");
}

fn only<'a>(spans: &'a [ReceivedSpan], name: &str) -> Vec<&'a ReceivedSpan> {
    spans.iter().filter(|s| s.name == name).collect()
}

fn parent_of<'a>(spans: &'a [ReceivedSpan], span: &ReceivedSpan) -> &'a ReceivedSpan {
    spans
        .iter()
        .find(|s| s.span_id == span.parent_span_id)
        .unwrap_or_else(|| panic!("the parent of {:?} was not exported", span.name))
}

/// Every attribute and event attribute value of every span, joined.
fn all_text(spans: &[ReceivedSpan]) -> String {
    let mut text = String::new();
    for span in spans {
        for value in span.attributes.values() {
            text.push_str(value);
            text.push('\n');
        }
        for (name, attributes) in &span.events {
            text.push_str(name);
            text.push('\n');
            for value in attributes.values() {
                text.push_str(value);
                text.push('\n');
            }
        }
    }
    text
}

#[tokio::test]
async fn a_delegating_run_exports_one_trace_named_by_the_genai_conventions() {
    let receiver = OtlpReceiver::start().await.unwrap();
    run_traced(&receiver, &[], &[]).await;
    // The process ended: its last spans were sent before it exited.
    let spans = receiver.spans();
    let names: Vec<&str> = spans.iter().map(|s| s.name.as_str()).collect();

    let turns = only(&spans, "turn");
    assert_eq!(
        turns.len(),
        2,
        "the parent's turn and the sub-agent's: {names:?}"
    );
    let root = turns
        .iter()
        .find(|t| t.parent_span_id.is_empty())
        .unwrap_or_else(|| panic!("no root turn span: {names:?}"));
    for span in &spans {
        assert_eq!(
            span.trace_id, root.trace_id,
            "{} in another trace",
            span.name
        );
        assert_eq!(span.service_name, "smallebot");
    }

    // Four model requests (two of the parent's, two of the sub-agent's), each a
    // client span with the request's model and the tokens its answer reported.
    let chats = only(&spans, "chat scripted");
    assert!(chats.len() >= 4, "{names:?}");
    for chat in &chats {
        assert_eq!(chat.kind, 3, "a client span");
        assert_eq!(chat.attribute("gen_ai.operation.name"), Some("chat"));
        assert_eq!(chat.attribute("gen_ai.provider.name"), Some("openai"));
        assert_eq!(chat.attribute("gen_ai.request.model"), Some("scripted"));
        assert_eq!(chat.attribute("server.address"), Some("127.0.0.1"));
    }
    let turn_chats: Vec<_> = chats
        .iter()
        .filter(|c| c.attribute("smallebot.request.purpose") == Some("chat"))
        .collect();
    assert_eq!(turn_chats.len(), 4, "{names:?}");
    for chat in &turn_chats {
        assert_eq!(chat.attribute("gen_ai.usage.input_tokens"), Some("40"));
        assert_eq!(chat.attribute("gen_ai.usage.output_tokens"), Some("7"));
        assert_eq!(parent_of(&spans, chat).name, "turn");
    }
    let finishes: Vec<_> = turn_chats
        .iter()
        .filter_map(|c| c.attribute("gen_ai.response.finish_reasons"))
        .collect();
    assert_eq!(
        finishes.iter().filter(|f| **f == "tool_calls").count(),
        2,
        "{finishes:?}"
    );
    assert_eq!(finishes.iter().filter(|f| **f == "stop").count(), 2);

    // The Delegate call holds the sub-agent, whose turn holds its tool call.
    let delegate = only(&spans, "execute_tool Delegate");
    assert_eq!(delegate.len(), 1, "{names:?}");
    let delegate = delegate[0];
    assert_eq!(
        delegate.attribute("gen_ai.operation.name"),
        Some("execute_tool")
    );
    assert_eq!(delegate.attribute("gen_ai.tool.name"), Some("Delegate"));
    assert_eq!(delegate.attribute("gen_ai.tool.call.id"), Some("d1"));
    assert_eq!(parent_of(&spans, delegate).span_id, root.span_id);
    let agent = only(&spans, "invoke_agent lister");
    assert_eq!(agent.len(), 1, "{names:?}");
    let agent = agent[0];
    assert_eq!(
        agent.attribute("gen_ai.operation.name"),
        Some("invoke_agent")
    );
    assert_eq!(agent.attribute("gen_ai.agent.name"), Some("lister"));
    assert!(agent.attribute("gen_ai.conversation.id").is_some());
    assert_eq!(parent_of(&spans, agent).span_id, delegate.span_id);
    let sub_turn = turns.iter().find(|t| t.span_id != root.span_id).unwrap();
    assert_eq!(parent_of(&spans, sub_turn).span_id, agent.span_id);
    let list = only(&spans, "execute_tool ListFiles");
    assert_eq!(list.len(), 1, "{names:?}");
    assert_eq!(parent_of(&spans, list[0]).span_id, sub_turn.span_id);
    assert_eq!(list[0].status_code, 0, "a call that worked is no error");

    // No content without --log-content: neither the message nor tool arguments.
    let text = all_text(&spans);
    assert!(!text.contains("obsidian-4471"), "{text}");
    assert!(!text.contains("List the workspace."), "{text}");
    assert_eq!(receiver.encodings()[0], "application/x-protobuf");
}

#[tokio::test]
async fn content_reaches_the_collector_only_with_log_content_and_json_is_spoken_too() {
    let receiver = OtlpReceiver::start().await.unwrap();
    run_traced(
        &receiver,
        &["--log-content"],
        &[("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")],
    )
    .await;
    let spans = receiver.spans();
    assert!(
        receiver
            .encodings()
            .iter()
            .all(|e| e.starts_with("application/json")),
        "{:?}",
        receiver.encodings()
    );
    let root = spans
        .iter()
        .find(|s| s.name == "turn" && s.parent_span_id.is_empty())
        .unwrap();
    let message = root
        .events
        .iter()
        .find(|(name, _)| name == "user message")
        .unwrap_or_else(|| panic!("no user message event: {:?}", root.events));
    assert_eq!(message.1.get("content").map(String::as_str), Some(MESSAGE));
    let delegate = spans
        .iter()
        .find(|s| s.name == "execute_tool Delegate")
        .unwrap();
    assert!(
        all_text(std::slice::from_ref(delegate)).contains("List the workspace."),
        "the call's arguments: {:?}",
        delegate.events
    );
}

#[tokio::test]
async fn a_grpc_protocol_is_refused_by_name_before_anything_runs() {
    let home = tempfile::tempdir().unwrap();
    let out = cli::smallebot(home.path(), None)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4317")
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
        .args(["conversations", "list"])
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = cli::text(&out.stderr);
    assert!(
        err.contains("OTEL_EXPORTER_OTLP_PROTOCOL=\"grpc\" is not supported"),
        "{err}"
    );
    assert!(err.contains("http/protobuf"), "{err}");
}
