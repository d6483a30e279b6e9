//! A server's questions during a call (elicitation) against the testkit's MCP server:
//! an answer reaches the server and is reported on the call, a decline, no answer in
//! time (the tool timeout paused meanwhile), nobody to ask (`run`), an answer that does
//! not fit the form; and sampling refused with the message saying how to enable it, or
//! that no model answers it (answered: crates/host/tests/mcp_sampling_cli.rs).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use smallebot_application::ports::{
    Args, ElicitationAnswer, ElicitationRequest, Elicitor, ToolContext,
};
use smallebot_core::entities::ToolCallStatus;
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::rules::elicitation::{ElicitationAction, ElicitationOutcome};
use smallebot_mcp::{McpAuth, McpServerSettings, McpServers, McpSettings, McpTransport};
use smallebot_testkit::mcp_asking::ASK_MESSAGE;
use tokio_util::sync::CancellationToken;

/// What a person was asked: the server, its message, the conversation, the fields.
type Asked = (String, String, Option<ConversationId>, Vec<String>);

/// A person who answers every form the same way (or never), noting what was asked.
struct Person {
    answer: Option<ElicitationAnswer>,
    asked: Mutex<Vec<Asked>>,
}

impl Person {
    fn answering(answer: Option<ElicitationAnswer>) -> Arc<Self> {
        Arc::new(Self {
            answer,
            asked: Mutex::default(),
        })
    }
}

#[async_trait]
impl Elicitor for Person {
    async fn elicit(
        &self,
        request: &ElicitationRequest<'_>,
        _timeout: Duration,
    ) -> ElicitationAnswer {
        self.asked.lock().unwrap().push((
            request.server.to_owned(),
            request.message.to_owned(),
            request.conversation_id,
            request.form.iter().map(|f| f.name.clone()).collect(),
        ));
        match &self.answer {
            Some(answer) => answer.clone(),
            None => std::future::pending().await,
        }
    }
}

async fn start(cancel: &CancellationToken, elicitation: Duration, tool: Duration) -> McpServers {
    start_sampling(cancel, elicitation, tool, false).await
}

async fn start_sampling(
    cancel: &CancellationToken,
    elicitation: Duration,
    tool: Duration,
    sampling: bool,
) -> McpServers {
    let addr = smallebot_testkit::mcp::serve_http(cancel.clone())
        .await
        .unwrap();
    let server = McpServerSettings {
        name: "t".into(),
        transport: McpTransport::Http {
            url: format!("http://{addr}/mcp"),
            headers: BTreeMap::new(),
            auth: McpAuth::None,
        },
        enabled: true,
        startup_timeout: Duration::from_secs(10),
        tool_timeout: tool,
        confirm: Some(false),
        max_message_bytes: 1024 * 1024,
        elicitation_timeout: elicitation,
        sampling,
    };
    let settings = McpSettings {
        servers: vec![server],
    };
    let servers = McpServers::start(&settings, None).await.unwrap();
    assert!(servers.warnings().is_empty(), "{:?}", servers.warnings());
    servers
}

/// Calls `tool` of the server in a new conversation: the outcome, what was reported
/// on the call, and the conversation.
async fn call(
    servers: &McpServers,
    tool: &str,
) -> (
    ToolCallStatus,
    String,
    Vec<ElicitationOutcome>,
    ConversationId,
) {
    let tools = servers.mcp_tools();
    let tool = tools.iter().find(|t| t.name() == tool).unwrap();
    let args = Args::parse(tool.name(), "{}").unwrap();
    let conversation = ConversationId::new();
    let context = ToolContext::in_turn(conversation, TurnId::new(), CancellationToken::new())
        .for_call("call-1");
    let outcome = tool.call(&args, &context).await;
    let reported = context.elicitations.take();
    (outcome.status, outcome.content, reported, conversation)
}

fn content(value: Value) -> serde_json::Map<String, Value> {
    value.as_object().cloned().unwrap()
}

#[tokio::test]
async fn an_accepted_form_reaches_the_server_and_is_reported_on_the_call() {
    let cancel = CancellationToken::new();
    let servers = start(&cancel, Duration::from_secs(60), Duration::from_secs(60)).await;
    let person = Person::answering(Some(ElicitationAnswer::Accept(content(
        json!({"name": "Ann", "age": 42}),
    ))));
    servers.set_elicitor(person.clone());
    let (status, text, reported, conversation) = call(&servers, "t__ask").await;
    assert_eq!(status, ToolCallStatus::Ok, "{text}");
    // The default of the field left empty is filled in.
    let sent = r#"{"age":42,"color":"red","name":"Ann"}"#;
    assert!(text.starts_with(&format!("accepted {sent}")), "{text}");
    assert!(
        text.contains(&format!(
            "[MCP server t asked the person \"{ASK_MESSAGE}\": accepted {sent}]"
        )),
        "the answer is noted in the stored result: {text}"
    );
    let asked = person.asked.lock().unwrap().clone();
    assert_eq!(
        asked,
        vec![(
            "t".to_owned(),
            ASK_MESSAGE.to_owned(),
            Some(conversation),
            vec!["age".into(), "color".into(), "name".into()]
        )]
    );
    assert_eq!(reported.len(), 1);
    assert_eq!(reported[0].action, ElicitationAction::Accepted);
    assert_eq!(
        reported[0].content,
        Some(content(json!({"name": "Ann", "age": 42, "color": "red"})))
    );
    servers.shutdown().await;
    cancel.cancel();
}

#[tokio::test]
async fn declined_cancelled_and_unfit_answers_are_told_to_the_server() {
    let cancel = CancellationToken::new();
    let servers = start(&cancel, Duration::from_secs(60), Duration::from_secs(60)).await;
    let cases = [
        (
            ElicitationAnswer::Decline,
            "declined",
            ElicitationAction::Declined,
        ),
        (
            ElicitationAnswer::Cancel,
            "cancelled",
            ElicitationAction::Cancelled,
        ),
        // A wrong type never reaches the server.
        (
            ElicitationAnswer::Accept(content(json!({"name": 5}))),
            "declined",
            ElicitationAction::Declined,
        ),
    ];
    for (answer, told, action) in cases {
        servers.set_elicitor(Person::answering(Some(answer)));
        let (status, text, reported, _) = call(&servers, "t__ask").await;
        assert_eq!(status, ToolCallStatus::Ok, "{text}");
        assert!(text.starts_with(told), "{text}");
        assert_eq!(reported.len(), 1, "{reported:?}");
        assert_eq!(reported[0].action, action);
        assert_eq!(reported[0].content, None);
    }
    servers.shutdown().await;
    cancel.cancel();
}

#[tokio::test]
async fn no_answer_in_time_declines_and_the_tool_timeout_waits_for_the_person() {
    let cancel = CancellationToken::new();
    // The person has 2 s, longer than the call's own 1 s: the call still gets its answer.
    let servers = start(&cancel, Duration::from_secs(2), Duration::from_secs(1)).await;
    servers.set_elicitor(Person::answering(None));
    let started = std::time::Instant::now();
    let (status, text, reported, _) = call(&servers, "t__ask").await;
    assert_eq!(status, ToolCallStatus::Ok, "{text}");
    assert!(text.starts_with("declined"), "{text}");
    assert!(text.contains("declined (no answer in time)]"), "{text}");
    assert!(started.elapsed() >= Duration::from_secs(2));
    assert_eq!(reported[0].action, ElicitationAction::TimedOut);
    servers.shutdown().await;
    cancel.cancel();
}

#[tokio::test]
async fn with_no_one_to_ask_the_form_is_declined_at_once() {
    let cancel = CancellationToken::new();
    let servers = start(&cancel, Duration::from_secs(60), Duration::from_secs(60)).await;
    // Nothing set: `run` without a terminal.
    let started = std::time::Instant::now();
    let (status, text, reported, _) = call(&servers, "t__ask").await;
    assert_eq!(status, ToolCallStatus::Ok, "{text}");
    assert!(text.starts_with("declined"), "{text}");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(reported[0].action, ElicitationAction::NoOneToAsk);
    servers.shutdown().await;
    cancel.cancel();
}

#[tokio::test]
async fn sampling_is_refused_saying_how_to_enable_it() {
    let cancel = CancellationToken::new();
    let servers = start(&cancel, Duration::from_secs(60), Duration::from_secs(60)).await;
    let (_, text, _, _) = call(&servers, "t__sample").await;
    assert!(
        text.contains(
            "sampling is not enabled for MCP server t; set \"sampling\": true for it in mcp.json"
        ),
        "{text}"
    );
    servers.shutdown().await;
    cancel.cancel();
}

#[tokio::test]
async fn enabled_sampling_without_a_model_is_refused_saying_so() {
    let cancel = CancellationToken::new();
    let minute = Duration::from_secs(60);
    let servers = start_sampling(&cancel, minute, minute, true).await;
    // No `set_sampler`: nothing here answers it.
    let (_, text, _, _) = call(&servers, "t__sample").await;
    assert!(
        text.contains("MCP server t asked for a completion, but no model answers sampling here"),
        "{text}"
    );
    servers.shutdown().await;
    cancel.cancel();
}
