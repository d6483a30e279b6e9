//! Per-user MCP servers on a shared `serve` (mcp.json `"perUser": true`), through the
//! real binary, the testkit model and the testkit's MCP server with its own
//! authorization server: two users connect the same server with different accounts
//! from the page's API (the authorization URL, the redirect back to the serve), each
//! tool call carries the caller's own token and never the other's, a user not
//! connected is told to connect first, and `users remove` revokes the user's tokens. A
//! sign-in link followed in a browser other than the one that pressed Connect is refused.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;
mod sandbox_support;

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use smallebot_testkit::mcp_oauth::OAuthMcpServer;
use smallebot_testkit::{ScriptedResponse, TestModel, ToolCallSpec};

/// A key for SMALLEBOT_MCP_TOKEN_KEY (32 bytes of 7, base64).
const KEY: &str = "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=";

fn smallebot(home: &Path, model: &TestModel) -> tokio::process::Command {
    let mut command = cli::smallebot(home, Some(&model.base_url()));
    command.env("SMALLEBOT_MCP_TOKEN_KEY", KEY);
    command
}

/// Adds the user `name`; their token.
async fn add_user(home: &Path, model: &TestModel, name: &str) -> String {
    let out = smallebot(home, model)
        .args(["users", "add", name])
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{}", cli::text(&out.stderr));
    cli::text(&out.stdout).trim().to_owned()
}

/// The model: a message `call: TEXT` gets a call of `remote__echo` with TEXT (its id
/// the text's, so each turn's result is found), a tool result gets "done".
fn script(model: &TestModel) {
    model.respond_with(|request| {
        let messages = request.messages();
        let Some(last) = messages.last() else {
            return ScriptedResponse::text("A title");
        };
        if !request.body["tools"].is_array() {
            return ScriptedResponse::text("A title");
        }
        if last["role"] == "tool" {
            return ScriptedResponse::text("done");
        }
        let text = last["content"].as_str().unwrap_or_default().to_owned();
        let said = text.strip_prefix("call: ").unwrap_or(&text).to_owned();
        ScriptedResponse::tool_calls([ToolCallSpec::new(
            said.replace(' ', "-"),
            "remote__echo",
            json!({ "text": said }).to_string(),
        )])
    });
}

/// The serve under test.
struct Serve {
    base: String,
    http: reqwest::Client,
}

impl Serve {
    async fn get(&self, path: &str, token: &str) -> Value {
        let answer = self
            .http
            .get(format!("{}{path}", self.base))
            .bearer_auth(token)
            .send()
            .await
            .unwrap();
        answer.json().await.unwrap()
    }

    /// `remote` as `token`'s user sees it.
    async fn remote(&self, token: &str) -> Value {
        let list = self.get("/api/mcp/servers", token).await;
        list["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == "remote")
            .cloned()
            .unwrap_or_else(|| panic!("no remote in {list}"))
    }

    /// Starts connecting `remote` for `token`'s user: the authorization URL, and the
    /// cookie the browser that asked was given.
    async fn start_connect(&self, token: &str) -> (String, String) {
        let answer = self
            .http
            .post(format!("{}/api/mcp/servers/remote/connect", self.base))
            .bearer_auth(token)
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 200);
        let cookie = answer.headers()["set-cookie"].to_str().unwrap().to_owned();
        assert!(cookie.starts_with("smallebot_mcp_browser="), "{cookie}");
        assert!(
            cookie.contains("HttpOnly; SameSite=Lax; Path=/api/mcp/"),
            "{cookie}"
        );
        let cookie = cookie.split(';').next().unwrap().to_owned();
        let url: Value = answer.json().await.unwrap();
        let url = url["url"].as_str().unwrap().to_owned();
        assert!(url.contains("code_challenge_method=S256"), "{url}");
        assert!(url.contains("resource="), "{url}");
        (url, cookie)
    }

    /// Signs in to `account` at `url` as a browser holding `cookie` (or none) would:
    /// the authorize redirect, then the page back on the serve — its status and text.
    /// The same link followed again is refused: it was used.
    async fn sign_in(&self, url: &str, account: &str, cookie: Option<&str>) -> (u16, String) {
        // The browser carries no SmallEBot token: the state names the user.
        let browser = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let redirect = browser
            .get(format!("{url}&account={account}"))
            .send()
            .await
            .unwrap();
        assert_eq!(redirect.status(), 303);
        let back = redirect.headers()["location"].to_str().unwrap().to_owned();
        assert!(
            back.starts_with(&format!("{}/api/mcp/callback?", self.base)),
            "{back}"
        );
        let follow = || {
            let request = browser.get(&back);
            match cookie {
                Some(cookie) => request.header("cookie", cookie),
                None => request,
            }
        };
        let page = follow().send().await.unwrap();
        let status = page.status().as_u16();
        let text = page.text().await.unwrap();
        assert_eq!(follow().send().await.unwrap().status(), 400);
        (status, text)
    }

    /// Connects `remote` for `token`'s user, signing in to `account` in the browser
    /// that pressed Connect.
    async fn connect(&self, token: &str, account: &str) {
        let (url, cookie) = self.start_connect(token).await;
        let (status, page) = self.sign_in(&url, account, Some(&cookie)).await;
        assert_eq!(status, 200, "{page}");
        assert!(page.contains("you can close this tab"), "{page}");
    }

    /// A turn of `token`'s user sending `call: TEXT`; the tool's result as the model
    /// got it.
    async fn call(&self, model: &TestModel, token: &str, text: &str) -> String {
        let created: Value = self
            .http
            .post(format!("{}/api/conversations", self.base))
            .bearer_auth(token)
            .json(&json!({ "message": format!("call: {text}") }))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert!(created["turn_id"].is_string(), "{created}");
        let id = text.replace(' ', "-");
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let found = model
                .requests()
                .iter()
                .flat_map(|r| r.messages().to_vec())
                .find(|m| m["role"] == "tool" && m["tool_call_id"] == id.as_str());
            if let Some(message) = found {
                return message["content"].as_str().unwrap_or_default().to_owned();
            }
            assert!(Instant::now() < deadline, "no tool result for {text}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

#[tokio::test]
async fn two_users_connect_with_their_own_accounts_and_remove_revokes() {
    if !sandbox_support::landlock_or_skip() {
        return;
    }
    let server = OAuthMcpServer::start().await.unwrap();
    let model = TestModel::start().await.unwrap();
    script(&model);
    let home = tempfile::tempdir().unwrap();
    let config = json!({ "mcpServers": { "remote": {
        "url": server.url(), "auth": { "type": "oauth" }, "perUser": true } } });
    std::fs::write(home.path().join("mcp.json"), config.to_string()).unwrap();
    let ann = add_user(home.path(), &model, "ann").await;
    let bob = add_user(home.path(), &model, "bob").await;

    let mut command = smallebot(home.path(), &model);
    command.args(["serve", "--addr", "0.0.0.0:0", "--public-name", "127.0.0.1"]);
    let (mut child, _, base) = cli::start_serving(command).await;
    let serve = Serve {
        base,
        http: reqwest::Client::new(),
    };
    // Not connected at start: nothing was asked of the server for anyone.
    assert!(server.bearer_tokens().is_empty());
    let remote = serve.remote(&ann).await;
    assert_eq!(
        (&remote["per_user"], &remote["sign_in"], &remote["state"]),
        (&json!(true), &json!(true), &json!("not_connected"))
    );

    // Bob starts a sign-in and sends its link to Ann, who follows it in her browser —
    // with no cookie of ours, or with her own from a sign-in she started: refused and
    // spent, so Ann's account is never stored under Bob's name.
    let (_, ann_cookie) = serve.start_connect(&ann).await;
    for cookie in [None, Some(ann_cookie.as_str())] {
        let (bob_link, _) = serve.start_connect(&bob).await;
        let (status, page) = serve.sign_in(&bob_link, "ann-account", cookie).await;
        assert_eq!(status, 400, "{page}");
        assert!(page.contains("started in another browser"), "{page}");
    }
    assert_eq!(serve.remote(&bob).await["state"], "not_connected");
    assert!(server.bearer_tokens().iter().all(Option::is_none));

    serve.connect(&ann, "ann-account").await;
    let remote = serve.remote(&ann).await;
    assert_eq!(remote["state"], "signed_in", "{remote}");
    assert!(remote["tools"].as_u64().unwrap() > 0, "{remote}");
    assert_eq!(serve.remote(&bob).await["state"], "not_connected");

    assert_eq!(serve.call(&model, &ann, "ann one").await, "echo: ann one");
    let refused = serve.call(&model, &bob, "bob early").await;
    assert!(refused.contains("connect first"), "{refused}");
    assert!(refused.contains("'remote'"), "{refused}");

    serve.connect(&bob, "bob-account").await;
    assert_eq!(serve.call(&model, &bob, "bob one").await, "echo: bob one");
    assert_eq!(serve.call(&model, &ann, "ann two").await, "echo: ann two");

    // Each call carried its caller's token, never the other's.
    let calls = server.tool_calls();
    assert_eq!(calls.len(), 3, "{calls:?}");
    for call in &calls {
        let said = call.arguments["text"].as_str().unwrap();
        let expected = if said.starts_with("ann") {
            "ann-account"
        } else {
            "bob-account"
        };
        assert_eq!(call.account.as_deref(), Some(expected), "{call:?}");
    }
    let bearers = |who: &str| -> Vec<String> {
        calls
            .iter()
            .filter(|c| c.account.as_deref() == Some(who))
            .filter_map(|c| c.bearer.clone())
            .collect()
    };
    let (ann_tokens, bob_tokens) = (bearers("ann-account"), bearers("bob-account"));
    assert!(ann_tokens.iter().all(|t| !bob_tokens.contains(t)));
    child.start_kill().unwrap();
    let stopped = child.wait_with_output().await.unwrap();
    // The operator never signed in to it, and it was never started for them.
    let said = cli::text(&stopped.stderr);
    assert!(!said.contains("'remote'"), "{said}");

    // Removing ann revokes her tokens at the authorization server, and only hers.
    assert!(server.revocations().is_empty());
    let out = smallebot(home.path(), &model)
        .args(["users", "remove", "ann"])
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{}", cli::text(&out.stderr));
    let revoked = server.revocations();
    assert!(
        revoked.iter().any(|t| t.starts_with("refresh-")),
        "{revoked:?}"
    );
    for token in &revoked {
        assert_eq!(
            server.account_of(token).as_deref(),
            Some("ann-account"),
            "{token}"
        );
    }
}
