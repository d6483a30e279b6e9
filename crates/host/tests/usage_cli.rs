//! `smallebot usage` through the real binary: every model request — turns, a
//! sub-agent's, titles, a compression's summary — is recorded with the tokens the
//! provider reported, and `usage --json` gives the exact sums and costs those requests
//! imply, per model and per user.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;
mod subagents_support;

use std::path::Path;
use std::sync::{Arc, Mutex};

use cli::text;
use serde_json::{Value, json};
use smallebot_testkit::{RecordedRequest, ScriptedResponse, TestModel};
use subagents_support::{agent_file, delegate, of_agent};

/// Tokens a request reported: prompt, cached, completion, reasoning.
type Tokens = (u64, u64, u64, u64);

/// Prices of models.json, per million tokens: input, cached input, output.
const PRICES: (i64, i64, i64) = (2, 1, 8);

/// The tokens the scripted model reports for a request, made from the request itself
/// (so that every request reports different counts): prompt, cached, completion,
/// reasoning.
fn reported(request: &RecordedRequest) -> Tokens {
    let n = request.messages().len() as u64;
    let chars: u64 = request
        .messages()
        .iter()
        .map(|m| smallebot_testkit::message_text(m).len() as u64)
        .sum();
    (1000 + chars, 100 + n, 40 + n, n % 3)
}

/// What a request reporting `tokens` costs, in picos (prices per million tokens are
/// picos per token × 10⁶ … i.e. `price × 10⁶` picos per token).
fn cost((prompt, cached, completion, _): Tokens) -> i64 {
    let per_token = |price: i64| price * 1_000_000;
    let (input, cached_input, output) = PRICES;
    (prompt - cached) as i64 * per_token(input)
        + cached as i64 * per_token(cached_input)
        + completion as i64 * per_token(output)
}

fn is_summary(request: &RecordedRequest) -> bool {
    request
        .last_user_text()
        .is_some_and(|t| t.contains("## Conversation to summarize"))
}

/// A home with models.json (one priced model at `base`), a small window that long
/// turns fill, and the `helper` agent.
fn home(base: &str) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let (input, cached, output) = PRICES;
    let models = json!({
        "default": "big",
        "models": [{
            "id": "big", "baseUrl": base, "model": "scripted", "contextWindow": 5500,
            "pricing": {"inputPerMTok": input, "cachedInputPerMTok": cached,
                        "outputPerMTok": output, "currency": "USD"}
        }]
    });
    std::fs::write(home.path().join("models.json"), models.to_string()).unwrap();
    let agents = home.path().join("agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(agents.join("helper.md"), agent_file("helper", "ListFiles")).unwrap();
    std::fs::create_dir_all(home.path().join("workspace")).unwrap();
    home
}

async fn run(home: &Path, base: Option<&str>, args: &[&str]) -> std::process::Output {
    cli::smallebot(home, base)
        .args(args)
        .output()
        .await
        .unwrap()
}

/// The expected JSON group of `requests`: their count, token sums and cost.
fn expected(key: &str, requests: &[Tokens]) -> Value {
    let sum = |f: fn(&Tokens) -> u64| requests.iter().map(f).sum::<u64>();
    let picos: i64 = requests.iter().copied().map(cost).sum();
    json!({
        "key": key,
        "requests": requests.len(),
        "prompt_tokens": sum(|t| t.0),
        "cached_prompt_tokens": sum(|t| t.1),
        "completion_tokens": sum(|t| t.2),
        "reasoning_tokens": sum(|t| t.3),
        "cost": {"USD": {"amount": picos as f64 / 1e12, "picos": picos}},
        "unpriced_requests": 0,
        "refused_requests": 0,
    })
}

#[tokio::test]
async fn usage_json_sums_every_request_per_model_and_per_user() {
    let model = TestModel::start().await.unwrap();
    let base = model.base_url();
    let home = home(&base);
    // Each request answered with usage made from it; who asked is noted in order.
    let seen: Arc<Mutex<Vec<Tokens>>> = Arc::default();
    let log = Arc::clone(&seen);
    model.respond_with(move |r| {
        let tokens = reported(r);
        log.lock().unwrap().push(tokens);
        let (prompt, cached, completion, reasoning) = tokens;
        let response = if r.asks_for_title() {
            ScriptedResponse::text("A title")
        } else if is_summary(r) {
            ScriptedResponse::text("SUMMARY of the early turns")
        } else if of_agent(r, "helper") {
            if r.last_role() == Some("tool") {
                ScriptedResponse::text("helper saw the files")
            } else {
                ScriptedResponse::tool_calls([smallebot_testkit::ToolCallSpec::new(
                    "h1",
                    "ListFiles",
                    "{}",
                )])
            }
        } else if r
            .last_user_text()
            .is_some_and(|t| t.starts_with("Delegate"))
            && r.last_role() == Some("user")
        {
            ScriptedResponse::tool_calls([delegate("d1", "helper", "List files.", "list files")])
        } else {
            ScriptedResponse::text("ok")
        };
        response.usage_detailed(prompt, cached, completion, reasoning)
    });
    // ann: a turn with a sub-agent, then long turns until one is compressed first.
    let first = run(
        home.path(),
        None,
        &["run", "--user", "ann", "Delegate the listing."],
    )
    .await;
    assert!(first.status.success(), "{}", text(&first.stderr));
    let listed = text(
        &run(
            home.path(),
            None,
            &["conversations", "list", "--user", "ann"],
        )
        .await
        .stdout,
    );
    let id = listed.split_whitespace().next().unwrap().to_owned();
    let long = "words ".repeat(300);
    let mut compressed = false;
    for i in 0..12 {
        let prompt = format!("turn {i} {long}");
        let out = run(
            home.path(),
            None,
            &["run", "--user", "ann", "--conversation", &id, &prompt],
        )
        .await;
        assert!(out.status.success(), "{}", text(&out.stderr));
        if model.requests().iter().any(is_summary) {
            compressed = true;
            break;
        }
    }
    assert!(compressed, "a turn was compressed first");
    assert!(model.requests().iter().any(|r| of_agent(r, "helper")));
    let ann: Vec<_> = seen.lock().unwrap().clone();
    // bob: one turn of his own.
    let out = run(home.path(), None, &["run", "--user", "bob", "Hello"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let all: Vec<_> = seen.lock().unwrap().clone();
    let bob = &all[ann.len()..];
    // run's last line says what the turn (its title included) and its conversation
    // cost.
    let bob_picos: i64 = bob.iter().copied().map(cost).sum();
    let shown = |picos: i64| {
        format!(
            "{}.{:06} USD",
            picos / 1_000_000_000_000,
            picos % 1_000_000_000_000 / 1_000_000
        )
    };
    let line = format!(
        "cost: this turn {} ({} requests) · this conversation {} ({} requests)",
        shown(bob_picos),
        bob.len(),
        shown(bob_picos),
        bob.len()
    );
    assert!(
        text(&out.stderr).contains(&line),
        "{line} in {}",
        text(&out.stderr)
    );
    assert_eq!(model.requests().len(), all.len());

    let report = |args: &[&str]| {
        let mut full = vec!["usage", "--json"];
        full.extend_from_slice(args);
        let home = home.path().to_owned();
        let full: Vec<String> = full.into_iter().map(str::to_owned).collect();
        async move {
            let out = run(
                &home,
                None,
                &full.iter().map(String::as_str).collect::<Vec<_>>(),
            )
            .await;
            assert!(out.status.success(), "{}", text(&out.stderr));
            serde_json::from_str::<Value>(&text(&out.stdout)).unwrap()
        }
    };
    let by_model = report(&[]).await;
    assert_eq!(by_model["groups"], json!([expected("big", &all)]));
    assert_eq!(by_model["total"], expected("total", &all));
    let by_user = report(&["--by", "user"]).await;
    assert_eq!(
        by_user["groups"],
        json!([expected("ann", &ann), expected("bob", bob)])
    );
    let only_bob = report(&["--user", "bob"]).await;
    assert_eq!(only_bob["total"], expected("total", bob));

    // The table says the same for people.
    let table = text(
        &run(home.path(), None, &["usage", "--by", "user"])
            .await
            .stdout,
    );
    let line = table.lines().find(|l| l.starts_with("bob")).unwrap();
    assert!(line.ends_with(&shown(bob_picos)), "{table}");
}
