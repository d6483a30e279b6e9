//! `real-model [--json] [--server URL]`: the release binary against a real one-slot
//! `llama-server` with Gemma 3 270M (see `server.rs`), through a fixed set of turns — a
//! short answer, a long one that meets the output limit, a second turn, a five-turn
//! conversation that asks for tool calls and goes over the compression threshold (the
//! model itself writes the summaries) — and a report: wall time, retries, prompt and cached tokens, whether each answer stayed
//! within `maxOutputTokens`, compressions. Without a server, model or the means to
//! build them it prints one line saying why and exits 0. Too slow for CI on two cores.

mod server;

use std::path::PathBuf;
use std::time::Instant;

use serde_json::{Value, json};

use server::Unavailable;

/// The output bound of the runs.
const MAX_OUTPUT_TOKENS: u64 = 128;
/// The one slot's context.
const CONTEXT: u32 = 4096;
/// The port the task's own server listens on.
const PORT: u16 = 18_431;

/// Arguments of `real-model`.
#[derive(Debug, clap::Args)]
pub struct RealModelArgs {
    /// Print the report as one JSON object.
    #[arg(long)]
    json: bool,
    /// Run against this already running llama.cpp server (its `/v1` base URL) instead
    /// of building and starting one.
    #[arg(long)]
    server: Option<String>,
}

/// One turn as measured.
struct Turn {
    name: String,
    conversation: String,
    seconds: f64,
    exit_code: i32,
    retries: usize,
    /// (prompt tokens, cached tokens) the server reported, per request.
    requests: Vec<(u64, u64)>,
    answer_tokens: u64,
    cut: Option<String>,
    compressions: Vec<Value>,
    warnings: Vec<String>,
}

impl Turn {
    fn json(&self) -> Value {
        json!({
            "name": self.name,
            "seconds": (self.seconds * 10.0).round() / 10.0,
            "exit_code": self.exit_code,
            "retries": self.retries,
            "requests": self.requests.iter().map(|(p, c)| json!({"prompt_tokens": p, "cached_tokens": c})).collect::<Vec<_>>(),
            "answer_tokens": self.answer_tokens,
            "within_output_bound": self.answer_tokens <= MAX_OUTPUT_TOKENS,
            "cut": self.cut,
            "compressions": self.compressions,
            "warnings": self.warnings,
        })
    }
}

/// Runs the task.
pub async fn run(args: RealModelArgs) -> Result<(), String> {
    let binary = crate::smallebot_binary("real-model")?;
    match measure(&args, binary).await {
        Ok(report) if args.json => {
            println!("{report}");
            Ok(())
        }
        Ok(report) => {
            print_report(&report);
            Ok(())
        }
        Err(Unavailable(why)) => {
            println!("real-model: skipped: {why}");
            Ok(())
        }
    }
}

async fn measure(args: &RealModelArgs, binary: PathBuf) -> Result<Value, Unavailable> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/real-model");
    let (_server, base_url) = match &args.server {
        Some(url) => {
            let root = url.trim_end_matches('/').trim_end_matches("/v1");
            server::wait_healthy(root, std::time::Duration::from_secs(5)).await?;
            (None, url.clone())
        }
        None => {
            let prepared = server::prepare(&dir)?;
            let server = server::start(&prepared, PORT, CONTEXT, &dir.join("server.log")).await?;
            let url = server.base_url.clone();
            (Some(server), url)
        }
    };
    let home = tempfile::tempdir().map_err(|e| Unavailable(format!("no temp dir: {e}")))?;
    let models = json!({"default": "local", "models": [
        {"id": "local", "baseUrl": base_url, "model": "gemma",
         "maxOutputTokens": MAX_OUTPUT_TOKENS}
    ]});
    std::fs::write(home.path().join("models.json"), models.to_string())
        .map_err(|e| Unavailable(format!("cannot write models.json: {e}")))?;
    let runner = Runner {
        binary,
        home: home.path().to_owned(),
        base_url,
    };
    let mut turns = Vec::new();
    let first = runner
        .turn("short answer", "Say hello in French", None, None)
        .await?;
    let greeting = first.conversation.clone();
    turns.push(first);
    turns.push(
        runner
            .turn(
                "long answer",
                "Write a very long story about a dragon and a knight.",
                None,
                None,
            )
            .await?,
    );
    turns.push(
        runner
            .turn("second turn", "And in Spanish?", Some(&greeting), None)
            .await?,
    );
    let prompts = [
        "What time is it? Use the GetCurrentTime tool.",
        "List the files here with ListDirectory.",
        "Thanks. What is 2 + 2?",
        "Check the time again with GetCurrentTime.",
        "Say goodbye in German.",
    ];
    let mut conversation: Option<String> = None;
    for (i, prompt) in prompts.iter().enumerate() {
        let turn = runner
            .turn(
                &format!("tools {}", i + 1),
                prompt,
                conversation.as_deref(),
                None,
            )
            .await?;
        conversation = Some(turn.conversation.clone());
        turns.push(turn);
    }
    // SmallEBot's own prompt (instructions and tool schemas) fills most of a 4096-token
    // slot, so the five-turn conversation goes over the compression threshold: the
    // model itself writes the summaries, and the checks accept or refuse them.
    let compressions: Vec<&Value> = turns.iter().flat_map(|t| &t.compressions).collect();
    // The cached share: prompt tokens after the first request of the five-turn
    // conversation that the server took from its cache.
    let after_first: Vec<(u64, u64)> = turns[3..3 + prompts.len()]
        .iter()
        .flat_map(|t| t.requests.iter().copied())
        .skip(1)
        .collect();
    let prompt: u64 = after_first.iter().map(|(p, _)| p).sum();
    let cached: u64 = after_first.iter().map(|(_, c)| c).sum();
    let share = if prompt == 0 {
        0.0
    } else {
        cached as f64 / prompt as f64
    };
    let retries: usize = turns.iter().map(|t| t.retries).sum();
    Ok(json!({
        "server": runner.base_url,
        "max_output_tokens": MAX_OUTPUT_TOKENS,
        "retries": retries,
        "output_bound_held": turns.iter().all(|t| t.answer_tokens <= MAX_OUTPUT_TOKENS),
        "five_turn_cached_share": (share * 1000.0).round() / 1000.0,
        "five_turn_prompt_tokens_after_first": prompt,
        "five_turn_cached_tokens_after_first": cached,
        "compressions": compressions.len(),
        "compressions_stored": compressions.iter().filter(|c| c["ok"] == true).count(),
        "turns": turns.iter().map(Turn::json).collect::<Vec<_>>(),
    }))
}

/// Runs turns through the binary.
struct Runner {
    binary: PathBuf,
    home: PathBuf,
    base_url: String,
}

impl Runner {
    async fn turn(
        &self,
        name: &str,
        prompt: &str,
        conversation: Option<&str>,
        model: Option<&str>,
    ) -> Result<Turn, Unavailable> {
        let mut command = tokio::process::Command::new(&self.binary);
        command
            .arg("--home")
            .arg(&self.home)
            .args(["run", "--json"]);
        if let Some(id) = conversation {
            command.args(["--conversation", id]);
        }
        if let Some(model) = model {
            command.env("SMALLEBOT_MODEL", model);
        }
        command.arg(prompt);
        let started = Instant::now();
        let output = command
            .output()
            .await
            .map_err(|e| Unavailable(format!("cannot run {}: {e}", self.binary.display())))?;
        let seconds = started.elapsed().as_secs_f64();
        let events: Vec<Value> = String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect();
        let of = |kind: &'static str| events.iter().filter(move |e| e["type"] == kind);
        let answer = of("TurnCompleted")
            .next_back()
            .and_then(|e| e["text"].as_str())
            .unwrap_or_default()
            .to_owned();
        Ok(Turn {
            name: name.to_owned(),
            conversation: events
                .first()
                .and_then(|e| e["conversation_id"].as_str())
                .unwrap_or_default()
                .to_owned(),
            seconds,
            exit_code: output.status.code().unwrap_or(-1),
            retries: of("Retrying").count(),
            requests: of("ContextUsage")
                .filter_map(|e| Some((e["reported"].as_u64()?, e["cached"].as_u64().unwrap_or(0))))
                .collect(),
            answer_tokens: self.tokens(&answer).await,
            cut: of("TurnCompleted")
                .next_back()
                .and_then(|e| e["cut"].as_str())
                .map(str::to_owned),
            compressions: of("CompressionCompleted").cloned().collect(),
            warnings: of("Warning")
                .filter_map(|e| e["message"].as_str().map(str::to_owned))
                .chain(of("TurnFailed").filter_map(|e| e["error"].as_str().map(str::to_owned)))
                .collect(),
        })
    }

    /// The tokens of `text` as the server counts them (its `/tokenize`).
    async fn tokens(&self, text: &str) -> u64 {
        let root = self.base_url.trim_end_matches('/').trim_end_matches("/v1");
        let answer = reqwest::Client::new()
            .post(format!("{root}/tokenize"))
            .json(&json!({ "content": text }))
            .send()
            .await;
        match answer {
            Ok(response) => response
                .json::<Value>()
                .await
                .ok()
                .and_then(|v| v["tokens"].as_array().map(|t| t.len() as u64))
                .unwrap_or(0),
            Err(_) => 0,
        }
    }
}

fn print_report(report: &Value) {
    println!("real-model against {}", report["server"]);
    if let Some(turns) = report["turns"].as_array() {
        for t in turns {
            let requests = t["requests"].as_array().map_or(0, Vec::len);
            println!(
                "  {:<16} {:>6.1} s  exit {}  retries {}  requests {}  answer {} tokens{}{}",
                t["name"].as_str().unwrap_or_default(),
                t["seconds"].as_f64().unwrap_or_default(),
                t["exit_code"],
                t["retries"],
                requests,
                t["answer_tokens"],
                t["cut"]
                    .as_str()
                    .map(|c| format!(" (cut: {c})"))
                    .unwrap_or_default(),
                match t["compressions"].as_array().map_or(0, Vec::len) {
                    0 => String::new(),
                    n => format!("  compressions {n}"),
                },
            );
        }
    }
    println!(
        "  compressions {} ({} stored)",
        report["compressions"], report["compressions_stored"]
    );
    println!(
        "  retries {}  output bound ({} tokens) held: {}  cached share over the five-turn conversation: {:.1} % ({} of {} prompt tokens after the first request)",
        report["retries"],
        report["max_output_tokens"],
        report["output_bound_held"],
        report["five_turn_cached_share"]
            .as_f64()
            .unwrap_or_default()
            * 100.0,
        report["five_turn_cached_tokens_after_first"],
        report["five_turn_prompt_tokens_after_first"],
    );
}
