//! OAuth 2.1 against the testkit's MCP server with its own authorization server:
//! `login` (discovery from the 401, dynamic registration, PKCE with `resource`, the
//! redirect followed to the loopback listener like a browser would), tools called with
//! the token, a token expiring mid-conversation refreshed without a failed call, a
//! revoked sign-in answered with "sign in again", client credentials, and the sealed
//! store (no token in the clear, no sign-in without the key).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use base64::Engine;
use smallebot_application::ports::{Args, ToolContext};
use smallebot_core::entities::{McpCredential, ToolCallStatus};
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::repository::{McpCredentialRepository, RepoResult};
use smallebot_mcp::{
    McpAuth, McpAuthError, McpServerSettings, McpServers, McpSettings, McpSignIns, McpTransport,
    SignInState, SignedOut, TokenKey, login, logout, sign_in_state,
};
use smallebot_testkit::mcp_oauth::OAuthMcpServer;
use tokio_util::sync::CancellationToken;

/// Sign-ins in memory, as the stores keep them (sealed text).
#[derive(Default)]
struct Memory(Mutex<HashMap<(String, String), McpCredential>>);

#[async_trait]
impl McpCredentialRepository for Memory {
    async fn mcp_credential(&self, user: &str, server: &str) -> RepoResult<Option<McpCredential>> {
        let rows = self.0.lock().unwrap();
        Ok(rows.get(&(user.to_owned(), server.to_owned())).cloned())
    }

    async fn save_mcp_credential(&self, credential: &McpCredential) -> RepoResult<()> {
        let key = (credential.user_name.clone(), credential.server.clone());
        self.0.lock().unwrap().insert(key, credential.clone());
        Ok(())
    }

    async fn delete_mcp_credential(&self, user: &str, server: &str) -> RepoResult<bool> {
        let key = (user.to_owned(), server.to_owned());
        Ok(self.0.lock().unwrap().remove(&key).is_some())
    }

    async fn mcp_credentials_of(&self, user: &str) -> RepoResult<Vec<McpCredential>> {
        let rows = self.0.lock().unwrap();
        Ok(rows
            .values()
            .filter(|c| c.user_name == user)
            .cloned()
            .collect())
    }
}

fn key() -> Option<Arc<TokenKey>> {
    let value = base64::engine::general_purpose::STANDARD.encode([7_u8; 32]);
    Some(Arc::new(TokenKey::from_base64(&value).unwrap()))
}

fn server_settings(name: &str, url: &str, auth: McpAuth) -> McpServerSettings {
    McpServerSettings {
        name: name.to_owned(),
        transport: McpTransport::Http {
            url: url.to_owned(),
            headers: BTreeMap::new(),
            auth,
        },
        enabled: true,
        startup_timeout: Duration::from_secs(10),
        tool_timeout: Duration::from_secs(10),
        confirm: Some(false),
        max_message_bytes: 1024 * 1024,
        elicitation_timeout: std::time::Duration::from_secs(300),
        sampling: false,
    }
}

fn oauth() -> McpAuth {
    McpAuth::OAuth {
        client_id: None,
        scopes: vec![],
        per_user: false,
    }
}

/// Runs `login`, following the printed URL as a browser would: the authorize
/// endpoint's redirect, then the loopback listener.
async fn sign_in(settings: &McpServerSettings, sign_ins: &McpSignIns) -> Result<(), McpAuthError> {
    let (url_tx, url_rx) = tokio::sync::oneshot::channel::<String>();
    let browser = tokio::spawn(async move {
        let url = url_rx.await.unwrap();
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let answer = client.get(&url).send().await.unwrap();
        assert_eq!(
            answer.status().as_u16(),
            303,
            "the authorize endpoint redirects"
        );
        let location = answer.headers()["location"].to_str().unwrap().to_owned();
        assert!(location.starts_with("http://127.0.0.1:"), "{location}");
        let page = client.get(&location).send().await.unwrap();
        assert!(page.text().await.unwrap().contains("Signed in"));
    });
    let mut url_tx = Some(url_tx);
    let result = login(settings, sign_ins, Duration::from_secs(20), |url| {
        if let Some(tx) = url_tx.take() {
            let _ = tx.send(url.to_owned());
        }
    })
    .await;
    if result.is_ok() {
        browser.await.unwrap();
    } else {
        browser.abort();
    }
    result
}

async fn call(servers: &McpServers, tool: &str, arguments: &str) -> (ToolCallStatus, String) {
    let tools = servers.mcp_tools();
    let tool = tools
        .iter()
        .find(|t| t.name() == tool)
        .unwrap_or_else(|| panic!("no tool {tool} among {:?}", servers.tool_list()));
    let args = Args::parse(tool.name(), arguments).unwrap();
    let context = ToolContext::in_turn(
        ConversationId::new(),
        TurnId::new(),
        CancellationToken::new(),
    );
    let outcome = tool.call(&args, &context).await;
    (outcome.status, outcome.content)
}

async fn start(settings: McpServerSettings, sign_ins: Option<McpSignIns>) -> McpServers {
    let settings = McpSettings {
        servers: vec![settings],
    };
    let servers = McpServers::start_signed_in(&settings, None, sign_ins)
        .await
        .unwrap();
    assert!(servers.warnings().is_empty(), "{:?}", servers.warnings());
    servers
}

#[tokio::test]
async fn login_stores_a_sealed_sign_in_and_tools_carry_its_token() {
    let server = OAuthMcpServer::start().await.unwrap();
    let settings = server_settings("remote", &server.url(), oauth());
    let memory = Arc::new(Memory::default());
    let sign_ins = McpSignIns::new(memory.clone(), key(), "ann");
    assert_eq!(
        sign_in_state(&settings, &sign_ins).await.unwrap(),
        SignInState::NotSignedIn
    );

    sign_in(&settings, &sign_ins).await.unwrap();
    assert_eq!(server.registered_clients(), 1, "registered dynamically");
    assert_eq!(
        sign_in_state(&settings, &sign_ins).await.unwrap(),
        SignInState::SignedIn
    );
    let resources = server.resource_parameters();
    assert!(
        !resources.is_empty()
            && resources
                .iter()
                .all(|r| r.as_deref() == Some(server.url().as_str())),
        "every authorize and token request names the resource: {resources:?}"
    );
    // Stored sealed: nothing of the token in the clear.
    let stored = memory.0.lock().unwrap().values().next().cloned().unwrap();
    assert_eq!(
        (stored.user_name.as_str(), stored.server.as_str()),
        ("ann", "remote")
    );
    assert!(!stored.sealed.contains("access-"), "{}", stored.sealed);
    let raw = base64::engine::general_purpose::STANDARD
        .decode(&stored.sealed)
        .unwrap();
    assert!(!raw.windows(7).any(|w| w == b"access-"));

    let servers = start(settings.clone(), Some(sign_ins.clone())).await;
    let (status, text) = call(&servers, "remote__echo", r#"{"text": "hi"}"#).await;
    assert_eq!((status, text.as_str()), (ToolCallStatus::Ok, "echo: hi"));
    let bearers = server.bearer_tokens();
    let last = bearers.last().cloned().flatten().unwrap();
    assert!(last.starts_with("access-"), "{bearers:?}");
    let status = servers.status().await;
    assert_eq!(status[0].sign_in, Some(SignInState::SignedIn));
    servers.shutdown().await;

    // Another user has no sign-in, and cannot open ann's.
    let bob = McpSignIns::new(memory.clone(), key(), "bob");
    assert_eq!(
        sign_in_state(&settings, &bob).await.unwrap(),
        SignInState::NotSignedIn
    );
    // Signing out revokes the refresh and access tokens at the provider, then forgets.
    assert!(server.revocations().is_empty());
    assert_eq!(
        logout(&settings, &sign_ins).await.unwrap(),
        SignedOut::Revoked
    );
    let revoked = server.revocations();
    assert!(
        revoked.iter().any(|t| t.starts_with("refresh-"))
            && revoked.iter().any(|t| t.starts_with("access-")),
        "{revoked:?}"
    );
    assert_eq!(
        logout(&settings, &sign_ins).await.unwrap(),
        SignedOut::NotSignedIn
    );
    assert_eq!(
        sign_in_state(&settings, &sign_ins).await.unwrap(),
        SignInState::NotSignedIn
    );
}

#[tokio::test]
async fn a_token_expiring_mid_conversation_is_refreshed_without_a_failed_call() {
    let server = OAuthMcpServer::start().await.unwrap();
    let settings = server_settings("remote", &server.url(), oauth());
    let sign_ins = McpSignIns::new(Arc::new(Memory::default()), key(), "ann");
    sign_in(&settings, &sign_ins).await.unwrap();
    let servers = start(settings, Some(sign_ins)).await;
    let (status, _) = call(&servers, "remote__echo", r#"{"text": "one"}"#).await;
    assert_eq!(status, ToolCallStatus::Ok);
    let first = server.bearer_tokens().last().cloned().flatten().unwrap();

    // The token ends on the server's side (before the client expects it): the 401 is
    // answered by a refresh and the same call again.
    server.expire_access_tokens();
    let (status, text) = call(&servers, "remote__echo", r#"{"text": "two"}"#).await;
    assert_eq!((status, text.as_str()), (ToolCallStatus::Ok, "echo: two"));
    let second = server.bearer_tokens().last().cloned().flatten().unwrap();
    assert_ne!(first, second, "a new token after the refresh");
    assert!(server.token_requests().iter().any(|g| g == "refresh_token"));

    // Tokens that live a second: refreshed before they expire, no call fails.
    server.set_token_lifetime(Duration::from_secs(1));
    server.expire_access_tokens();
    for round in 0..3 {
        let (status, text) = call(&servers, "remote__echo", r#"{"text": "again"}"#).await;
        assert_eq!(status, ToolCallStatus::Ok, "round {round}: {text}");
        tokio::time::sleep(Duration::from_millis(1100)).await;
    }
    servers.shutdown().await;
}

#[tokio::test]
async fn a_revoked_sign_in_asks_to_sign_in_again() {
    let server = OAuthMcpServer::start().await.unwrap();
    let settings = server_settings("remote", &server.url(), oauth());
    let sign_ins = McpSignIns::new(Arc::new(Memory::default()), key(), "ann");
    sign_in(&settings, &sign_ins).await.unwrap();
    let servers = start(settings, Some(sign_ins)).await;
    server.revoke_all();
    let (status, text) = call(&servers, "remote__echo", r#"{"text": "x"}"#).await;
    assert_eq!(status, ToolCallStatus::Error);
    assert!(
        text.contains("sign in again with `smallebot mcp login remote`"),
        "{text}"
    );
    let status = servers.status().await;
    assert_eq!(status[0].sign_in, Some(SignInState::Expired));
    servers.shutdown().await;
}

#[tokio::test]
async fn an_oauth_server_without_a_sign_in_says_how_to_sign_in() {
    let server = OAuthMcpServer::start().await.unwrap();
    let settings = server_settings("remote", &server.url(), oauth());
    let sign_ins = McpSignIns::new(Arc::new(Memory::default()), key(), "ann");
    let servers = McpServers::start_signed_in(
        &McpSettings {
            servers: vec![settings],
        },
        None,
        Some(sign_ins),
    )
    .await
    .unwrap();
    let warning = servers.warnings().join("\n");
    assert!(
        warning.contains("`smallebot mcp login remote`"),
        "{warning}"
    );
    servers.shutdown().await;
}

#[tokio::test]
async fn without_the_key_nothing_is_stored() {
    let server = OAuthMcpServer::start().await.unwrap();
    let settings = server_settings("remote", &server.url(), oauth());
    let memory = Arc::new(Memory::default());
    let sign_ins = McpSignIns::new(memory.clone(), None, "ann");
    let error = login(&settings, &sign_ins, Duration::from_secs(1), |_| {
        panic!("no URL is shown without the key")
    })
    .await
    .unwrap_err();
    assert!(matches!(error, McpAuthError::NoKey));
    assert!(
        error.to_string().contains("SMALLEBOT_MCP_TOKEN_KEY"),
        "{error}"
    );
    assert!(memory.0.lock().unwrap().is_empty());
    assert!(server.bearer_tokens().is_empty());
}

#[tokio::test]
async fn client_credentials_get_a_token_and_a_new_one_when_it_ends() {
    let server = OAuthMcpServer::start().await.unwrap();
    server.add_client("robot", Some("s3cret"));
    let auth = McpAuth::ClientCredentials {
        client_id: "robot".to_owned(),
        client_secret: "s3cret".to_owned(),
        scopes: vec![],
    };
    let servers = start(server_settings("m2m", &server.url(), auth), None).await;
    let (status, text) = call(&servers, "m2m__echo", r#"{"text": "m"}"#).await;
    assert_eq!((status, text.as_str()), (ToolCallStatus::Ok, "echo: m"));
    server.expire_access_tokens();
    let (status, text) = call(&servers, "m2m__echo", r#"{"text": "n"}"#).await;
    assert_eq!((status, text.as_str()), (ToolCallStatus::Ok, "echo: n"));
    let grants = server.token_requests();
    assert_eq!(
        grants.iter().filter(|g| *g == "client_credentials").count(),
        2,
        "{grants:?}"
    );
    servers.shutdown().await;
}
