//! Host overhead per turn with three tool calls against a zero-latency model.

use std::time::{Duration, Instant};

use smallebot_application::SendOptions;
use smallebot_testkit::{ScriptedResponse, ToolCallSpec};

use super::harness::bench;
use super::{Figure, median, ms};

const TURNS: usize = 40;

/// Measures whole turns and, as the baseline, the same model requests sent raw.
pub async fn run() -> Result<Vec<Figure>, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let b = bench(dir.path(), 128_000).await?;
    b.server.respond_with(|req| {
        let since_user = req
            .messages()
            .iter()
            .rev()
            .take_while(|m| m["role"] != "user")
            .filter(|m| m["role"] == "tool")
            .count();
        if since_user < 3 {
            ScriptedResponse::tool_calls([ToolCallSpec::new(
                format!("call_{}", req.index),
                "GetCurrentTime",
                "{}",
            )])
            .chunk_size(1000)
        } else {
            ScriptedResponse::text("Done: three tool calls.").chunk_size(1000)
        }
    });
    let conversation = b
        .service
        .create_conversation("bench")
        .await
        .map_err(|e| e.to_string())?;
    let mut turns = Vec::with_capacity(TURNS);
    for i in 0..TURNS {
        let started = Instant::now();
        let outcome = b
            .service
            .send(
                conversation.id,
                &format!("turn {i}: call the tool three times"),
                SendOptions::default(),
            )
            .await
            .map_err(|e| e.to_string())?;
        turns.push(started.elapsed());
        if outcome.status != smallebot_core::entities::TurnStatus::Completed {
            return Err(format!("benchmark turn failed: {:?}", outcome.error));
        }
    }
    // Baseline: each turn's own four requests (history grows, so bodies do), sent raw
    // over HTTP; the overhead is the median of turn − raw over the turns.
    let recorded = b.server.requests();
    if recorded.len() != TURNS * 4 {
        return Err(format!(
            "expected 4 model requests per turn, the model saw {} for {TURNS} turns",
            recorded.len()
        ));
    }
    let client = reqwest::Client::new();
    let url = format!("{}/chat/completions", b.server.base_url());
    let mut raw = Vec::with_capacity(TURNS);
    for requests in recorded.chunks(4) {
        let started = Instant::now();
        for request in requests {
            let response = client
                .post(&url)
                .json(&request.body)
                .send()
                .await
                .map_err(|e| e.to_string())?;
            let _ = response.bytes().await.map_err(|e| e.to_string())?;
        }
        raw.push(started.elapsed());
    }
    let overheads: Vec<Duration> = turns
        .iter()
        .zip(&raw)
        .map(|(turn, raw)| turn.saturating_sub(*raw))
        .collect();
    let overhead = median(overheads);
    let turn = median(turns);
    let baseline = median(raw);
    b.store.close().await;
    Ok(vec![Figure {
        name: "host overhead per turn (3 tool calls, zero-latency testkit model)".into(),
        value: format!("turn {} (median of {TURNS})", ms(turn)),
        baseline: format!(
            "each turn's own 4 model requests sent raw: {} (median)",
            ms(baseline)
        ),
        ratio: format!(
            "overhead {} = median over turns of (turn − its raw requests); turn/raw {:.2}×",
            ms(overhead),
            turn.as_secs_f64() / baseline.as_secs_f64().max(1e-9)
        ),
        target: format!(
            "≤ 2 ms overhead: {}",
            if overhead <= Duration::from_millis(2) {
                "met"
            } else {
                "NOT met"
            }
        ),
    }])
}
