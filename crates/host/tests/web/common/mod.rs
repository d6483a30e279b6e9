//! The test server: the real pipeline behind the router on 127.0.0.1, the scripted
//! testkit model, and a reader of event streams.
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use reqwest::StatusCode;
use serde_json::Value;
use smallebot_agent::assembly::AgentAssembly;
use smallebot_agent::config::TerminalSettings;
use smallebot_agent::tools::{ExecuteCommand, GetCurrentTime, ToolRegistry, Workspace};
use smallebot_infrastructure::SqliteStore;
use smallebot_model_client::ChatEndpoint;
use smallebot_testkit::{RecordedRequest, ScriptedResponse, TestModel};
use smallebot_web::{WebConfirmer, WebState, hosts_for, router};

/// Users by token digest, as a store keeps them.
pub struct Users(std::collections::HashMap<String, String>);

#[async_trait::async_trait]
impl smallebot_web::auth::TokenUsers for Users {
    async fn user_for_digest(
        &self,
        digest: &str,
    ) -> Result<Option<String>, smallebot_core::RepositoryError> {
        Ok(self.0.get(digest).cloned())
    }

    async fn is_admin(&self, _user: &str) -> Result<bool, smallebot_core::RepositoryError> {
        Ok(false)
    }
}

/// The users `(token, name)`, for [`WebState::users`].
pub fn users(tokens: &[(&str, &str)]) -> Arc<Users> {
    Arc::new(Users(
        tokens
            .iter()
            .map(|(token, name)| (smallebot_web::auth::token_digest(token), (*name).to_owned()))
            .collect(),
    ))
}

pub struct Server {
    pub base: String,
    pub model: TestModel,
    pub http: reqwest::Client,
    pub store: SqliteStore,
    /// What the model answers to title requests.
    title: Arc<Mutex<String>>,
    _dir: tempfile::TempDir,
}

/// One frame of an event stream: its id, its event name, its data.
#[derive(Debug)]
pub struct Frame {
    pub id: Option<u64>,
    pub name: Option<String>,
    pub data: Value,
}

/// Reads an event stream frame by frame.
pub struct SseReader {
    bytes: std::pin::Pin<Box<dyn futures::Stream<Item = reqwest::Result<bytes::Bytes>> + Send>>,
    buffer: String,
}

impl SseReader {
    /// The next frame with data; `None` when the stream ended.
    pub async fn next(&mut self) -> Option<Frame> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let frame: String = self.buffer.drain(..end + 2).collect();
                let field = |name: &str| {
                    frame
                        .lines()
                        .find_map(|l| l.strip_prefix(name).map(str::to_owned))
                };
                if let Some(data) = field("data: ") {
                    return Some(Frame {
                        id: field("id: ").map(|id| id.parse().unwrap()),
                        name: field("event: "),
                        data: serde_json::from_str(&data).unwrap(),
                    });
                }
                continue;
            }
            let chunk = tokio::time::timeout(Duration::from_secs(20), self.bytes.next())
                .await
                .expect("a frame within 20 s")?
                .unwrap();
            self.buffer.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }

    /// Frames up to and including the one that ends a turn.
    pub async fn until_turn_ends(&mut self) -> Vec<Frame> {
        let mut frames = Vec::new();
        while let Some(frame) = self.next().await {
            let ends = matches!(
                frame.data["type"].as_str(),
                Some("TurnCompleted" | "TurnFailed" | "TurnCancelled")
            );
            frames.push(frame);
            if ends {
                return frames;
            }
        }
        panic!("the stream ended before the turn: {frames:?}");
    }
}

impl Server {
    pub async fn start() -> Self {
        Self::start_with(|state| state).await
    }

    pub async fn start_with(configure: impl FnOnce(WebState) -> WebState) -> Self {
        Self::start_custom(|assembly| assembly, configure).await
    }

    /// A server whose one tool is `ExecuteCommand` (in a fresh workspace) that asks on
    /// the page before each command, waiting at most `confirm_within`.
    pub async fn with_confirmed_shell(confirm_within: Duration) -> (Self, tempfile::TempDir) {
        let workspace = tempfile::tempdir().unwrap();
        let confirmer = Arc::new(WebConfirmer::new());
        let terminal = TerminalSettings {
            require_command_confirmation: true,
            confirmation_timeout: confirm_within,
            ..TerminalSettings::default()
        };
        let shell = ExecuteCommand::new(
            terminal,
            Workspace::new(workspace.path().to_path_buf()),
            confirmer.clone(),
        )
        .unwrap();
        // The questions are the agent's permission gate's: it asks the page.
        let asking = confirmer.clone();
        let server = Self::start_custom(
            move |agent| {
                agent
                    .tools(ToolRegistry::new().with(Arc::new(shell)))
                    .confirmer(asking)
                    .confirmation_timeout(confirm_within)
            },
            |web| web.confirmations(confirmer),
        )
        .await;
        (server, workspace)
    }

    /// A server with one user, alice, and her token.
    pub async fn with_one_user() -> (Self, String) {
        use smallebot_web::auth::{TokenUsers, new_token, token_digest};

        struct OneUser(String);
        #[async_trait::async_trait]
        impl TokenUsers for OneUser {
            async fn user_for_digest(
                &self,
                digest: &str,
            ) -> Result<Option<String>, smallebot_core::RepositoryError> {
                Ok((digest == self.0).then(|| "alice".to_owned()))
            }

            async fn is_admin(&self, _user: &str) -> Result<bool, smallebot_core::RepositoryError> {
                Ok(false)
            }
        }

        let token = new_token();
        let users = OneUser(token_digest(&token));
        let server = Self::start_with(|web| web.users(Arc::new(users))).await;
        (server, token)
    }

    /// A server whose tools read and write files (`ReadFile`, `WriteFile`) in a fresh
    /// workspace holding `files`, beside `GetCurrentTime`.
    pub async fn with_workspace(files: &[(&str, &str)]) -> (Self, tempfile::TempDir) {
        use smallebot_agent::tools::{ReadFile, WriteFile};
        let workspace = tempfile::tempdir().unwrap();
        for (path, text) in files {
            std::fs::write(workspace.path().join(path), text).unwrap();
        }
        let root = || Workspace::new(workspace.path().to_path_buf());
        let server = Self::start_custom(
            |agent| {
                agent.tools(
                    ToolRegistry::new()
                        .with(Arc::new(GetCurrentTime))
                        .with(Arc::new(ReadFile::new(root())))
                        .with(Arc::new(WriteFile::new(root()))),
                )
            },
            |web| web,
        )
        .await;
        (server, workspace)
    }

    /// A server whose agent is built by `customize` and whose web state by `configure`.
    pub async fn start_custom(
        customize: impl FnOnce(AgentAssembly) -> AgentAssembly,
        configure: impl FnOnce(WebState) -> WebState,
    ) -> Self {
        Self::start_full(|assembly, _| customize(assembly), configure).await
    }

    /// As [`Server::start_custom`]; `customize` also gets the test model's base URL.
    pub async fn start_full(
        customize: impl FnOnce(AgentAssembly, &str) -> AgentAssembly,
        configure: impl FnOnce(WebState) -> WebState,
    ) -> Self {
        Self::start_over_store(customize, |web, _| configure(web)).await
    }

    /// A server whose tools read and write files in a fresh workspace holding `files`
    /// (as [`Server::with_workspace`]), kept under checkpoints: each turn's changes
    /// are in the timeline and `POST …/rewind` takes them back.
    pub async fn with_checkpoints(files: &[(&str, &str)]) -> (Self, tempfile::TempDir) {
        use smallebot_agent::tools::{ReadFile, WriteFile};
        let workspace = tempfile::tempdir().unwrap();
        for (path, text) in files {
            std::fs::write(workspace.path().join(path), text).unwrap();
        }
        let dir = workspace.path().to_path_buf();
        let root = || Workspace::new(dir.clone());
        let server = Self::start_over_store(
            |agent, _| {
                agent
                    .tools(
                        ToolRegistry::new()
                            .with(Arc::new(ReadFile::new(root())))
                            .with(Arc::new(WriteFile::new(root()))),
                    )
                    .checkpoints(dir.clone())
            },
            |web, store| {
                let rewind = smallebot_checkpoints::HomeRewind::new(
                    store,
                    dir.clone(),
                    smallebot_checkpoints::Limits::default(),
                    false,
                );
                web.rewind(Arc::new(rewind))
            },
        )
        .await;
        (server, workspace)
    }

    /// As [`Server::start_full`]; `configure` also gets the conversation store.
    pub async fn start_over_store(
        customize: impl FnOnce(AgentAssembly, &str) -> AgentAssembly,
        configure: impl FnOnce(WebState, Arc<dyn smallebot_core::repository::Store>) -> WebState,
    ) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let model = TestModel::start().await.unwrap();
        let store = SqliteStore::open(&dir.path().join("web.db")).await.unwrap();
        let assembly = AgentAssembly::new(
            Arc::new(store.clone()),
            ChatEndpoint::new(model.base_url(), "test"),
        )
        .skill_path(dir.path().join("SKILL.md"))
        .tools(ToolRegistry::new().with(Arc::new(GetCurrentTime)));
        let agent = customize(assembly, &model.base_url()).build().unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let base = format!("http://{addr}");
        // As `smallebot serve` runs it: answering only to its own host names.
        let state = WebState::new(Arc::new(agent.service), "alice").allow_hosts(hosts_for(addr));
        // Served as `smallebot serve` serves it (event streams on their own sockets), but
        // without the peer's address, as a proxy in front would look.
        let app = router(configure(state, Arc::new(store.clone()))).layer(
            axum::middleware::map_request(|mut request: axum::extract::Request| async move {
                request
                    .extensions_mut()
                    .remove::<axum::extract::ConnectInfo<std::net::SocketAddr>>();
                request
            }),
        );
        tokio::spawn(smallebot_web::serve(listener, app));
        // The title is asked for beside the first turn, at no fixed point of a script.
        let title = Arc::new(Mutex::new("A title".to_owned()));
        let answer = Arc::clone(&title);
        model.answer_when(RecordedRequest::asks_for_title, move |_| {
            ScriptedResponse::text(answer.lock().unwrap().clone())
        });
        Self {
            base,
            model,
            store,
            title,
            http: reqwest::Client::new(),
            _dir: dir,
        }
    }

    /// `GET path` as JSON (whatever the status).
    pub async fn get_json(&self, path: &str) -> Value {
        self.http
            .get(self.url(path))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub async fn create(&self) -> String {
        self.created(self.http.post(self.url("/api/conversations")))
            .await
    }

    /// A new conversation of the user whose token is `token`; its id.
    pub async fn create_as(&self, token: &str) -> String {
        self.created(
            self.http
                .post(self.url("/api/conversations"))
                .bearer_auth(token),
        )
        .await
    }

    /// The id of the conversation `request` creates.
    async fn created(&self, request: reqwest::RequestBuilder) -> String {
        let created = request.send().await.unwrap();
        assert_eq!(created.status(), StatusCode::CREATED);
        let body: Value = created.json().await.unwrap();
        body["id"].as_str().unwrap().to_owned()
    }

    /// `PATCH /api/conversations/{id}` with `{"title"}`.
    pub async fn rename(&self, id: &str, title: &str) -> reqwest::Response {
        self.http
            .patch(self.url(&format!("/api/conversations/{id}")))
            .json(&serde_json::json!({ "title": title }))
            .send()
            .await
            .unwrap()
    }

    pub async fn send(&self, id: &str, body: Value) -> reqwest::Response {
        self.http
            .post(self.url(&format!("/api/conversations/{id}/messages")))
            .json(&body)
            .send()
            .await
            .unwrap()
    }

    /// Has the model answer title requests with `title` (`A title` until then).
    pub fn answer_titles_with(&self, title: &str) {
        *self.title.lock().unwrap() = title.to_owned();
    }

    /// The requests the model received, title requests left out, in arrival order.
    pub fn turn_requests(&self) -> Vec<RecordedRequest> {
        let mut requests = self.model.requests();
        requests.retain(|r| !r.asks_for_title());
        requests
    }

    /// Answers summarizer requests (no tools offered) with `summary`, and turns with
    /// `answer N` (N counting the requests). Title requests get the title.
    pub fn script_roles(
        &self,
        summary: impl Fn(&RecordedRequest) -> ScriptedResponse + Send + Sync + 'static,
    ) {
        self.model.respond_with(move |req: &RecordedRequest| {
            if req.tools().is_empty() {
                summary(req)
            } else {
                ScriptedResponse::text(format!("answer {}", req.index))
            }
        });
    }

    /// Sends `text` and waits until its turn completed; returns the `202` body.
    pub async fn turn(&self, id: &str, text: &str) -> Value {
        let mut events = self.open_events(id, None).await;
        let started = self.send(id, serde_json::json!({ "text": text })).await;
        assert_eq!(started.status(), StatusCode::ACCEPTED);
        let frames = events.until_turn_ends().await;
        assert_eq!(frames.last().unwrap().data["type"], "TurnCompleted");
        started.json().await.unwrap()
    }

    /// Opens the conversation's event stream (resuming after `last` when given).
    pub async fn open_events(&self, id: &str, last: Option<u64>) -> SseReader {
        let mut request = self
            .http
            .get(self.url(&format!("/api/conversations/{id}/events")));
        if let Some(last) = last {
            request = request.header("last-event-id", last.to_string());
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        SseReader {
            bytes: Box::pin(response.bytes_stream()),
            buffer: String::new(),
        }
    }
}
