//! The hostile-user harness: a real multi-user `smallebot serve` (the debug binary) on
//! its own throwaway home, users signed in with their tokens, and the testkit model
//! scripted per test — so an attack is played as a signed-in user would play it: over
//! HTTP, with commands the model runs in the user's workspace.
//!
//! ```ignore
//! let server = Server::start(&["alice", "bob"]).await;
//! let alice = server.user("alice");
//! let id = alice.create_conversation().await;
//! alice.run_command(&id, "ln -s ../bob attachments").await;   // the model runs it
//! let file = alice.upload(&id, "data.bin", &[0, 1, 2]).await;  // POST …/attachments
//! alice.say(&id, "read data.bin", &[&file]).await;             // send, wait for the end
//! let seen = server.model.turn_requests();                     // what the model got
//! ```
//!
//! Each test owns its server (the model's queue is shared by the server's users, so a
//! test scripts its turns one after another). Commands run in the sandbox
//! (`workspace-write`) where the kernel has Landlock; without it the server runs with
//! `"sandbox": "off"` (a multi-user server refuses to start otherwise) and says so on
//! standard error — the attacks here are on what the *host* does, which the sandbox
//! does not change — unless `SMALLEBOT_REQUIRE_LANDLOCK` is set (CI), which fails.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use reqwest::{Method, RequestBuilder, StatusCode};
use serde_json::{Value, json};
use smallebot_testkit::{ScriptedResponse, TestModel, ToolCallSpec};

#[path = "../cli/mod.rs"]
pub mod cli;

/// How long any wait of the harness lasts before the test fails.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// The multipart boundary of uploads.
const BOUNDARY: &str = "smallebot-attack-boundary";

/// A running multi-user server, its home and its model. Killed when dropped.
pub struct Server {
    /// The home directory (`--home`); every user's workspace is under it.
    pub home: tempfile::TempDir,
    /// The scripted model every user's turns talk to.
    pub model: TestModel,
    /// Whether commands run in the Landlock sandbox (else `"sandbox": "off"`).
    pub sandboxed: bool,
    base: String,
    http: reqwest::Client,
    tokens: BTreeMap<String, String>,
    child: tokio::process::Child,
}

impl Server {
    /// A server with `users` (each added with `smallebot users add`).
    pub async fn start(users: &[&str]) -> Self {
        Self::start_with(users, |_| {}).await
    }

    /// A server with `users`, after `prepare` has written what the test needs into the
    /// home (agent.json, skills, …) — terminal.json is written first and may be replaced.
    pub async fn start_with(users: &[&str], prepare: impl FnOnce(&Path)) -> Self {
        let sandboxed = landlock_or_off();
        let home = tempfile::tempdir().unwrap();
        let mode = if sandboxed { "workspace-write" } else { "off" };
        std::fs::write(
            home.path().join("terminal.json"),
            json!({ "sandbox": mode, "commandTimeoutSeconds": 120 }).to_string(),
        )
        .unwrap();
        prepare(home.path());
        let model = TestModel::start().await.unwrap();
        cli::answer_titles(&model);
        let mut tokens = BTreeMap::new();
        for name in users {
            let out = cli::smallebot(home.path(), Some(&model.base_url()))
                .args(["users", "add", name])
                .output()
                .await
                .unwrap();
            assert!(
                out.status.success(),
                "users add {name}: {}",
                cli::text(&out.stderr)
            );
            tokens.insert((*name).to_owned(), cli::text(&out.stdout).trim().to_owned());
        }
        let mut serve = cli::smallebot(home.path(), Some(&model.base_url()));
        serve.args(["serve", "--addr", "0.0.0.0:0", "--public-name", "127.0.0.1"]);
        let (child, _banner, base) = cli::start_serving(serve).await;
        Self {
            home,
            model,
            sandboxed,
            base,
            // A request the server never answers fails the test instead of hanging it.
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(30))
                .build()
                .unwrap(),
            tokens,
            child,
        }
    }

    /// The home directory.
    pub fn home(&self) -> &Path {
        self.home.path()
    }

    /// `user`'s workspace, `<home>/workspace/users/<user>`.
    pub fn workspace(&self, user: &str) -> PathBuf {
        self.home().join("workspace/users").join(user)
    }

    /// `path` on the server (`/api/…`).
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// `name`, signed in with their token.
    pub fn user(&self, name: &str) -> User<'_> {
        let token = self
            .tokens
            .get(name)
            .unwrap_or_else(|| panic!("no user {name}"))
            .clone();
        User {
            server: self,
            token,
        }
    }

    /// The user messages of the model's last turn request, joined: what it was told.
    pub fn last_told(&self) -> String {
        let requests = self.model.turn_requests();
        user_texts(requests.last().unwrap()).join("\n")
    }

    /// Stops the server and waits for it.
    pub async fn stop(mut self) {
        let _ = self.child.start_kill();
        let _ = self.child.wait().await;
    }
}

/// Whether commands can be sandboxed here; without Landlock, says so once (and fails
/// when `SMALLEBOT_REQUIRE_LANDLOCK` is set).
fn landlock_or_off() -> bool {
    let support = smallebot_sandbox::probe();
    if support.is_available() {
        return true;
    }
    assert!(
        std::env::var_os("SMALLEBOT_REQUIRE_LANDLOCK").is_none(),
        "SMALLEBOT_REQUIRE_LANDLOCK is set but this kernel has no Landlock: {support:?}"
    );
    eprintln!(
        "NOTE: no Landlock here ({support:?}): the attack servers run commands with \
         \"sandbox\": \"off\"; what is checked is what the host process does"
    );
    false
}

/// A signed-in user of a [`Server`].
pub struct User<'s> {
    server: &'s Server,
    token: String,
}

impl User<'_> {
    /// This user's token.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// A request to `path` with this user's token.
    pub fn request(&self, method: Method, path: &str) -> RequestBuilder {
        self.server
            .http
            .request(method, self.server.url(path))
            .bearer_auth(&self.token)
    }

    /// `GET path` as JSON, asserting `200`.
    pub async fn get_json(&self, path: &str) -> Value {
        let response = self.request(Method::GET, path).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "GET {path}");
        response.json().await.unwrap()
    }

    /// Creates a conversation and returns its id.
    pub async fn create_conversation(&self) -> String {
        let response = self
            .request(Method::POST, "/api/conversations")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::CREATED);
        let body: Value = response.json().await.unwrap();
        body["id"].as_str().unwrap().to_owned()
    }

    /// `POST …/attachments` with one file, as answered.
    pub async fn upload_response(&self, id: &str, name: &str, content: &[u8]) -> reqwest::Response {
        self.upload_parts(id, &[(name, "application/octet-stream", content)])
            .await
    }

    /// `POST …/attachments` of conversation `id` with one file part per
    /// `(name, content type, content)`, as answered.
    pub async fn upload_parts(&self, id: &str, parts: &[(&str, &str, &[u8])]) -> reqwest::Response {
        let mut body = Vec::new();
        for (name, content_type, content) in parts {
            body.extend_from_slice(
                format!(
                    "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; \
                     filename=\"{name}\"\r\nContent-Type: {content_type}\r\n\r\n"
                )
                .as_bytes(),
            );
            body.extend_from_slice(content);
            body.extend_from_slice(b"\r\n");
        }
        body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
        self.request(
            Method::POST,
            &format!("/api/conversations/{id}/attachments"),
        )
        .header(
            "content-type",
            format!("multipart/form-data; boundary={BOUNDARY}"),
        )
        .body(body)
        .send()
        .await
        .unwrap()
    }

    /// Uploads one file into conversation `id` and returns its attachment id.
    pub async fn upload(&self, id: &str, name: &str, content: &[u8]) -> String {
        let response = self.upload_response(id, name, content).await;
        assert_eq!(response.status(), StatusCode::CREATED, "upload of {name}");
        let body: Value = response.json().await.unwrap();
        body["attachments"][0]["id"].as_str().unwrap().to_owned()
    }

    /// `POST …/messages` with `text` and `attachments`, as answered.
    pub async fn send(&self, id: &str, text: &str, attachments: &[&str]) -> reqwest::Response {
        self.request(Method::POST, &format!("/api/conversations/{id}/messages"))
            .json(&json!({ "text": text, "attachments": attachments }))
            .send()
            .await
            .unwrap()
    }

    /// Sends a message (asserting `202`), waits for its turn to end and returns the
    /// timeline then.
    pub async fn say(&self, id: &str, text: &str, attachments: &[&str]) -> Value {
        let turn = self.start_turn(id, text, attachments).await;
        self.wait_turn_end(id, &turn).await
    }

    /// The timeline of conversation `id` (`GET /api/conversations/{id}`).
    pub async fn timeline(&self, id: &str) -> Value {
        self.get_json(&format!("/api/conversations/{id}")).await
    }

    /// Waits until turn `turn` of conversation `id` has ended and nothing runs, and
    /// returns the timeline.
    pub async fn wait_turn_end(&self, id: &str, turn: &str) -> Value {
        match self.wait_turn_end_within(id, turn, PATIENCE).await {
            Ok(timeline) => timeline,
            Err(timeline) => panic!("turn {turn} never ended: {timeline}"),
        }
    }

    /// As [`User::wait_turn_end`] for at most `patience`: the timeline then, as `Err`
    /// when the turn had not ended.
    pub async fn wait_turn_end_within(
        &self,
        id: &str,
        turn: &str,
        patience: Duration,
    ) -> Result<Value, Value> {
        let deadline = Instant::now() + patience;
        loop {
            let timeline = self.timeline(id).await;
            let ended = timeline["turns"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t["id"] == turn && !t["completed_at"].is_null());
            if ended && timeline["busy"] == false {
                return Ok(timeline);
            }
            if Instant::now() >= deadline {
                return Err(timeline);
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Sends a message (asserting `202`) and returns its turn's id without waiting.
    pub async fn start_turn(&self, id: &str, text: &str, attachments: &[&str]) -> String {
        let response = self.send(id, text, attachments).await;
        assert_eq!(response.status(), StatusCode::ACCEPTED, "send {text:?}");
        let started: Value = response.json().await.unwrap();
        started["turn_id"].as_str().unwrap().to_owned()
    }

    /// Uploads `content` as `name` into conversation `id`, sends it with a message (the
    /// model answers "ok") and returns what the model was told in that message.
    pub async fn send_file(&self, id: &str, name: &str, content: &[u8]) -> String {
        let file = self.upload(id, name, content).await;
        self.server.model.push(ScriptedResponse::text("ok"));
        self.say(id, &format!("here is {name}"), &[&file]).await;
        self.server.last_told()
    }

    /// Has the model run `command` with `ExecuteCommand` in this user's workspace (one
    /// turn: the call, then a short answer) and returns the tool's result text.
    pub async fn run_command(&self, id: &str, command: &str) -> String {
        self.run_tool(id, "ExecuteCommand", json!({ "command": command }))
            .await
    }

    /// Has the model call `tool` with `arguments` (one turn: the call, then a short
    /// answer) and returns the tool's result text.
    pub async fn run_tool(&self, id: &str, tool: &str, arguments: Value) -> String {
        self.server.model.push_all([
            ScriptedResponse::tool_calls([ToolCallSpec::new(
                "call_attack",
                tool,
                arguments.to_string(),
            )]),
            ScriptedResponse::text("done"),
        ]);
        let timeline = self.say(id, &format!("please call {tool}"), &[]).await;
        tool_results(&timeline)
            .last()
            .cloned()
            .unwrap_or_else(|| panic!("no result of {tool}: {timeline}"))
    }
}

/// Writes `content` at `relative` under `home`, making its folders (for a `prepare`
/// closure: another user's files, say).
pub fn plant(home: &Path, relative: &str, content: &[u8]) {
    let path = home.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

/// The names in the folder `dir`, sorted.
pub fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A file the sniffer takes for neither text nor an image: saved, never inlined.
pub fn binary(tag: &str) -> Vec<u8> {
    let mut bytes = vec![0_u8, 1, 2, 3, 0xff, 0xfe, 0];
    bytes.extend_from_slice(tag.as_bytes());
    bytes
}

/// The results of the tool calls of a timeline, in order.
pub fn tool_results(timeline: &Value) -> Vec<String> {
    timeline["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["kind"] == "tool_call")
        .map(|r| r["result"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// The text of every user message the model was sent in `request` (parts joined).
pub fn user_texts(request: &smallebot_testkit::RecordedRequest) -> Vec<String> {
    request
        .messages()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(smallebot_testkit::message_text)
        .collect()
}

/// Every path under `root` whose file name is `name`, found without following links
/// (a link is reported, not entered).
pub fn paths_named(root: &Path, name: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if entry.file_name() == name {
                found.push(path.clone());
            }
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                pending.push(path);
            }
        }
    }
    found.sort();
    found
}

/// A single-user home for `smallebot run` (no server): the same terminal.json as a
/// [`Server`]'s, the testkit model, titles answered. `<home>/workspace` is the
/// workspace.
pub struct Home {
    /// The home directory.
    pub dir: tempfile::TempDir,
    /// The scripted model.
    pub model: TestModel,
}

impl Home {
    /// A fresh home and model.
    pub async fn new() -> Self {
        let sandboxed = landlock_or_off();
        let dir = tempfile::tempdir().unwrap();
        let mode = if sandboxed { "workspace-write" } else { "off" };
        std::fs::write(
            dir.path().join("terminal.json"),
            json!({ "sandbox": mode }).to_string(),
        )
        .unwrap();
        let model = TestModel::start().await.unwrap();
        cli::answer_titles(&model);
        Self { dir, model }
    }

    /// The home directory.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `smallebot --home <home> ARGS`, run to its end.
    pub async fn run(&self, args: &[&str]) -> std::process::Output {
        cli::smallebot(self.path(), Some(&self.model.base_url()))
            .args(args)
            .output()
            .await
            .unwrap()
    }

    /// Has the model run `command` with `ExecuteCommand` in a `run` of its own and
    /// returns that run's output (the tool's result is printed with it).
    pub async fn run_command(&self, command: &str) -> std::process::Output {
        self.model.push_all([
            ScriptedResponse::tool_calls([ToolCallSpec::new(
                "call_attack",
                "ExecuteCommand",
                json!({ "command": command }).to_string(),
            )]),
            ScriptedResponse::text("done"),
        ]);
        let out = self.run(&["run", "please run it"]).await;
        assert!(out.status.success(), "{}", cli::text(&out.stderr));
        out
    }
}
