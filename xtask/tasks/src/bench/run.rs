//! A one-shot `smallebot run "…"` against a zero-latency model: the wall time of the
//! whole process (start, open the home, send, stream the answer, exit), beside the
//! same model request sent raw and the time the binary takes to start and exit at all.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use smallebot_application::pipeline::TITLE_INSTRUCTION;
use smallebot_testkit::{ScriptedResponse, TestModel, message_text};

use super::harness::release_binary;
use super::{Figure, median, ms};

/// Measured runs (after one that creates the home).
const RUNS: usize = 20;
/// The target of docs/design.md §13.
const TARGET: Duration = Duration::from_millis(30);

/// Measures `run` and its baselines.
pub async fn run() -> Result<Vec<Figure>, String> {
    let binary = release_binary("the run benchmark")?;
    let model = TestModel::start().await.map_err(|e| e.to_string())?;
    model.respond_with(|req| {
        let text: String = req.messages().iter().map(message_text).collect();
        if text.contains(TITLE_INSTRUCTION) {
            ScriptedResponse::text("Bench title")
        } else {
            ScriptedResponse::text("Hello.")
        }
    });
    let home = tempfile::tempdir().map_err(|e| e.to_string())?;
    // The first run creates the home and the database; it is not measured.
    one_run(&binary, home.path(), &model.base_url(), "warm up").await?;
    let mut runs = Vec::with_capacity(RUNS);
    for i in 0..RUNS {
        runs.push(
            one_run(
                &binary,
                home.path(),
                &model.base_url(),
                &format!("hello {i}"),
            )
            .await?,
        );
    }
    let starts = version_starts(&binary, RUNS).await?;
    let turn_request = model
        .requests()
        .into_iter()
        .rev()
        .find(|r| {
            !r.messages()
                .iter()
                .map(message_text)
                .any(|t| t.contains(TITLE_INSTRUCTION))
        })
        .ok_or("the model saw no turn request")?;
    let client = reqwest::Client::new();
    let url = format!("{}/chat/completions", model.base_url());
    let mut raw = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let started = Instant::now();
        let response = client
            .post(&url)
            .json(&turn_request.body)
            .send()
            .await
            .map_err(|e| e.to_string())?;
        let _ = response.bytes().await.map_err(|e| e.to_string())?;
        raw.push(started.elapsed());
    }
    let (run, start, raw) = (median(runs), median(starts), median(raw));
    let floor = start + raw;
    Ok(vec![Figure {
        name: "one-shot `smallebot run \"hello\"` (new conversation, zero-latency model)".into(),
        value: format!("{} wall, process start to exit (median of {RUNS})", ms(run)),
        baseline: format!(
            "`smallebot --version` start to exit {} + the same request sent raw {} = {}",
            ms(start),
            ms(raw),
            ms(floor)
        ),
        ratio: format!(
            "{:.2}× the baseline; {} above it",
            run.as_secs_f64() / floor.as_secs_f64().max(1e-9),
            ms(run.saturating_sub(floor))
        ),
        target: format!(
            "≤ {} wall: {}",
            ms(TARGET),
            if run <= TARGET { "met" } else { "NOT met" }
        ),
    }])
}

/// `runs` times `smallebot --version`, start to exit: the floor of any command.
pub async fn version_starts(binary: &Path, runs: usize) -> Result<Vec<Duration>, String> {
    let mut starts = Vec::with_capacity(runs);
    for _ in 0..runs {
        let started = Instant::now();
        let status = tokio::process::Command::new(binary)
            .arg("--version")
            .stdout(Stdio::null())
            .status()
            .await
            .map_err(|e| e.to_string())?;
        if !status.success() {
            return Err(format!("smallebot --version exited with {status}"));
        }
        starts.push(started.elapsed());
    }
    Ok(starts)
}

/// One `smallebot run PROMPT` in `home`, to its exit; the answer must arrive.
async fn one_run(
    binary: &Path,
    home: &Path,
    model_url: &str,
    prompt: &str,
) -> Result<Duration, String> {
    let started = Instant::now();
    let output = tokio::process::Command::new(binary)
        .arg("--home")
        .arg(home)
        .args(["run", prompt])
        .env("OPENAI_BASE_URL", model_url)
        .env("OPENAI_API_KEY", "bench")
        .env("SMALLEBOT_MODEL", "bench-model")
        .env_remove("SMALLEBOT_HOME")
        .stdin(Stdio::null())
        .output()
        .await
        .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
    let elapsed = started.elapsed();
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() || !stdout.contains("Hello.") {
        return Err(format!(
            "`smallebot run {prompt}` exited with {} and printed {stdout:?}; stderr: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(elapsed)
}
