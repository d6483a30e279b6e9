//! The page's MCP servers dialog and Connect buttons, in headless Chromium: the dialog
//! lists the user's servers with where they stand and a Connect button for those they
//! sign in to; Connect asks the server for the authorization URL (coming back to
//! `/api/mcp/callback`) and opens it in a new tab; a tool card whose call failed because
//! its server is not connected offers Connect too. Screenshots desktop and phone, light
//! and dark.

use crate::browser_support;
use crate::common;

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use browser_support::{Chromium, click, eval, open_page, screenshots_in_each_scheme, send};
use browser_support::{set_viewport, wait_for};
use common::Server;
use serde_json::json;
use smallebot_agent::tools::{Args, Tool, ToolRegistry};
use smallebot_application::ports::{
    McpConnectError, ToolContext, ToolOutcome, ToolSchema, ToolTraits, UserMcpServers,
};
use smallebot_protocol::api::{McpConnection, McpServerList, McpServerRow};
use smallebot_testkit::{ScriptedResponse, ToolCallSpec};

/// The user's servers: `tracker` (their own, not connected) and `files` (shared); each
/// connect recorded as (user, server, redirect URI).
#[derive(Default)]
struct Servers {
    connects: Mutex<Vec<(String, String, String)>>,
}

#[async_trait]
impl UserMcpServers for Servers {
    async fn servers(&self, _user: &str) -> McpServerList {
        let row = |name: &str, per_user, state, tools| McpServerRow {
            name: name.to_owned(),
            per_user,
            sign_in: per_user,
            state,
            tools,
        };
        McpServerList {
            servers: vec![
                row("tracker", true, McpConnection::NotConnected, 0),
                row("files", false, McpConnection::Connected, 4),
            ],
        }
    }

    async fn connect(
        &self,
        user: &str,
        server: &str,
        redirect_uri: &str,
        _browser: &str,
    ) -> Result<String, McpConnectError> {
        self.connects.lock().unwrap().push((
            user.to_owned(),
            server.to_owned(),
            redirect_uri.to_owned(),
        ));
        Ok("about:blank#authorize".to_owned())
    }

    async fn finish(
        &self,
        _state: &str,
        _code: &str,
        _browser: Option<&str>,
    ) -> Result<(String, String), McpConnectError> {
        Err(McpConnectError::UnknownState)
    }
}

/// `tracker__search` as a user who has not connected `tracker` gets it.
struct NotConnected;

#[async_trait]
impl Tool for NotConnected {
    fn name(&self) -> &str {
        "tracker__search"
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits::READ_ONLY
    }

    fn schema(&self) -> ToolSchema {
        ToolSchema {
            name: self.name().into(),
            description: "Searches the tracker.".into(),
            parameters: json!({"type": "object", "properties": {"q": {"type": "string"}}}),
        }
    }

    async fn call(&self, _args: &Args, _ctx: &ToolContext) -> ToolOutcome {
        ToolOutcome::error(
            "Error: the MCP server 'tracker' is connected by each user with their own \
             account, and you have not connected it (or your sign-in ended): connect first",
        )
    }
}

#[tokio::test]
async fn the_dialog_and_a_failed_card_offer_connect() {
    let Some(browser) = Chromium::start("mcp dialog").await else {
        return;
    };
    let servers = Arc::new(Servers::default());
    let web = Arc::clone(&servers);
    let s = Server::start_custom(
        |agent| agent.tools(ToolRegistry::new().with(Arc::new(NotConnected))),
        move |state| state.mcp(web),
    )
    .await;
    s.model.push_all([
        ScriptedResponse::tool_calls([ToolCallSpec::new(
            "t1",
            "tracker__search",
            json!({"q": "open bugs"}).to_string(),
        )]),
        ScriptedResponse::text("Connect the tracker first."),
    ]);
    let page = open_page(&s, &browser).await;

    click(&page, "#mcp-open").await;
    wait_for(
        &page,
        "document.querySelectorAll('#mcp-list .mcp-server').length === 2",
    )
    .await;
    let shown = eval(
        &page,
        "[...document.querySelectorAll('#mcp-list .mcp-server')].map(e => \
         [...e.children].map(c => c.textContent))",
    )
    .await;
    assert_eq!(
        shown,
        json!([
            [
                "tracker",
                "Not connected · your own account · 0 tools",
                "Connect"
            ],
            ["files", "Connected · shared · 4 tools"]
        ])
    );
    screenshots_in_each_scheme(&page, "mcp").await;
    let fits = eval(
        &page,
        "(() => { const d = document.getElementById('mcp-dialog').getBoundingClientRect(); \
         const b = document.querySelector('#mcp-list .mcp-connect').getBoundingClientRect(); \
         return d.left >= 0 && d.right <= innerWidth && b.right <= d.right; })()",
    )
    .await;
    assert_eq!(fits, true);
    set_viewport(&page, 1280, 800).await;
    // The new tab, as the page sees it (a real one would leave the driver's page).
    eval(
        &page,
        "(window.open = () => (window.openedTab = { opener: window, location: { href: '' }, \
         close() {} }), true)",
    )
    .await;
    click(&page, "#mcp-list .mcp-connect").await;
    wait_for(
        &page,
        "document.getElementById('mcp-status').textContent.startsWith('Sign in to tracker in the new tab')",
    )
    .await;
    assert_eq!(
        eval(
            &page,
            "[window.openedTab.location.href, window.openedTab.opener]"
        )
        .await,
        json!(["about:blank#authorize", null])
    );
    {
        let connects = servers.connects.lock().unwrap();
        assert_eq!(connects.len(), 1);
        assert_eq!(connects[0].1, "tracker");
        assert!(
            connects[0].2.ends_with("/api/mcp/callback") && connects[0].2.starts_with("http://"),
            "{connects:?}"
        );
    }
    click(&page, "#mcp-close").await;

    send(&page, "find the open bugs").await;
    let card = "document.querySelector('[data-call-id=\"t1\"]')";
    wait_for(
        &page,
        &format!("{card}?.classList.contains('error') && !!{card}.querySelector('.mcp-connect')"),
    )
    .await;
    eval(&page, "(window.openedTab = null, true)").await;
    click(&page, "[data-call-id=\"t1\"] .mcp-connect").await;
    wait_for(
        &page,
        &format!("{card}.querySelector('.mcp-connect-status').textContent.startsWith('Sign in to tracker')"),
    )
    .await;
    assert_eq!(servers.connects.lock().unwrap().len(), 2);
    assert_eq!(
        eval(&page, "window.openedTab.location.href").await,
        "about:blank#authorize"
    );
    browser.close().await;
}
