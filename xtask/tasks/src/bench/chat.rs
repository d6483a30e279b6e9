//! `smallebot chat` to its first prompt: the wall time from the process's start until
//! it prints `› ` (banner, home, store and configuration opened), its input a pipe.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use smallebot_testkit::{ScriptedResponse, TestModel};
use tokio::io::AsyncReadExt;

use super::harness::release_binary;
use super::{Figure, median, ms};

/// Measured starts (after one that creates the home).
const RUNS: usize = 20;
/// The target of docs/design.md §13.
const TARGET: Duration = Duration::from_millis(50);

/// Measures `chat` to its first prompt and its baseline.
pub async fn run() -> Result<Vec<Figure>, String> {
    let binary = release_binary("the chat benchmark")?;
    let model = TestModel::start().await.map_err(|e| e.to_string())?;
    model.respond_with(|_| ScriptedResponse::text("Hello."));
    let home = tempfile::tempdir().map_err(|e| e.to_string())?;
    // The first start creates the home and the database; it is not measured.
    to_prompt(&binary, home.path(), &model.base_url()).await?;
    let mut starts = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        starts.push(to_prompt(&binary, home.path(), &model.base_url()).await?);
    }
    let versions = super::run::version_starts(&binary, RUNS).await?;
    let (chat, version) = (median(starts), median(versions));
    Ok(vec![Figure {
        name: "`smallebot chat` to its first prompt (a new conversation, input a pipe)".into(),
        value: format!(
            "{} wall, process start to `› ` (median of {RUNS})",
            ms(chat)
        ),
        baseline: format!("`smallebot --version` start to exit {}", ms(version)),
        ratio: format!(
            "{:.2}× the baseline; {} above it",
            chat.as_secs_f64() / version.as_secs_f64().max(1e-9),
            ms(chat.saturating_sub(version))
        ),
        target: format!(
            "≤ {} wall: {}",
            ms(TARGET),
            if chat <= TARGET { "met" } else { "NOT met" }
        ),
    }])
}

/// Starts `smallebot chat --new` in `home` and waits for its prompt; then ends it.
async fn to_prompt(binary: &Path, home: &Path, model_url: &str) -> Result<Duration, String> {
    let started = Instant::now();
    let mut child = tokio::process::Command::new(binary)
        .arg("--home")
        .arg(home)
        .args(["chat", "--new"])
        .env("OPENAI_BASE_URL", model_url)
        .env("OPENAI_API_KEY", "bench")
        .env("SMALLEBOT_MODEL", "bench-model")
        .env_remove("SMALLEBOT_HOME")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
    let mut stdout = child.stdout.take().ok_or("no standard output")?;
    let mut seen = Vec::new();
    let mut buffer = [0_u8; 4096];
    let elapsed = loop {
        let read = tokio::time::timeout(Duration::from_secs(10), stdout.read(&mut buffer))
            .await
            .map_err(|_| "chat printed no prompt within 10 s".to_owned())?
            .map_err(|e| e.to_string())?;
        if read == 0 {
            return Err(format!(
                "chat ended before its prompt: {}",
                String::from_utf8_lossy(&seen)
            ));
        }
        seen.extend_from_slice(&buffer[..read]);
        if String::from_utf8_lossy(&seen).contains("› ") {
            break started.elapsed();
        }
    };
    // End of input: chat leaves.
    drop(child.stdin.take());
    let _ = tokio::time::timeout(Duration::from_secs(10), child.wait()).await;
    Ok(elapsed)
}
