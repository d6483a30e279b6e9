//! `cargo xtask chaos [--turns N] [--seed S]`: the real binary against a testkit model
//! that injects the faults real providers produce, turn after turn in one conversation
//! with a tool call each, then checks what was stored.
//!
//! Fault mix per request: 15 % 429 (Retry-After 1 s), 10 % 503, 5 % 500, 8 % connection
//! dropped mid-stream, 8 % stream ended without a finish reason, 5 % malformed chunk,
//! 3 % an 8-second stall (agent.json sets a 5-second idle timeout). Target: at least 28
//! of 30 turns complete with default retry settings, and every failed turn failed
//! because its retries ran out.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use clap::Args;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::Value;
use smallebot_testkit::{RecordedRequest, ScriptedResponse, TestModel, ToolCallSpec};

/// Arguments of `cargo xtask chaos`.
#[derive(Debug, Args)]
pub struct ChaosArgs {
    /// Turns to run.
    #[arg(long, default_value_t = 30)]
    turns: usize,
    /// Seed of the fault sequence (the same seed injects the same faults).
    #[arg(long, default_value_t = 7)]
    seed: u64,
}

/// The fault mix: (cumulative probability, name).
const FAULTS: [(f64, &str); 7] = [
    (0.15, "429"),
    (0.25, "503"),
    (0.30, "500"),
    (0.38, "dropped"),
    (0.46, "no finish"),
    (0.51, "malformed"),
    (0.54, "stall"),
];

/// The scripted answer to a request: a tool call first, then a text answer.
fn answer(request: &RecordedRequest) -> ScriptedResponse {
    let text = request.last_user_text().unwrap_or_default();
    if text.starts_with("Generate a short title") {
        ScriptedResponse::text("Chaos check")
    } else if request.last_role() == Some("tool") {
        ScriptedResponse::text(format!("Noted the time for request {}.", request.index))
    } else {
        ScriptedResponse::tool_calls([ToolCallSpec::new(
            format!("call_{}", request.index),
            "GetCurrentTime",
            "{}",
        )])
    }
}

/// `answer` with a fault drawn from the mix (or none).
fn with_fault(response: ScriptedResponse, roll: f64) -> (ScriptedResponse, Option<&'static str>) {
    let Some((_, fault)) = FAULTS.iter().find(|(p, _)| roll < *p) else {
        return (response, None);
    };
    let faulty = match *fault {
        "429" => ScriptedResponse::rate_limited(1),
        "503" => ScriptedResponse::server_error(503),
        "500" => ScriptedResponse::server_error(500),
        "dropped" => response.chunk_size(4).cut_after_chunks(1),
        "no finish" => response.chunk_size(4).end_after_chunks(1),
        "malformed" => response.malformed_chunk_at(1),
        _ => response.delay_before(Duration::from_secs(8)),
    };
    (faulty, Some(fault))
}

/// Runs the soak and prints its figures beside the target.
pub async fn run(args: ChaosArgs) -> Result<(), String> {
    let binary = crate::smallebot_binary("the chaos soak")?;
    let server = TestModel::start().await.map_err(|e| e.to_string())?;
    let rng = Mutex::new(StdRng::seed_from_u64(args.seed));
    let injected = std::sync::Arc::new(Mutex::new(BTreeMap::<&'static str, usize>::new()));
    let counter = std::sync::Arc::clone(&injected);
    server.respond_with(move |request| {
        let roll = rng.lock().map(|mut r| r.random::<f64>()).unwrap_or(1.0);
        let (response, fault) = with_fault(answer(request), roll);
        if let (Some(fault), Ok(mut counts)) = (fault, counter.lock()) {
            *counts.entry(fault).or_default() += 1;
        }
        response
    });
    let home = tempfile::tempdir().map_err(|e| e.to_string())?;
    std::fs::write(
        home.path().join("agent.json"),
        r#"{"streamIdleTimeoutSeconds": 5}"#,
    )
    .map_err(|e| e.to_string())?;
    println!(
        "chaos: {} turns, seed {}, model at {}\n",
        args.turns,
        args.seed,
        server.base_url()
    );
    let started = Instant::now();
    let mut report = Report::default();
    let mut conversation: Option<String> = None;
    for turn in 0..args.turns {
        let outcome = run_turn(&binary, home.path(), &server, conversation.as_deref(), turn)?;
        conversation = conversation.or_else(|| outcome.conversation.clone());
        report.add(&outcome);
        println!("  turn {turn:>2}: {}", outcome.summary());
    }
    let checks = check_store(home.path(), args.turns).await?;
    let faults = injected.lock().map(|f| f.clone()).unwrap_or_default();
    report.print(
        args.turns,
        server.request_count(),
        &faults,
        &checks,
        started.elapsed(),
    );
    server.shutdown().await;
    if report.completed * 30 >= 28 * args.turns && checks.iter().all(|(_, ok)| *ok) {
        Ok(())
    } else {
        Err("the chaos target was not met".into())
    }
}

/// How one `smallebot run --json` ended.
struct TurnOutcome {
    conversation: Option<String>,
    completed: bool,
    error: Option<String>,
    retries: Vec<String>,
}

impl TurnOutcome {
    fn summary(&self) -> String {
        let retries = if self.retries.is_empty() {
            String::new()
        } else {
            format!(" after stream retries ({})", self.retries.join(", "))
        };
        match (&self.error, self.completed) {
            (_, true) => format!("completed{retries}"),
            (Some(error), false) => format!("FAILED{retries}: {error}"),
            (None, false) => format!("FAILED{retries}"),
        }
    }
}

fn run_turn(
    binary: &Path,
    home: &Path,
    server: &TestModel,
    conversation: Option<&str>,
    turn: usize,
) -> Result<TurnOutcome, String> {
    let mut command = Command::new(binary);
    command
        .arg("--home")
        .arg(home)
        .env("OPENAI_BASE_URL", server.base_url())
        .env("OPENAI_API_KEY", "chaos")
        .env("SMALLEBOT_MODEL", "chaos-model")
        .env_remove("SMALLEBOT_HOME")
        .args(["run", "--json"]);
    if let Some(id) = conversation {
        command.args(["--conversation", id]);
    }
    command.arg(format!("turn {turn}: what time is it?"));
    let output = command
        .output()
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    let mut outcome = TurnOutcome {
        conversation: None,
        completed: false,
        error: None,
        retries: Vec::new(),
    };
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let Ok(event) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        outcome.conversation = event["conversation_id"].as_str().map(str::to_owned);
        match event["type"].as_str() {
            Some("Retrying") => outcome
                .retries
                .push(event["reason"].as_str().unwrap_or("?").to_owned()),
            Some("TurnCompleted") => outcome.completed = true,
            Some("TurnFailed") => outcome.error = event["error"].as_str().map(str::to_owned),
            _ => {}
        }
    }
    if !output.status.success() && outcome.error.is_none() {
        outcome.error = Some(String::from_utf8_lossy(&output.stderr).trim().to_owned());
    }
    Ok(outcome)
}

/// Totals over the turns.
#[derive(Default)]
struct Report {
    completed: usize,
    failed_out_of_retries: usize,
    failed_otherwise: Vec<String>,
    retries_by_reason: BTreeMap<String, usize>,
}

impl Report {
    fn add(&mut self, outcome: &TurnOutcome) {
        for reason in &outcome.retries {
            *self.retries_by_reason.entry(reason.clone()).or_default() += 1;
        }
        if outcome.completed {
            self.completed += 1;
        } else if outcome
            .error
            .as_deref()
            .is_some_and(|e| e.contains("gave up after") || e.contains("attempts"))
        {
            self.failed_out_of_retries += 1;
        } else {
            self.failed_otherwise
                .push(outcome.error.clone().unwrap_or_default());
        }
    }

    fn print(
        &self,
        turns: usize,
        requests: usize,
        faults: &BTreeMap<&str, usize>,
        checks: &[(String, bool)],
        took: Duration,
    ) {
        let failed = turns - self.completed;
        println!("\nchaos results ({:.0} s)", took.as_secs_f64());
        println!("    completed    {} of {turns} turns", self.completed);
        println!(
            "    failed       {failed} ({} because retries ran out, {} otherwise)",
            self.failed_out_of_retries,
            self.failed_otherwise.len()
        );
        println!("    attempts     {requests} model requests");
        println!("    injected     {faults:?}");
        println!("    stream retries by reason {:?}", self.retries_by_reason);
        for (check, ok) in checks {
            println!(
                "    check        {check}: {}",
                if *ok { "ok" } else { "FAILED" }
            );
        }
        let met = self.completed * 30 >= 28 * turns && self.failed_otherwise.is_empty();
        println!(
            "    target       ≥ 28 of 30 turns complete, failures only from exhausted retries: {}",
            if met { "met" } else { "NOT met" }
        );
    }
}

/// What must hold in the store whatever the faults did.
async fn check_store(home: &Path, turns: usize) -> Result<Vec<(String, bool)>, String> {
    let store = smallebot_infrastructure::SqliteStore::open(&home.join("smallebot.db"))
        .await
        .map_err(|e| e.to_string())?;
    let pool = store.pool();
    let scalar = async |sql: &'static str| -> Result<i64, String> {
        sqlx::query_scalar::<_, i64>(sql)
            .fetch_one(pool)
            .await
            .map_err(|e| e.to_string())
    };
    let users = scalar("SELECT COUNT(*) FROM messages WHERE role = 'user'").await?;
    let duplicate_answers = scalar(
        "SELECT COUNT(*) FROM (SELECT turn_id, content FROM messages \
         WHERE role = 'assistant' AND content <> '' GROUP BY turn_id, content HAVING COUNT(*) > 1)",
    )
    .await?;
    let tools_twice = scalar(
        "SELECT COUNT(*) FROM (SELECT turn_id FROM tool_calls GROUP BY turn_id HAVING COUNT(*) > 1)",
    )
    .await?;
    let integrity: String = sqlx::query_scalar("PRAGMA integrity_check")
        .fetch_one(pool)
        .await
        .map_err(|e| e.to_string())?;
    store.close().await;
    Ok(vec![
        (
            format!("every user message stored ({users} of {turns})"),
            usize::try_from(users).is_ok_and(|u| u == turns),
        ),
        (
            format!("no duplicate answers ({duplicate_answers})"),
            duplicate_answers == 0,
        ),
        (
            format!("no tool executed twice ({tools_twice} turns with two)"),
            tools_twice == 0,
        ),
        (
            format!("PRAGMA integrity_check: {integrity}"),
            integrity == "ok",
        ),
    ])
}
