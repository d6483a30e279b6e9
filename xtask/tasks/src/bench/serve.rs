//! The web server under load: many conversations at once, each a turn with three tool
//! calls against a testkit model that takes 50 ms per response, every turn followed
//! over its server-sent event stream by its own client.
//!
//! The server is the release `smallebot serve` in its own process (so its peak RSS is
//! its own). The latency of a turn is the time from the model's last byte of the
//! turn's final answer (the testkit notes when it sent it whole) to the client
//! receiving `TurnCompleted`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::{Value, json};
use smallebot_application::pipeline::TITLE_INSTRUCTION;
use smallebot_testkit::{ScriptedResponse, TestModel, ToolCallSpec, message_text};

use super::Figure;
use super::harness::release_binary;
use super::server::Server;

/// Conversations at once.
const CONVERSATIONS: usize = 2000;
/// The model's time per response.
const MODEL_DELAY: Duration = Duration::from_millis(50);
/// Longest a turn may take before it counts as an error.
const TURN_TIMEOUT: Duration = Duration::from_secs(120);

/// Which request asked for each conversation's final answer, by its user message.
type Arrivals = Arc<Mutex<HashMap<String, usize>>>;

/// Runs the load and its single-conversation baseline.
pub async fn run() -> Result<Vec<Figure>, String> {
    let binary = release_binary("the serve benchmark")?;
    let model = TestModel::start().await.map_err(|e| e.to_string())?;
    let arrivals: Arrivals = Arc::default();
    script(&model, Arc::clone(&arrivals));
    let home = tempfile::tempdir().map_err(|e| e.to_string())?;
    let server = Server::start(&binary, home.path(), &model.base_url()).await?;
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(CONVERSATIONS * 2)
        .build()
        .map_err(|e| e.to_string())?;

    // Baseline: ten turns one after another, nothing else running.
    let mut alone = Vec::new();
    for i in 0..10 {
        let key = format!("baseline conversation {i}");
        let (received, _) = one_turn(&http, &server.base, &key).await?;
        alone.push(latency(&model, &arrivals, &key, received)?);
    }

    // The load: every conversation at once.
    let cpu_before = server.cpu_seconds();
    let started = Instant::now();
    let mut clients = tokio::task::JoinSet::new();
    for i in 0..CONVERSATIONS {
        let http = http.clone();
        let base = server.base.clone();
        clients.spawn(async move {
            let key = format!("load conversation {i}");
            let received = one_turn(&http, &base, &key).await;
            (key, received)
        });
    }
    let mut latencies = Vec::with_capacity(CONVERSATIONS);
    let mut answered = Vec::with_capacity(CONVERSATIONS);
    let mut errors = Vec::new();
    while let Some(joined) = clients.join_next().await {
        match joined {
            Ok((key, Ok((received, accepted)))) => {
                answered.push(accepted);
                match latency(&model, &arrivals, &key, received) {
                    Ok(l) => latencies.push(l),
                    Err(e) => errors.push(e),
                }
            }
            Ok((key, Err(e))) => errors.push(format!("{key}: {e}")),
            Err(e) => errors.push(format!("a client task failed: {e}")),
        }
    }
    let wall = started.elapsed();
    let peak_rss_mb = server.peak_rss_mb();
    let cpu = server
        .cpu_seconds()
        .zip(cpu_before)
        .map(|(after, before)| after - before);
    server.stop().await;
    model.shutdown().await;

    if let Some(first) = errors.first() {
        eprintln!("first error of {}: {first}", errors.len());
    }
    let (p50, p99) = (percentile(&latencies, 50), percentile(&latencies, 99));
    let base50 = percentile(&alone, 50);
    let met = errors.is_empty()
        && p99 <= Duration::from_millis(50)
        && peak_rss_mb.is_some_and(|mb| mb <= 250.0);
    Ok(vec![Figure {
        name: format!(
            "web server under load ({CONVERSATIONS} conversations at once, 3 tool calls each, \
             {} ms per model response, every turn followed over SSE)",
            MODEL_DELAY.as_millis()
        ),
        value: format!(
            "errors {}; model's last byte → client has TurnCompleted: p50 {}, p99 {}; \
             message sent → 202 (the turn stored): p50 {}, p99 {}; \
             peak RSS of the server {}; all turns done in {:.1} s; server CPU {}",
            errors.len(),
            super::ms(p50),
            super::ms(p99),
            super::ms(percentile(&answered, 50)),
            super::ms(percentile(&answered, 99)),
            peak_rss_mb.map_or_else(|| "unknown".to_owned(), |mb| format!("{mb:.0} MB")),
            wall.as_secs_f64(),
            cpu.map_or_else(
                || "unknown".to_owned(),
                |s| format!(
                    "{s:.2} s ({:.2} ms per turn)",
                    s * 1000.0 / CONVERSATIONS as f64
                )
            )
        ),
        baseline: format!(
            "the same turn alone (10 in a row): p50 {}",
            super::ms(base50)
        ),
        ratio: format!(
            "p99 under load / p50 alone: {:.1}×",
            p99.as_secs_f64() / base50.as_secs_f64().max(1e-9)
        ),
        target: format!(
            "0 errors, p99 ≤ 50 ms, peak RSS ≤ 250 MB: {}",
            if met { "met" } else { "NOT met" }
        ),
    }])
}

/// Tool calls until three results follow the user message, then the answer; titles
/// get a title. Every response takes [`MODEL_DELAY`].
fn script(model: &TestModel, arrivals: Arrivals) {
    model.respond_with(move |req| {
        let messages = req.messages();
        let text: String = messages.iter().map(message_text).collect();
        if text.contains(TITLE_INSTRUCTION) {
            return ScriptedResponse::text("Bench").delay_before(MODEL_DELAY);
        }
        let results = req.tool_results_since_user();
        if results < 3 {
            return ScriptedResponse::tool_calls([ToolCallSpec::new(
                format!("call_{}", req.index),
                "GetCurrentTime",
                "{}",
            )])
            .delay_before(MODEL_DELAY);
        }
        if let (Some(user), Ok(mut arrivals)) = (req.last_user_text(), arrivals.lock()) {
            arrivals.insert(user, req.index);
        }
        ScriptedResponse::text("Done: three tool calls.")
            .chunk_size(1000)
            .delay_before(MODEL_DELAY)
    });
}

/// The turn's latency: received − when the model sent its final answer whole.
fn latency(
    model: &TestModel,
    arrivals: &Arrivals,
    key: &str,
    received: Instant,
) -> Result<Duration, String> {
    let index = arrivals
        .lock()
        .map_err(|_| "the arrival table is poisoned".to_owned())?
        .get(key)
        .copied()
        .ok_or_else(|| format!("{key}: the model never saw its final request"))?;
    let sent = model
        .sent_at(index)
        .ok_or_else(|| format!("{key}: the model never finished its final answer"))?;
    Ok(received.saturating_duration_since(sent))
}

/// One conversation: create it, follow its events, send the message; returns when the
/// client received `TurnCompleted`, and how long the send took to be answered.
async fn one_turn(
    http: &reqwest::Client,
    base: &str,
    text: &str,
) -> Result<(Instant, Duration), String> {
    tokio::time::timeout(TURN_TIMEOUT, async {
        let created: Value = http
            .post(format!("{base}/api/conversations"))
            .send()
            .await
            .map_err(|e| format!("create: {e}"))?
            .json()
            .await
            .map_err(|e| format!("create: {e}"))?;
        let id = created["id"]
            .as_str()
            .ok_or_else(|| format!("create answered {created}"))?
            .to_owned();
        let events = http
            .get(format!("{base}/api/conversations/{id}/events"))
            .send()
            .await
            .map_err(|e| format!("events: {e}"))?;
        if !events.status().is_success() {
            return Err(format!("events: {}", events.status()));
        }
        let sending = Instant::now();
        let sent = http
            .post(format!("{base}/api/conversations/{id}/messages"))
            .json(&json!({ "text": text }))
            .send()
            .await
            .map_err(|e| format!("send: {e}"))?;
        if sent.status() != reqwest::StatusCode::ACCEPTED {
            return Err(format!("send: {}", sent.status()));
        }
        let accepted = sending.elapsed();
        let mut bytes = events.bytes_stream();
        let mut buffer = String::new();
        while let Some(chunk) = bytes.next().await {
            let chunk = chunk.map_err(|e| format!("events: {e}"))?;
            buffer.push_str(&String::from_utf8_lossy(&chunk));
            if buffer.contains("\"type\":\"TurnCompleted\"") {
                return Ok((Instant::now(), accepted));
            }
            if buffer.contains("\"type\":\"TurnFailed\"") {
                return Err(format!("the turn failed: {buffer}"));
            }
            // Keep only the tail that may hold a partial frame.
            if let Some(end) = buffer.rfind("\n\n") {
                buffer.drain(..end);
            }
        }
        Err("the event stream ended before TurnCompleted".to_owned())
    })
    .await
    .map_err(|_| format!("no TurnCompleted within {} s", TURN_TIMEOUT.as_secs()))?
}

/// The `p`th percentile.
fn percentile(samples: &[Duration], p: usize) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort();
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = (sorted.len() * p).div_ceil(100).clamp(1, sorted.len());
    sorted[rank - 1]
}
