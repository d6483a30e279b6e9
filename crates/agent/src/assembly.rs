//! One call from parts to a working [`ConversationService`]: the OpenAI-compatible
//! client, the history builder and the summarizer wired the way the host wires them.
//! Programs that embed SmallEBot (and the host, tests and benchmarks) use it instead of
//! repeating the wiring.
//!
//! ```no_run
//! # use std::sync::Arc;
//! # async fn demo(store: Arc<dyn smallebot_core::repository::Store>) -> Result<(), Box<dyn std::error::Error>> {
//! use smallebot_agent::assembly::AgentAssembly;
//! use smallebot_agent::client::ChatEndpoint;
//! use smallebot_agent::tools::{GetCurrentTime, ToolRegistry};
//!
//! let endpoint = ChatEndpoint {
//!     base_url: "http://localhost:11434/v1".into(),
//!     api_key: None,
//!     model: "qwen3:8b".into(),
//! };
//! let agent = AgentAssembly::new(store, endpoint)
//!     .tools(ToolRegistry::new().with(Arc::new(GetCurrentTime)))
//!     .build()?;
//! let conversation = agent.service.create_conversation("me").await?;
//! agent.service.send(conversation.id, "What time is it?", Default::default()).await?;
//! # Ok(()) }
//! ```

use std::path::PathBuf;
use std::sync::Arc;

use smallebot_application::pipeline::ServiceParts;
use smallebot_application::ports::{ChatModel, TaskPlan};
use smallebot_application::{ConversationService, PipelineSettings};
use smallebot_core::repository::Store;

use crate::client::{ChatEndpoint, ClientSettings, OpenAiChatModel};
use crate::config::ModelSettings;
use crate::history::{HistoryBuilder, HistorySettings};
use crate::summarizer::{ModelSummarizer, SummarizerSettings};
use crate::tokenizer::{Tokenizer, TokenizerError};
use crate::tools::ToolRegistry;

/// The parts of an agent; everything but the store and the endpoint has a default.
pub struct AgentAssembly {
    store: Arc<dyn Store>,
    chat: ChatEndpoint,
    compaction: Option<(ChatEndpoint, u64)>,
    client: ClientSettings,
    history: HistorySettings,
    skill_path: PathBuf,
    tokenizer: Option<Arc<Tokenizer>>,
    tools: ToolRegistry,
    plan: Option<Arc<dyn TaskPlan>>,
    pipeline: PipelineSettings,
}

/// A built agent.
pub struct Agent {
    /// The pipeline.
    pub service: ConversationService,
    /// The history builder (request building and the estimate).
    pub history: Arc<HistoryBuilder>,
    /// The tokenizer every count goes through.
    pub tokenizer: Arc<Tokenizer>,
}

impl AgentAssembly {
    /// An agent on `store` talking to `chat`, with default settings, no tools, no task
    /// list and the compact skill at `.agents/sys.skills/compact/SKILL.md`.
    #[must_use]
    pub fn new(store: Arc<dyn Store>, chat: ChatEndpoint) -> Self {
        Self {
            store,
            chat,
            compaction: None,
            client: ClientSettings::default(),
            history: HistorySettings::default(),
            skill_path: PathBuf::from(".agents/sys.skills/compact/SKILL.md"),
            tokenizer: None,
            tools: ToolRegistry::new(),
            plan: None,
            pipeline: PipelineSettings::default(),
        }
    }

    /// Summaries go to this model, whose context window is `context_window`.
    #[must_use]
    pub fn compaction(mut self, endpoint: ChatEndpoint, context_window: u64) -> Self {
        self.compaction = Some((endpoint, context_window));
        self
    }

    /// Timeouts and retries of the model client.
    #[must_use]
    pub fn client(mut self, settings: ClientSettings) -> Self {
        self.client = settings;
        self
    }

    /// How requests are built (also the chat model's context window).
    #[must_use]
    pub fn history(mut self, settings: HistorySettings) -> Self {
        self.history = settings;
        self
    }

    /// Where the compression prompt is read from.
    #[must_use]
    pub fn skill_path(mut self, path: PathBuf) -> Self {
        self.skill_path = path;
        self
    }

    /// The tokenizer (default: a new `o200k_base` one).
    #[must_use]
    pub fn tokenizer(mut self, tokenizer: Arc<Tokenizer>) -> Self {
        self.tokenizer = Some(tokenizer);
        self
    }

    /// The tools offered to the model.
    #[must_use]
    pub fn tools(mut self, tools: ToolRegistry) -> Self {
        self.tools = tools;
        self
    }

    /// The conversation task list (plan).
    #[must_use]
    pub fn plan(mut self, plan: Arc<dyn TaskPlan>) -> Self {
        self.plan = Some(plan);
        self
    }

    /// Pipeline behaviour (tool steps, compression threshold, …).
    #[must_use]
    pub fn pipeline(mut self, settings: PipelineSettings) -> Self {
        self.pipeline = settings;
        self
    }

    /// Wires everything.
    ///
    /// # Errors
    /// Only when no tokenizer was given and the default one cannot be created.
    pub fn build(self) -> Result<Agent, TokenizerError> {
        let tokenizer = match self.tokenizer {
            Some(tokenizer) => tokenizer,
            None => Arc::new(Tokenizer::new(ModelSettings::DEFAULT_TOKENIZER)?),
        };
        let compaction_window = self
            .compaction
            .as_ref()
            .map_or(self.history.context_window, |(_, window)| *window);
        let summary_settings = SummarizerSettings {
            skill_path: self.skill_path,
            tool_result_max_length: self.history.tool_result_max_length,
            context_window: compaction_window,
        };
        let model: Arc<dyn ChatModel> = Arc::new(OpenAiChatModel::new(
            self.chat,
            self.compaction.map(|(endpoint, _)| endpoint),
            self.client,
        ));
        let summarizer =
            ModelSummarizer::new(Arc::clone(&model), Arc::clone(&tokenizer), summary_settings);
        let history = Arc::new(HistoryBuilder::new(self.history, Arc::clone(&tokenizer)));
        let service = ConversationService::new(ServiceParts {
            store: self.store,
            model,
            assembler: Arc::clone(&history) as _,
            tools: Arc::new(self.tools),
            plan: self.plan,
            summarizer: Arc::new(summarizer),
            settings: self.pipeline,
        });
        Ok(Agent {
            service,
            history,
            tokenizer,
        })
    }
}
