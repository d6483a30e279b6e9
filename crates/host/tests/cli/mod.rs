//! Running the real `smallebot` binary in tests: a home directory of its own, no
//! configuration from the environment but the testkit endpoint when given.
#![allow(dead_code)]

use std::path::Path;
use std::process::Stdio;

use tokio::io::AsyncBufReadExt;

/// `smallebot --home <home>` with the environment cleared of SmallEBot, OpenAI and
/// OTLP settings, `USER=tester`, no input, output captured; pointed at `base_url` (model
/// `scripted`) when given. Killed when dropped.
pub fn smallebot(home: &Path, base_url: Option<&str>) -> tokio::process::Command {
    let mut c = tokio::process::Command::new(env!("CARGO_BIN_EXE_smallebot"));
    c.arg("--home")
        .arg(home)
        .env_remove("SMALLEBOT_HOME")
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("SMALLEBOT_MODEL")
        .env_remove("OPENAI_SUPPORTS_IMAGES")
        .env_remove("RUST_LOG")
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .env("USER", "tester")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(url) = base_url {
        c.env("OPENAI_BASE_URL", url)
            .env("SMALLEBOT_MODEL", "scripted");
    }
    c
}

/// What `conversations list` prints for `home` (`no conversations yet` when nothing
/// was stored).
pub async fn listed(home: &Path) -> String {
    let out = smallebot(home, None)
        .args(["conversations", "list"])
        .output()
        .await
        .unwrap();
    text(&out.stdout)
}

/// Runs `smallebot --home <home> ARGS…` without a model: whether it succeeded, its
/// standard output and its standard error.
pub async fn outcome(home: &Path, args: &[&str]) -> (bool, String, String) {
    let out = smallebot(home, None).args(args).output().await.unwrap();
    (out.status.success(), text(&out.stdout), text(&out.stderr))
}

/// Runs `chat` against `server` with `typed` as its whole input (no terminal).
pub async fn chat_typing(
    home: &Path,
    server: &smallebot_testkit::TestModel,
    typed: &[u8],
) -> std::process::Output {
    use tokio::io::AsyncWriteExt;
    let mut child = smallebot(home, Some(&server.base_url()))
        .arg("chat")
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(typed).await.unwrap();
    drop(stdin);
    child.wait_with_output().await.unwrap()
}

/// Output bytes as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Has `model` answer every title request with `A title`, outside its queue: a title
/// is asked for beside a conversation's first turn, at no fixed point of a script.
pub fn answer_titles(model: &smallebot_testkit::TestModel) {
    model.answer_when(smallebot_testkit::RecordedRequest::asks_for_title, |_| {
        smallebot_testkit::ScriptedResponse::text("A title")
    });
}

/// Starts `serve` (already given its arguments) and returns the process, its banner
/// line and the page address on 127.0.0.1 the banner names.
pub async fn start_serving(
    mut serve: tokio::process::Command,
) -> (tokio::process::Child, String, String) {
    let mut child = serve.spawn().unwrap();
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let banner = tokio::time::timeout(std::time::Duration::from_secs(30), lines.next_line())
        .await
        .expect("a banner within 30 s")
        .unwrap()
        .expect("serve prints where it listens");
    let port = banner
        .split_whitespace()
        .find_map(|w| w.strip_prefix("http://"))
        .and_then(|address| address.trim_end_matches('/').rsplit(':').next())
        .unwrap_or_else(|| panic!("no address in {banner}"))
        .to_owned();
    (child, banner, format!("http://127.0.0.1:{port}"))
}

/// Creates a conversation through `serve`'s API at `base` and returns its id.
pub async fn new_conversation(http: &reqwest::Client, base: &str) -> String {
    let created: serde_json::Value = http
        .post(format!("{base}/api/conversations"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    created["id"].as_str().unwrap().to_owned()
}
