//! One compression of a ~100k-token history against the testkit.

use std::time::Instant;

use smallebot_testkit::ScriptedResponse;

use super::fixture::fill_conversation;
use super::harness::bench;
use super::{Figure, ms};

/// Time and token reduction of one compression.
pub async fn run() -> Result<Vec<Figure>, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let b = bench(dir.path(), 128_000).await?;
    b.server.respond_with(|_| {
        ScriptedResponse::text(format!(
            "## Summary\n{}",
            "The person and the agent worked on the build. ".repeat(40)
        ))
        .chunk_size(4000)
    });
    // ~100k tokens: 500 turns × 2 messages × ~100 tokens.
    let id = fill_conversation(b.store.pool(), "bench", 500, 95, 100).await?;
    let started = Instant::now();
    let report = b
        .service
        .compact(id, None)
        .await
        .map_err(|e| e.to_string())?;
    let took = started.elapsed();
    if !report.ok {
        return Err(format!("compression failed: {}", report.detail));
    }
    let requests = b.server.requests().len();
    b.store.close().await;
    Ok(vec![Figure {
        name: "compression of a ~100k-token history (zero-latency testkit summarizer)".into(),
        value: format!(
            "{} for {requests} summary request(s); context {} → {} tokens",
            ms(took),
            report.tokens_before,
            report.tokens_after
        ),
        baseline: format!("the history before: {} tokens", report.tokens_before),
        ratio: format!(
            "{:.1}× fewer tokens",
            report.tokens_before as f64 / report.tokens_after.max(1) as f64
        ),
        target: "the estimate drops; nothing is deleted".into(),
    }])
}
