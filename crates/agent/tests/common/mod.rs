//! The end-to-end harness: a real SQLite store in a temp dir, the real tokenizer,
//! history builder and OpenAI client, pointed at a scripted testkit server.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use smallebot_agent::assembly::{AgentAssembly, WarmUp};
use smallebot_agent::config::ToolHistoryFormat;
use smallebot_agent::history::HistorySettings;
use smallebot_agent::tokenizer::Tokenizer;
use smallebot_agent::tools::{Args, GetCurrentTime, Tool, ToolRegistry, ToolSource};
use smallebot_application::ports::{ToolContext, ToolOutcome, ToolSchema, ToolTraits};
use smallebot_application::{
    ConversationService, Event, EventKind, EventSubscription, PipelineSettings,
};
use smallebot_core::entities::{Conversation, HistoryRow};
use smallebot_core::repository::HistoryRepository;
use smallebot_core::rules::tool_search::ToolLoading;
use smallebot_infrastructure::SqliteStore;
use smallebot_model_client::{ChatEndpoint, ClientSettings, NamedEndpoint, RetryPolicy};
use smallebot_testkit::{RecordedRequest, TestModel};
use tempfile::TempDir;

pub struct Options {
    pub tool_result_max_length: usize,
    pub format: ToolHistoryFormat,
    pub context_window: u64,
    pub max_tool_steps: usize,
    pub idle_timeout: Duration,
    pub tools: Vec<Arc<dyn Tool>>,
    pub compression_threshold: f64,
    pub keep_recent_turns: usize,
    pub compression_timeout: Duration,
    pub compaction_window: Option<u64>,
    pub skill_path: Option<std::path::PathBuf>,
    pub compaction_model: Option<String>,
    pub stream_max_retries: u32,
    pub retry_base_delay: Duration,
    pub warm_up: WarmUp,
    /// Whether the chat model sees images (models.json `supportsImages`).
    pub images: bool,
    /// agent.json `attachments.maxInlineTokens`.
    pub max_inline_tokens: i64,
    /// A second model conversations may choose, `text-model`, which sees no images.
    pub text_model_choice: bool,
    /// The first-byte timeout (`None`: the idle timeout).
    pub first_byte_timeout: Option<Duration>,
    /// models.json `maxOutputTokens` of the chat model.
    pub max_output_tokens: Option<u32>,
    /// models.json `parallelRequests` of the chat model.
    pub parallel_requests: Option<u32>,
    /// Whether models.json gives the chat model's `contextWindow` (else its server's
    /// is taken when it reports one).
    pub window_given: bool,
    /// Tools that may change (MCP servers'), after `tools`.
    pub sources: Vec<Arc<dyn ToolSource>>,
    /// agent.json `mcp.pinnedTools`, as the registry names them.
    pub pinned_tools: Vec<String>,
    /// agent.json `mcp`'s `maxToolShare` and `maxTools`.
    pub tool_loading: ToolLoading,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            tool_result_max_length: 500,
            format: ToolHistoryFormat::Native,
            context_window: 128_000,
            max_tool_steps: 50,
            idle_timeout: Duration::from_secs(10),
            tools: vec![Arc::new(GetCurrentTime), Arc::new(Echo), Arc::new(Sleepy)],
            compression_threshold: 0.8,
            keep_recent_turns: 2,
            compression_timeout: Duration::from_secs(30),
            compaction_window: None,
            skill_path: None,
            compaction_model: None,
            stream_max_retries: 5,
            retry_base_delay: Duration::from_millis(20),
            warm_up: WarmUp::Now,
            images: false,
            max_inline_tokens: 8_000,
            text_model_choice: false,
            max_output_tokens: None,
            parallel_requests: None,
            first_byte_timeout: None,
            window_given: true,
            sources: Vec::new(),
            pinned_tools: Vec::new(),
            tool_loading: ToolLoading::default(),
        }
    }
}

pub struct Harness {
    pub dir: TempDir,
    pub server: TestModel,
    pub store: SqliteStore,
    pub service: Arc<ConversationService>,
    pub tokenizer: Arc<Tokenizer>,
    /// One subscription per conversation made with [`Harness::conversation`].
    pub events: std::sync::Mutex<Vec<EventSubscription>>,
}

pub async fn harness(options: Options) -> Harness {
    let dir = tempfile::tempdir().unwrap();
    let server = TestModel::start().await.unwrap();
    let store = SqliteStore::open(&dir.path().join("smallebot.db"))
        .await
        .unwrap();
    let endpoint =
        |model: &str| ChatEndpoint::new(server.base_url(), model).with_api_key("test-key");
    let compaction = endpoint(options.compaction_model.as_deref().unwrap_or("test-model"));
    let registry = options
        .tools
        .into_iter()
        .fold(ToolRegistry::new(), ToolRegistry::with);
    let registry = options
        .sources
        .into_iter()
        .fold(registry, ToolRegistry::with_source);
    let mut chat = if options.images {
        endpoint("test-model").with_images()
    } else {
        endpoint("test-model")
    };
    chat.max_output_tokens = options.max_output_tokens;
    chat.parallel_requests = options.parallel_requests;
    chat.context_window = options.window_given.then_some(options.context_window);
    let choices = if options.text_model_choice {
        let named = |id: &str, endpoint: ChatEndpoint| NamedEndpoint {
            id: id.to_owned(),
            endpoint,
            context_window: options.context_window,
        };
        vec![
            named("test-model", chat.clone()),
            named("text-model", endpoint("text-model")),
        ]
    } else {
        Vec::new()
    };
    let agent = AgentAssembly::new(Arc::new(store.clone()), chat)
        .choices(choices)
        .compaction(
            compaction,
            options.compaction_window.unwrap_or(options.context_window),
        )
        .client(ClientSettings {
            idle_timeout: options.idle_timeout,
            first_byte_timeout: options.first_byte_timeout.unwrap_or(options.idle_timeout),
            retry: RetryPolicy {
                base_delay: options.retry_base_delay,
                ..RetryPolicy::default()
            },
            stream_max_retries: options.stream_max_retries,
        })
        .history(HistorySettings {
            tool_result_max_length: options.tool_result_max_length,
            tool_history_format: options.format,
            context_window: options.context_window,
            max_inline_tokens: options.max_inline_tokens,
            workspace: Some(dir.path().join("workspace")),
            ..HistorySettings::default()
        })
        .skill_path(
            options
                .skill_path
                .clone()
                .unwrap_or_else(|| dir.path().join("SKILL.md")),
        )
        .tools(registry)
        .pinned_tools(options.pinned_tools)
        .warm_up(options.warm_up)
        .pipeline(PipelineSettings {
            max_tool_steps: options.max_tool_steps,
            compression_threshold: options.compression_threshold,
            keep_recent_turns: options.keep_recent_turns,
            compression_timeout: options.compression_timeout,
            tool_loading: options.tool_loading,
            ..PipelineSettings::default()
        })
        .build()
        .unwrap();
    let tokenizer = agent.tokenizer;
    let service = Arc::new(agent.service);
    let events = std::sync::Mutex::new(Vec::new());
    Harness {
        dir,
        server,
        store,
        service,
        tokenizer,
        events,
    }
}

impl Harness {
    /// A new conversation, followed by the harness's event log.
    pub async fn conversation(&self) -> Conversation {
        let c = self.service.create_conversation("tester").await.unwrap();
        self.events
            .lock()
            .unwrap()
            .push(self.service.subscribe(c.id));
        c
    }

    pub async fn rows(&self, c: &Conversation) -> Vec<HistoryRow> {
        self.store.rows_after(c.id, 0).await.unwrap()
    }

    /// Every event received so far (conversation by conversation), after checking
    /// the envelope of each: see [`check_envelopes`].
    pub fn drain_events(&mut self) -> Vec<EventKind> {
        drain_checked(&self.events)
    }
}

/// Every event queued on `subscriptions` (conversation by conversation), envelopes
/// checked with [`check_envelopes`].
pub fn drain_checked(subscriptions: &std::sync::Mutex<Vec<EventSubscription>>) -> Vec<EventKind> {
    let mut out = Vec::new();
    for subscription in subscriptions.lock().unwrap().iter_mut() {
        let mut events = Vec::new();
        while let Some(e) = subscription.try_recv() {
            events.push(e);
        }
        check_envelopes(subscription.conversation_id(), &events);
        out.extend(events.into_iter().map(|e| e.kind));
    }
    out
}

/// Invariants of every event stream: each event is of the subscribed conversation;
/// `seq` goes up by exactly one (no gap, no repeat); every event between a
/// `TurnStarted` and the event that ends that turn carries that turn's id.
pub fn check_envelopes(conversation: smallebot_core::ids::ConversationId, events: &[Event]) {
    let mut current_turn = None;
    for pair in events.windows(2) {
        assert_eq!(pair[1].seq, pair[0].seq + 1, "seq gap or repeat: {pair:?}");
    }
    for event in events {
        assert_eq!(event.conversation_id, conversation, "{event:?}");
        if event.kind == EventKind::TurnStarted {
            assert!(event.turn_id.is_some(), "{event:?}");
            current_turn = event.turn_id;
        } else if let Some(turn) = current_turn
            && !matches!(event.kind, EventKind::TitleChanged { .. })
        {
            assert_eq!(
                event.turn_id,
                Some(turn),
                "an event inside a turn: {event:?}"
            );
        }
        if event.kind.ends_turn() {
            current_turn = None;
        }
    }
}

/// Messages of a recorded request (system first).
pub fn messages(r: &RecordedRequest) -> Vec<Value> {
    r.body["messages"].as_array().cloned().unwrap_or_default()
}

/// How often `text` appears as the content of a user message.
pub fn user_count(r: &RecordedRequest, text: &str) -> usize {
    messages(r)
        .iter()
        .filter(|m| m["role"] == "user" && m["content"] == text)
        .count()
}

/// The tool result messages of a request: (tool_call_id, content).
pub fn tool_messages(r: &RecordedRequest) -> Vec<(String, String)> {
    messages(r)
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap_or_default().to_owned(),
                m["content"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// Returns its `text` argument (or `repeat` copies of it) as the result.
pub struct Echo;

#[async_trait]
impl Tool for Echo {
    fn name(&self) -> &str {
        "Echo"
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits::READ_ONLY
    }

    fn schema(&self) -> ToolSchema {
        ToolSchema {
            name: self.name().into(),
            description: "Returns text.".into(),
            parameters: json!({"type":"object","properties":{"text":{"type":"string"},"repeat":{"type":"integer"}},"required":["text"]}),
        }
    }

    async fn call(&self, args: &Args, _ctx: &ToolContext) -> ToolOutcome {
        #[derive(serde::Deserialize)]
        struct EchoArgs {
            text: String,
        }
        let text = match args.parse_as::<EchoArgs>() {
            Ok(parsed) => parsed.text,
            Err(e) => return ToolOutcome::error(e.to_string()),
        };
        let repeat = args.as_map().get("repeat").and_then(Value::as_u64);
        ToolOutcome::ok(text.repeat(repeat.unwrap_or(1) as usize))
    }
}

/// Sleeps `ms` milliseconds, then answers `done <ms>`.
pub struct Sleepy;

#[async_trait]
impl Tool for Sleepy {
    fn name(&self) -> &str {
        "Sleepy"
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits::READ_ONLY
    }

    fn schema(&self) -> ToolSchema {
        ToolSchema {
            name: self.name().into(),
            description: "Sleeps.".into(),
            parameters: json!({"type":"object","properties":{"ms":{"type":"integer"}}}),
        }
    }

    async fn call(&self, args: &Args, ctx: &ToolContext) -> ToolOutcome {
        let ms = args.as_map().get("ms").and_then(Value::as_u64).unwrap_or(0);
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(ms)) => ToolOutcome::ok(format!("done {ms}")),
            () = ctx.cancel.cancelled() => ToolOutcome {
                content: "cancelled".into(),
                status: smallebot_core::entities::ToolCallStatus::Cancelled,
            },
        }
    }
}

/// Whether a recorded request is a compression summary request.
pub fn is_summary_request(r: &RecordedRequest) -> bool {
    r.last_user_text().is_some_and(|t| {
        t.starts_with("## Previous summary") || t.starts_with("## Conversation to summarize")
    })
}

/// The system prompt of a recorded request.
pub fn system_prompt(r: &RecordedRequest) -> String {
    r.body["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// Words that make a message cost roughly `n` tokens.
pub fn filler(tag: &str, n: usize) -> String {
    (0..n)
        .map(|i| format!("{tag}w{i}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Counts a recorded request body from scratch: every message's text, tool call names
/// and arguments, the tool schemas, with the usual per-message framing.
pub fn independent_count(tokenizer: &Tokenizer, request: &RecordedRequest) -> u64 {
    let count = |s: &str| tokenizer.count(s) as u64;
    let mut total = 3;
    for m in messages(request) {
        total += 4 + m["content"].as_str().map_or(0, count);
        for call in m["tool_calls"].as_array().into_iter().flatten() {
            total += 4
                + count(call["function"]["name"].as_str().unwrap())
                + count(call["function"]["arguments"].as_str().unwrap());
        }
    }
    if let Some(tools) = request.body.get("tools").filter(|t| !t.is_null()) {
        total += count(&serde_json::to_string(tools).unwrap());
    }
    total
}

/// The `(attempt, max, reason)` of every `Retrying` event among `events`.
pub fn retries(events: &[EventKind]) -> Vec<(u32, u32, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            EventKind::Retrying {
                attempt,
                max,
                reason,
                ..
            } => Some((*attempt, *max, reason.clone())),
            _ => None,
        })
        .collect()
}
