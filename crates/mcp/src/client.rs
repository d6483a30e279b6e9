//! The client side of an MCP connection: the connected client's type, the tools a server
//! last listed, and the handler that re-lists them when the server says they changed,
//! asks the person the server's questions (elicitation) and answers its sampling
//! requests with the conversation's model when enabled (refused otherwise).
//!
//! The elicitation capability is always declared: one connection serves every front
//! end (a `serve` answers in the web app, `run` has nobody to ask), and whether someone
//! can answer is known per call; where nobody can, the question is declined at once.
//! Sampling is declared only for a server with `"sampling": true`.
// Sampling is deprecated by the spec (SEP-2577) and still what servers send.
#![allow(deprecated)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::ErrorData as McpError;
use rmcp::model::{
    ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, ElicitationCapability, FormElicitationCapability,
    Implementation, SamplingCapability,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient, RunningService};

use super::asking::{Answerers, Asking};
use super::{elicit, sampling};

/// A connected client.
pub(crate) type Client = RunningService<RoleClient, ListWatcher>;

/// A server's tools as last listed, and the counter that moves when any server's list
/// changes (shared by all the servers of one [`super::McpServers`]).
#[derive(Default)]
pub(crate) struct ToolList {
    tools: Mutex<Vec<rmcp::model::Tool>>,
    generation: Arc<AtomicU64>,
}

impl ToolList {
    /// An empty list counting changes on `generation`.
    pub(crate) fn new(generation: Arc<AtomicU64>) -> Self {
        Self {
            tools: Mutex::default(),
            generation,
        }
    }

    /// The tools as last listed.
    pub(crate) fn get(&self) -> Vec<rmcp::model::Tool> {
        self.tools
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Replaces the list and counts a change.
    pub(crate) fn set(&self, tools: Vec<rmcp::model::Tool>) {
        *self.tools.lock().unwrap_or_else(PoisonError::into_inner) = tools;
        self.generation.fetch_add(1, Ordering::SeqCst);
    }
}

/// What the handler needs to answer a server's requests.
pub(crate) struct Answering {
    /// The server's name.
    pub(crate) server: String,
    /// The calls running on it.
    pub(crate) asking: Arc<Asking>,
    /// Who asks the person.
    pub(crate) answerers: Arc<Answerers>,
    /// How long the person has to answer.
    pub(crate) elicitation_timeout: std::time::Duration,
    /// Whether sampling is enabled for it.
    pub(crate) sampling: bool,
}

/// The client side's handler: re-lists the tools when the server announces a change,
/// answers its questions and its sampling requests.
pub(crate) struct ListWatcher {
    list: Arc<ToolList>,
    answering: Answering,
}

impl ListWatcher {
    /// A handler keeping `list` current and answering as `answering` says.
    pub(crate) fn new(list: Arc<ToolList>, answering: Answering) -> Self {
        Self { list, answering }
    }
}

impl rmcp::ClientHandler for ListWatcher {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        let mut elicitation = ElicitationCapability::new();
        elicitation.form = Some(FormElicitationCapability::default());
        capabilities.elicitation = Some(elicitation);
        if self.answering.sampling {
            capabilities.sampling = Some(SamplingCapability::default());
        }
        ClientConfig::new(
            capabilities,
            Implementation::new("smallebot", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, McpError> {
        let answering = &self.answering;
        let elicitor = answering.answerers.elicitor();
        elicit::answer(
            &answering.server,
            answering.elicitation_timeout,
            &answering.asking,
            elicitor.as_ref(),
            request,
        )
        .await
    }

    async fn create_message(
        &self,
        request: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, McpError> {
        let answering = &self.answering;
        sampling::answer(
            &answering.server,
            answering.sampling,
            answering.answerers.sampler(),
            &answering.asking,
            request,
        )
        .await
    }

    async fn on_tool_list_changed(&self, context: NotificationContext<RoleClient>) {
        let list = Arc::clone(&self.list);
        // Not inline: the handler must not wait on a request of its own connection.
        tokio::spawn(async move {
            match context.peer.list_all_tools().await {
                Ok(tools) => list.set(tools),
                // The connection ended meanwhile (a `smallebot mcp list` done, the host
                // stopping): there is no list left to keep current.
                Err(
                    error @ (rmcp::service::ServiceError::TransportClosed
                    | rmcp::service::ServiceError::Cancelled { .. }),
                ) => {
                    tracing::debug!(%error, "an MCP server's changed tools not listed: closed")
                }
                Err(error) => {
                    tracing::warn!(%error, "could not list an MCP server's changed tools")
                }
            }
        });
    }
}
