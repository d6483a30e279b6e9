//! [`AgentAssembly`]: the one builder from a home directory (or from parts) to a working
//! [`ConversationService`]. The host, the tests, the benchmarks and programs that embed
//! SmallEBot all build their agent with it.
//!
//! [`AgentAssembly::from_home`] reads `agent.json`, `models.json` and `terminal.json`
//! and sets up everything the command line has: the model client (and the
//! compaction model), the history builder and tokenizer, the summarizer with the home's
//! `SKILL.md`, and the built-in tools (time, workspace files, `ExecuteCommand`, history
//! search). With a task store it adds the task tools and the plan. Each part can be
//! overridden before [`AgentAssembly::build`].
//!
//! ```no_run
//! # use std::sync::Arc;
//! # async fn demo(store: Arc<dyn smallebot_core::repository::Store>) -> Result<(), Box<dyn std::error::Error>> {
//! use smallebot_agent::assembly::AgentAssembly;
//! use smallebot_agent::model_client::ChatEndpoint;
//!
//! let agent = AgentAssembly::from_home(".agents")?
//!     .store(store)
//!     .endpoint(ChatEndpoint::new("http://localhost:11434/v1", "qwen3:8b"))
//!     .build()?;
//! let conversation = agent.service.create_conversation("me").await?;
//! agent.service.send(conversation.id, "What time is it?", Default::default()).await?;
//! # Ok(()) }
//! ```

mod build;
mod error;
mod gate_settings;
mod home;
mod home_config;
mod home_tools;
mod metering;
mod metering_setters;
mod permissions;
mod sub_agents;
mod tool_loading;
mod unconfigured;
mod warm_up;

use std::path::PathBuf;
use std::sync::Arc;

use smallebot_application::events::EventBus;
use smallebot_application::pipeline::ActiveTurns;
use smallebot_application::pipeline::LeaseSettings;
use smallebot_application::ports::PeerTurns;
use smallebot_application::ports::TaskPlan;
use smallebot_application::ports::{ChatModel, CommandConfirmer, DenyAll, Hooks};
use smallebot_application::{ConversationService, PipelineSettings};
use smallebot_checkpoints::CheckpointSettings;
use smallebot_core::repository::Store;
use smallebot_core::tasks::TaskStore;
use smallebot_model_client::{ChatEndpoint, ClientSettings, NamedEndpoint};

pub use error::AssemblyError;
use gate_settings::GateSettings;
pub use home::{CHAT_HISTORY_FILE, Home};
use home_tools::HomeTools;
pub use metering::Metering;
pub use unconfigured::UnconfiguredModel;
pub use warm_up::WarmUp;

use crate::agents::AgentFolders;
use crate::config::ModelSettings;
use crate::history::{HistoryBuilder, HistorySettings};
use crate::skills::{SkillCatalog, SkillFolders};
use crate::tokenizer::Tokenizer;
use crate::tools::ToolRegistry;
use smallebot_sandbox::CommandSandbox;

/// The parts of an agent; everything but the store and the chat model has a default or
/// comes from the home directory.
pub struct AgentAssembly {
    store: Option<Arc<dyn Store>>,
    chat: Option<ChatEndpoint>,
    choices: Vec<NamedEndpoint>,
    compaction: Option<(ChatEndpoint, u64)>,
    client: ClientSettings,
    history: HistorySettings,
    skill_path: PathBuf,
    summary_max_tokens: u32,
    tokenizer: Option<Arc<Tokenizer>>,
    tokenizer_name: String,
    warm_up: WarmUp,
    home_tools: Option<HomeTools>,
    /// A workspace under checkpoints besides the home's (given tools).
    checkpointed: Option<PathBuf>,
    confirmer: Arc<dyn CommandConfirmer>,
    gate: GateSettings,
    hooks: Option<Arc<dyn Hooks>>,
    /// The home's hooks.json, run (and recorded in the store) unless hooks are given.
    home_hooks: Option<crate::tools::HookRunner>,
    tools: ToolRegistry,
    /// agent.json `mcp.pinnedTools`, as the registry names them.
    pinned_tools: Vec<String>,
    task_store: Option<Arc<dyn TaskStore>>,
    plan: Option<Arc<dyn TaskPlan>>,
    pipeline: PipelineSettings,
    user_name: Option<String>,
    without_model: bool,
    lease: Option<LeaseSettings>,
    events: Option<Arc<EventBus>>,
    turns: Option<Arc<ActiveTurns>>,
    peers: Option<Arc<dyn PeerTurns>>,
    skills: Option<SkillFolders>,
    sub_agents: Option<(AgentFolders, usize)>,
    metering: Metering,
}

/// A built agent.
#[non_exhaustive]
pub struct Agent {
    /// The pipeline.
    pub service: ConversationService,
    /// The model the pipeline asks (every request recorded, checked against the
    /// budgets): also what answers MCP servers' sampling requests.
    pub model: Arc<dyn ChatModel>,
    /// The history builder (request building and the estimate).
    pub history: Arc<HistoryBuilder>,
    /// The tokenizer every count goes through.
    pub tokenizer: Arc<Tokenizer>,
    /// agent.json's `userName`, if set.
    pub user_name: Option<String>,
    /// The sandbox `ExecuteCommand` runs commands in (set with
    /// [`AgentAssembly::sandbox_helper`]).
    pub sandbox: Option<Arc<CommandSandbox>>,
    /// The skills offered to the model (an assembly from a home, or one given
    /// [`AgentAssembly::skills`]).
    pub skills: Option<Arc<SkillCatalog>>,
}

impl AgentAssembly {
    /// An agent on `store` talking to `chat`, with default settings, no tools, no task
    /// list and the compact skill at `.agents/sys.skills/compact/SKILL.md`.
    #[must_use]
    pub fn new(store: Arc<dyn Store>, chat: ChatEndpoint) -> Self {
        Self::with_parts(Some(store), Some(chat))
    }

    /// Defaults everywhere, `chat` as the chat model.
    fn with_parts(store: Option<Arc<dyn Store>>, chat: Option<ChatEndpoint>) -> Self {
        Self {
            store,
            chat,
            choices: Vec::new(),
            compaction: None,
            client: ClientSettings::default(),
            history: HistorySettings::default(),
            skill_path: PathBuf::from(".agents/sys.skills/compact/SKILL.md"),
            summary_max_tokens: crate::config::AgentSettings::DEFAULT_SUMMARY_MAX_TOKENS,
            tokenizer: None,
            tokenizer_name: ModelSettings::DEFAULT_TOKENIZER.to_owned(),
            warm_up: WarmUp::Now,
            home_tools: None,
            checkpointed: None,
            confirmer: Arc::new(DenyAll),
            gate: GateSettings::default(),
            hooks: None,
            home_hooks: None,
            tools: ToolRegistry::new(),
            pinned_tools: Vec::new(),
            task_store: None,
            plan: None,
            pipeline: PipelineSettings::default(),
            user_name: None,
            without_model: false,
            lease: None,
            events: None,
            turns: None,
            peers: None,
            sub_agents: None,
            skills: None,
            metering: Metering::default(),
        }
    }

    /// Where conversations are stored (required; [`AgentAssembly::new`] sets it).
    #[must_use]
    pub fn store(mut self, store: Arc<dyn Store>) -> Self {
        self.store = Some(store);
        self
    }

    /// agent.json's `checkpoints` settings (the defaults for an assembly not made from
    /// a home).
    #[must_use]
    pub fn checkpoint_settings(&self) -> CheckpointSettings {
        self.home_tools
            .as_ref()
            .map(|home| home.checkpoints.clone())
            .unwrap_or_default()
    }

    /// Whether a chat model is configured or given ([`AgentAssembly::build`] needs one).
    #[must_use]
    pub fn has_endpoint(&self) -> bool {
        self.chat.is_some()
    }

    /// The name of the chat model sent to its endpoint, if one is configured (the
    /// default of the models a conversation may choose).
    #[must_use]
    pub fn chat_model(&self) -> Option<&str> {
        self.chat.as_ref().map(|chat| chat.model.as_str())
    }

    /// The chat model (replaces the one from models.json or the environment).
    #[must_use]
    pub fn endpoint(mut self, chat: ChatEndpoint) -> Self {
        self.chat = Some(chat);
        self
    }

    /// The models a conversation may choose (a model picker offers them); the first
    /// is the default and becomes the chat model, with its context window. Empty: no
    /// choice (the default of [`AgentAssembly::new`]).
    #[must_use]
    pub fn choices(mut self, choices: Vec<NamedEndpoint>) -> Self {
        if let Some(first) = choices.first() {
            self.chat = Some(first.endpoint.clone());
            self.history.context_window = first.context_window;
        }
        self.choices = choices;
        self
    }

    /// Summaries go to this model, whose context window is `context_window`.
    #[must_use]
    pub fn compaction(mut self, endpoint: ChatEndpoint, context_window: u64) -> Self {
        self.compaction = Some((endpoint, context_window));
        self
    }

    /// Builds even when no chat model is configured: model calls then fail, saying how
    /// to configure one. For storage-only work (deleting a conversation) that must not
    /// need an endpoint.
    #[must_use]
    pub fn without_model(mut self) -> Self {
        self.without_model = true;
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

    /// The longest compression summary in tokens (agent.json's `summaryMaxTokens`;
    /// default 500).
    #[must_use]
    pub fn summary_max_tokens(mut self, tokens: u32) -> Self {
        self.summary_max_tokens = tokens;
        self
    }

    /// The tokenizer (default: the one models.json names, else `o200k_base`).
    #[must_use]
    pub fn tokenizer(mut self, tokenizer: Arc<Tokenizer>) -> Self {
        self.tokenizer = Some(tokenizer);
        self
    }

    /// When the tokenizer's encoder is built (default: [`WarmUp::Now`]).
    #[must_use]
    pub fn warm_up(mut self, warm_up: WarmUp) -> Self {
        self.warm_up = warm_up;
        self
    }

    /// The folder the built-in file and shell tools of [`AgentAssembly::from_home`]
    /// work in, instead of `<home>/workspace` (a web user's own folder, for instance);
    /// the home's hooks run there too. Created when missing. No effect on an assembly
    /// without the home's tools and hooks.
    #[must_use]
    pub fn workspace(mut self, dir: PathBuf) -> Self {
        self.home_hooks = self
            .home_hooks
            .take()
            .map(|hooks| hooks.in_workspace(dir.clone()));
        if let Some(tools) = self.home_tools.as_mut() {
            tools.workspace = dir;
        }
        self
    }

    /// Keeps checkpoints of the workspace at `dir` — each turn's changes to its files
    /// listed and rewindable — for an assembly whose tools are given rather than the
    /// home's ([`AgentAssembly::from_home`] keeps them of its workspace already).
    #[must_use]
    pub fn checkpoints(mut self, dir: PathBuf) -> Self {
        self.checkpointed = Some(dir);
        self
    }

    /// Offers the skills of `folders`: listed in the system prompt, loaded with
    /// `ReadSkill`, written with `GenerateSkill`, readable (never writable) by sandboxed
    /// commands. [`AgentAssembly::from_home`] sets `<home>/skills` and
    /// `<home>/sys.skills`.
    #[must_use]
    pub fn skills(mut self, folders: SkillFolders) -> Self {
        self.skills = Some(folders);
        self
    }

    /// A user's own skills folder on top of the shared one (multi-user `serve`:
    /// `<home>/users/<name>/skills`, outside the user's workspace); `GenerateSkill`
    /// writes there. No effect without skills.
    #[must_use]
    pub fn user_skills(mut self, dir: PathBuf) -> Self {
        if let Some(folders) = self.skills.as_mut() {
            folders.user = Some(dir);
        }
        self
    }

    /// Runs `ExecuteCommand` in terminal.json's sandbox through `helper`: a binary
    /// whose `main` first calls [`smallebot_sandbox::run_helper_if_requested`] (a host
    /// passes its own path, `std::env::current_exe()`). Without it, commands run
    /// unconfined and unlimited. Only for assemblies made by
    /// [`AgentAssembly::from_home`].
    #[must_use]
    pub fn sandbox_helper(mut self, helper: PathBuf) -> Self {
        if let Some(home_tools) = &mut self.home_tools {
            home_tools.sandbox_helper = Some(helper);
        }
        self
    }

    /// The event bus to emit on, shared with other services (default: the service's
    /// own). A server gives every user's service one bus, relayed to its peers.
    #[must_use]
    pub fn events(mut self, bus: Arc<EventBus>) -> Self {
        self.events = Some(bus);
        self
    }

    /// The registry of turns running in this process, shared with its other services
    /// (default: the service's own). A server gives every user's service one, so a
    /// peer's request to cancel a turn finds it.
    #[must_use]
    pub fn turns(mut self, turns: Arc<ActiveTurns>) -> Self {
        self.turns = Some(turns);
        self
    }

    /// The other processes on the same database, asked to cancel a turn one of them
    /// runs (default: none, cancel reaches this process only).
    #[must_use]
    pub fn peers(mut self, peers: Arc<dyn PeerTurns>) -> Self {
        self.peers = Some(peers);
        self
    }

    /// Things to tell the person once per conversation, as `Warning` events at its
    /// first turn (an MCP server that did not start, say).
    #[must_use]
    pub fn notices(mut self, notices: Vec<String>) -> Self {
        self.pipeline.notices = notices;
        self
    }

    /// More tools; a tool with the name of a built-in one replaces it. Their calls
    /// pass the assembly's permission gate ([`AgentAssembly::permissions`], asking
    /// [`AgentAssembly::confirmer`]), not one set on the registry given.
    #[must_use]
    pub fn tools(mut self, tools: ToolRegistry) -> Self {
        self.tools = tools;
        self
    }

    /// Keeps the conversations' task lists in `store`: adds the six task tools and the
    /// plan (re-injected into the prompt, recording tool calls on the task in progress).
    #[must_use]
    pub fn task_store(mut self, store: Arc<dyn TaskStore>) -> Self {
        self.task_store = Some(store);
        self
    }

    /// A plan of your own instead of the one over the task store.
    #[must_use]
    pub fn plan(mut self, plan: Arc<dyn TaskPlan>) -> Self {
        self.plan = Some(plan);
        self
    }

    /// Who owns the turns this agent runs and how leases are kept (default: this
    /// process, checked with
    /// [`LocalProcesses`](crate::processes::LocalProcesses), default timings).
    #[must_use]
    pub fn lease(mut self, lease: LeaseSettings) -> Self {
        self.lease = Some(lease);
        self
    }

    /// Pipeline behaviour (tool steps, compression threshold, …).
    #[must_use]
    pub fn pipeline(mut self, settings: PipelineSettings) -> Self {
        self.pipeline = settings;
        self
    }
}
