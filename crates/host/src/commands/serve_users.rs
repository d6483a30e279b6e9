//! What `serve` needs for users: token lookup in the store, and one conversation
//! service per user whose file and shell tools work in `<home>/workspace/users/<name>`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use smallebot_agent::assembly::{AgentAssembly, Home, WarmUp};
use smallebot_agent::tokenizer::Tokenizer;
use smallebot_application::ConversationService;
use smallebot_application::ports::CommandConfirmer;
use smallebot_confined::{Links, Root};
use smallebot_core::RepositoryError;
use smallebot_web::auth::{TokenUsers, UserServices};
use tokio::sync::Mutex;

use crate::database::Database;

/// The store's users, for signing in.
pub struct StoreUsers(pub Database);

#[async_trait]
impl TokenUsers for StoreUsers {
    async fn user_for_digest(&self, digest: &str) -> Result<Option<String>, RepositoryError> {
        self.0.user_by_token_sha256(digest).await
    }

    async fn is_admin(&self, user: &str) -> Result<bool, RepositoryError> {
        Ok(self.0.user_account(user).await?.is_some_and(|a| a.admin))
    }
}

/// Builds each user's service on first use, from the home's configuration, on the
/// shared store, task lists, confirmer and tokenizer.
pub struct PerUserServices {
    /// The home directory.
    pub home: Home,
    /// The shared database.
    pub store: Database,
    /// Asks on the page.
    pub confirmer: Arc<dyn CommandConfirmer>,
    /// The shared tokenizer.
    pub tokenizer: Arc<Tokenizer>,
    /// The link to the other processes every user's service is wired to (PostgreSQL).
    pub peers: Option<Arc<smallebot_peers::PeerLink>>,
    /// The MCP servers: each user's view (their own per-user servers).
    pub mcp: Arc<smallebot_mcp::McpUsers>,
    /// The process's metrics, shown every user's events.
    pub metrics: Arc<smallebot_telemetry::Metrics>,
    /// The users' own monthly budgets (shared by every user's service).
    pub budget_overrides: Arc<dyn smallebot_application::metering::BudgetOverrides>,
    /// The services built so far.
    pub built: Mutex<HashMap<String, Arc<ConversationService>>>,
}

#[async_trait]
impl UserServices for PerUserServices {
    async fn service_for(&self, user: &str) -> Result<Arc<ConversationService>, String> {
        // Names come from `users add` (checked there); never let one leave the folder.
        if user.is_empty() || user.starts_with('.') || user.contains(['/', '\\']) {
            return Err(format!("'{user}' cannot name a workspace folder"));
        }
        let mut built = self.built.lock().await;
        if let Some(service) = built.get(user) {
            return Ok(Arc::clone(service));
        }
        let workspace = user_workspace(&self.home, user)?;
        let mcp = self.mcp.servers_of(user).await;
        let assembly = AgentAssembly::from_home(self.home.root()).map_err(|e| e.to_string())?;
        let assembly = match &self.peers {
            Some(link) => crate::wiring::wire_to_peers(assembly, link),
            None => assembly,
        };
        let agent = crate::wiring::with_sandbox(assembly)
            .store(self.store.store())
            .task_store(self.store.task_store(&self.home))
            .confirmer(Arc::clone(&self.confirmer))
            .tokenizer(Arc::clone(&self.tokenizer))
            .tools(crate::wiring::mcp_registry(&mcp))
            .notices(mcp.warnings().to_vec())
            .warm_up(WarmUp::Background)
            .workspace(workspace)
            .user_skills(self.home.user_skills_dir(user))
            .user_agents(self.home.user_agents_dir(user))
            .budget_overrides(Arc::clone(&self.budget_overrides))
            .usage_observer(Arc::clone(&self.metrics) as _)
            .build()
            .map_err(|e| e.to_string())?;
        let service = Arc::new(agent.service);
        service.observe_events(Arc::clone(&self.metrics) as _);
        built.insert(user.to_owned(), Arc::clone(&service));
        Ok(service)
    }
}

/// Makes `<home>/workspace/users/<user>` beneath the workspace folder, one folder at a
/// time and through no link (a command run in the single-user workspace could have
/// made `users` a link to anywhere), and returns it.
fn user_workspace(home: &Home, user: &str) -> Result<PathBuf, String> {
    let base = home.workspace_dir();
    Root::create(&base, Links::Refuse)
        .and_then(|root| root.create_dirs(format!("users/{user}")))
        .map_err(|e| format!("could not prepare the workspace folder of '{user}': {e}"))?;
    Ok(base.join("users").join(user))
}
