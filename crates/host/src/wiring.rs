//! The composition root: the store and the task store chosen here, the confirmer given
//! by the command (the REPL's, the web page's, standard input's for `run`), the rest
//! assembled from the home directory by [`AgentAssembly::from_home`].

use std::sync::Arc;

use smallebot_agent::assembly::{AgentAssembly, Home, WarmUp};
use smallebot_agent::config::load_mcp_settings;
use smallebot_agent::processes::LocalProcesses;
use smallebot_agent::tools::{McpToolSource, ToolRegistry};
use smallebot_application::ConversationService;
use smallebot_application::metering::{BudgetOverrides, UsageObserver};
use smallebot_application::ports::{CommandConfirmer, ProcessProbe};
use smallebot_mcp::{McpServers, McpSignIns};
use smallebot_peers::PeerLink;
use smallebot_sandbox::CommandSandbox;

use crate::database::Database;
use crate::error::HostError;

/// Everything a conversation command needs.
pub struct App {
    /// The pipeline.
    pub service: Arc<ConversationService>,
    /// The database (closed on exit).
    pub store: Database,
    /// The person conversations belong to.
    pub user: String,
    /// The tokenizer (shared with more services built later, such as web users').
    pub tokenizer: Arc<smallebot_agent::tokenizer::Tokenizer>,
    /// The sandbox commands run in (absent only when this binary's path is unknown).
    pub sandbox: Option<Arc<CommandSandbox>>,
    /// The MCP servers of mcp.json and their tools.
    pub mcp: Arc<McpServers>,
    /// The name of the default chat model (empty for work that needs no model).
    pub model: String,
    /// The link to the other processes on a PostgreSQL database — the relayed event
    /// bus, the registry of turns running here, the peers asked to cancel a turn
    /// (`None` on SQLite: the service has a bus and registry of its own). Services
    /// built later (web users') are wired to it too.
    pub peers: Option<Arc<PeerLink>>,
    /// The skills the model is offered (for `/skills`).
    pub skills: Option<Arc<smallebot_agent::skills::SkillCatalog>>,
    /// The users' own monthly budgets, read from the store (every assembly built for
    /// this store meters with them, web users' too).
    pub budget_overrides: Arc<dyn BudgetOverrides>,
    /// The model the service asks (metered): also what answers MCP servers' sampling.
    pub chat: Arc<dyn smallebot_application::ports::ChatModel>,
}

impl App {
    /// Ends what this process started, in order: the MCP servers (each one's whole
    /// process group), then the link's background task is stopped and awaited and its
    /// queue sent, then every connection of the store is closed (a pool closed under a
    /// running listener would leave it retrying forever). Tasks a command spawned itself
    /// (a server's sweep) are stopped and awaited before this.
    pub async fn close(&self) {
        self.mcp.shutdown().await;
        if let Some(peers) = &self.peers {
            peers.close().await;
        }
        self.store.close().await;
    }
}

/// Starts the servers of `<home>/mcp.json` (none without the file), OAuth ones with
/// `sign_ins` (else later, [`McpServers::use_sign_ins`]); failures in `warnings`.
///
/// # Errors
/// An invalid mcp.json, or tools whose names clash.
pub async fn start_mcp(
    home: &Home,
    sign_ins: Option<&McpSignIns>,
) -> Result<McpServers, HostError> {
    let settings = load_mcp_settings(home.root(), &|key| std::env::var(key).ok())?;
    if settings.servers.is_empty() {
        return Ok(McpServers::none());
    }
    let sign_ins = sign_ins.cloned();
    Ok(McpServers::start_signed_in(&settings, sandbox_helper(), sign_ins).await?)
}

/// The MCP tools as a registry to add to an assembly (following the servers' lists).
pub fn mcp_registry(mcp: &Arc<McpServers>) -> ToolRegistry {
    ToolRegistry::new().with_source(McpToolSource::new(Arc::clone(mcp)))
}

/// This binary, whose helper mode (`main` dispatches it first) runs commands in the
/// sandbox; `None` when the system cannot say where it is.
pub fn sandbox_helper() -> Option<std::path::PathBuf> {
    std::env::current_exe().ok()
}

/// Gives `assembly` this binary as the sandbox helper.
pub fn with_sandbox(assembly: AgentAssembly) -> AgentAssembly {
    match sandbox_helper() {
        Some(helper) => assembly.sandbox_helper(helper),
        None => {
            errln!(
                "warning: cannot find this program's own path, so commands run without the \
                 sandbox and its limits"
            );
            assembly
        }
    }
}

/// The user name: `--user`, else agent.json's `userName`, else `$USER`, else "local".
pub fn user_name(flag: Option<&str>, configured: Option<&str>) -> String {
    flag.or(configured)
        .map(str::to_owned)
        .or_else(|| std::env::var("USER").ok())
        .filter(|u| !u.trim().is_empty())
        .unwrap_or_else(|| "local".to_owned())
}

/// Loads configuration, opens the store and builds the pipeline, with `confirmer`
/// asking the person before a tool call the permission rules ask about (agent.json's
/// `permissions`, terminal.json's `requireCommandConfirmation`); the tokenizer's encoder is built as `warm_up` says
/// (never on the way to the first request).
pub async fn build(
    home: &Home,
    user_flag: Option<&str>,
    confirmer: Arc<dyn CommandConfirmer>,
    warm_up: WarmUp,
) -> Result<App, HostError> {
    build_with(home, user_flag, confirmer, warm_up, None, false).await
}

/// As [`build`], every usage record also shown to `observer` (`serve`'s metrics); with
/// `users_sign_in` (a `serve` beyond loopback) `perUser` MCP servers are not connected
/// with the operator's sign-in — each user connects their own.
pub async fn build_observed(
    home: &Home,
    user_flag: Option<&str>,
    confirmer: Arc<dyn CommandConfirmer>,
    warm_up: WarmUp,
    observer: Arc<dyn UsageObserver>,
    users_sign_in: bool,
) -> Result<App, HostError> {
    build_with(
        home,
        user_flag,
        confirmer,
        warm_up,
        Some(observer),
        users_sign_in,
    )
    .await
}

async fn build_with(
    home: &Home,
    user_flag: Option<&str>,
    confirmer: Arc<dyn CommandConfirmer>,
    warm_up: WarmUp,
    observer: Option<Arc<dyn UsageObserver>>,
    users_sign_in: bool,
) -> Result<App, HostError> {
    // Configuration first: an invalid file or a missing endpoint is reported before
    // the database is touched.
    let assembly = AgentAssembly::from_home(home.root())?;
    if !assembly.has_endpoint() {
        return Err(HostError::NoEndpoint);
    }
    let model = assembly.chat_model().unwrap_or_default().to_owned();
    let retention = assembly.checkpoint_settings().retention;
    let mcp = Arc::new(start_mcp(home, None).await?);
    // Servers that did not start: said at each conversation's first turn (chat, run,
    // the web page alike).
    let assembly = with_sandbox(assembly.confirmer(confirmer))
        .tools(mcp_registry(&mcp))
        .notices(mcp.warnings().to_vec());
    let assembly = match observer {
        Some(observer) => assembly.usage_observer(observer),
        None => assembly,
    };
    let mut app = assemble(home, user_flag, assembly.warm_up(warm_up)).await?;
    let sign_ins = McpSignIns::from_env(app.store.store(), &app.user, &|k| std::env::var(k).ok());
    for warning in mcp.use_sign_ins(&sign_ins, !users_sign_in).await {
        errln!("warning: {warning}");
    }
    // Servers with `"sampling": true` get completions from the conversation's model.
    mcp.set_sampler(Arc::clone(&app.chat));
    app.mcp = mcp;
    app.model = model;
    if let Err(error) = recover(&app).await {
        app.close().await;
        return Err(error);
    }
    // Retention at start (and after turns, at most hourly): docs/operating.md.
    smallebot_checkpoints::prune_logged(app.store.store().as_ref(), retention, "at start").await;
    Ok(app)
}

/// Marks turns whose process stopped `interrupted` (turns other live processes run are
/// left alone; their unfinished tool calls end `interrupted` too) and says so; removes
/// the temporary folders and control groups their commands left behind.
pub async fn recover(app: &App) -> Result<(), HostError> {
    // Nothing to say: what is found is removed.
    smallebot_sandbox::sweep_leftovers(|pid| LocalProcesses.exists(pid));
    let interrupted = app.service.recover_interrupted_turns().await?;
    if interrupted > 0 {
        errln!(
            "{interrupted} turn(s) were interrupted when the process running them stopped; they are marked interrupted"
        );
    }
    Ok(())
}

/// The service for work that needs no model (deleting a conversation): configuration
/// is still read and checked, but no endpoint is needed.
pub async fn build_without_model(home: &Home) -> Result<App, HostError> {
    let assembly = AgentAssembly::from_home(home.root())?
        .without_model()
        .warm_up(WarmUp::Background);
    assemble(home, None, assembly).await
}

/// Opens the store and finishes `assembly` on it.
async fn assemble(
    home: &Home,
    user_flag: Option<&str>,
    assembly: AgentAssembly,
) -> Result<App, HostError> {
    let store = Database::open(home).await?;
    let peers = match &store {
        Database::Postgres(pg) => match PeerLink::start(pg).await {
            Ok(link) => Some(Arc::new(link)),
            Err(error) => {
                store.close().await;
                return Err(error.into());
            }
        },
        Database::Sqlite(_) => None,
    };
    let assembly = match &peers {
        Some(link) => wire_to_peers(assembly, link),
        None => assembly,
    };
    let budget_overrides: Arc<dyn BudgetOverrides> = Arc::new(
        smallebot_application::metering::StoreBudgets::new(store.clone()),
    );
    let agent = assembly
        .store(store.store())
        .task_store(store.task_store(home))
        .budget_overrides(Arc::clone(&budget_overrides))
        .build();
    let agent = match agent {
        Ok(agent) => agent,
        Err(error) => {
            if let Some(link) = &peers {
                link.close().await;
            }
            store.close().await;
            return Err(error.into());
        }
    };
    let service = agent.service;
    let chat = agent.model;
    let user = user_name(user_flag, agent.user_name.as_deref());
    Ok(App {
        service: Arc::new(service),
        store,
        user,
        tokenizer: agent.tokenizer,
        sandbox: agent.sandbox,
        mcp: Arc::new(McpServers::none()),
        model: String::new(),
        peers,
        skills: agent.skills,
        budget_overrides,
        chat,
    })
}

/// `assembly` with the process's shared bus, turn registry and peers.
pub fn wire_to_peers(assembly: AgentAssembly, link: &PeerLink) -> AgentAssembly {
    assembly
        .events(link.bus())
        .turns(link.turns())
        .peers(link.peers())
}
