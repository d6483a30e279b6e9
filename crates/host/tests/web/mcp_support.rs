//! The testkit's MCP server (resources `note://readme` and `file:///pixel.png`, the
//! template `note://{name}`, the prompt `review`) over streamable HTTP, behind a real
//! [`McpUsers`] as `smallebot serve` wires it, for the web tests.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use crate::common::Server;
use smallebot_application::PipelineSettings;
use smallebot_core::rules::attachment::AttachmentLimits;
use smallebot_infrastructure::SqliteStore;
use smallebot_mcp::{
    McpAuth, McpServerSettings, McpServers, McpSettings, McpSignIns, McpTransport, McpUsers,
};
use tokio_util::sync::{CancellationToken, DropGuard};

/// What keeps the MCP server running while a test uses it.
pub struct McpRunning {
    _stop: DropGuard,
    _dir: tempfile::TempDir,
}

/// The testkit's MCP server as `t`, the web's view of it, and what keeps it running.
pub async fn testkit_users() -> (Arc<McpUsers>, McpRunning) {
    let cancel = CancellationToken::new();
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
        tool_timeout: Duration::from_secs(30),
        confirm: Some(false),
        max_message_bytes: 1024 * 1024,
        elicitation_timeout: Duration::from_secs(30),
        sampling: false,
    };
    let settings = McpSettings {
        servers: vec![server],
    };
    let servers = McpServers::start(&settings, None).await.unwrap();
    assert!(servers.warnings().is_empty(), "{:?}", servers.warnings());
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("mcp.db")).await.unwrap();
    let sign_ins = McpSignIns::new(Arc::new(store), None, "alice");
    let users = Arc::new(McpUsers::new(Arc::new(servers), sign_ins, false));
    let running = McpRunning {
        _stop: cancel.drop_guard(),
        _dir: dir,
    };
    (users, running)
}

/// A web server with these attachment limits whose MCP servers are the testkit's.
pub async fn server_with_mcp(limits: AttachmentLimits) -> (Server, McpRunning) {
    let (users, running) = testkit_users().await;
    let server = Server::start_custom(
        |agent| {
            agent.pipeline(PipelineSettings {
                attachments: limits,
                ..PipelineSettings::default()
            })
        },
        move |web| web.mcp(Arc::clone(&users) as _).mcp_offers(users as _),
    )
    .await;
    (server, running)
}
