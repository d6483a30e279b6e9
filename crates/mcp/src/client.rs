//! The client side of an MCP connection: the connected client's type, the tools a server
//! last listed, and the handler that re-lists them when the server says they changed.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::service::{NotificationContext, RoleClient, RunningService};

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

/// The client side's handler: re-lists the tools when the server announces a change.
pub(crate) struct ListWatcher {
    list: Arc<ToolList>,
}

impl ListWatcher {
    /// A handler keeping `list` current.
    pub(crate) fn new(list: Arc<ToolList>) -> Self {
        Self { list }
    }
}

impl rmcp::ClientHandler for ListWatcher {
    async fn on_tool_list_changed(&self, context: NotificationContext<RoleClient>) {
        let list = Arc::clone(&self.list);
        // Not inline: the handler must not wait on a request of its own connection.
        tokio::spawn(async move {
            match context.peer.list_all_tools().await {
                Ok(tools) => list.set(tools),
                Err(error) => {
                    tracing::warn!(%error, "could not list an MCP server's changed tools")
                }
            }
        });
    }
}
