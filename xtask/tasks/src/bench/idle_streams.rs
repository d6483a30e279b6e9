//! Idle event streams: many clients each holding a conversation's server-sent event
//! stream open while nothing happens (pages left open in tabs). What one costs the
//! server is its resident memory with all of them open, less before, per stream.

use std::time::Duration;

use futures::StreamExt;
use serde_json::Value;
use smallebot_testkit::TestModel;

use super::Figure;
use super::harness::release_binary;
use super::server::Server;

/// Streams held open at once.
const STREAMS: usize = 10_000;
/// Conversations they follow (several pages on one conversation are usual).
const CONVERSATIONS: usize = 100;
/// Streams being opened at once.
const OPENING: usize = 200;
/// The most a stream may cost the server, in KiB.
const TARGET_KIB: f64 = 2.0;

/// Opens [`STREAMS`] event streams and measures the server's memory per stream.
pub async fn run() -> Result<Vec<Figure>, String> {
    let binary = release_binary("the idle streams benchmark")?;
    let model = TestModel::start().await.map_err(|e| e.to_string())?;
    let home = tempfile::tempdir().map_err(|e| e.to_string())?;
    let server = Server::start(&binary, home.path(), &model.base_url()).await?;
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .map_err(|e| e.to_string())?;
    let mut ids = Vec::with_capacity(CONVERSATIONS);
    for _ in 0..CONVERSATIONS {
        let created: Value = http
            .post(format!("{}/api/conversations", server.base))
            .send()
            .await
            .map_err(|e| e.to_string())?
            .json()
            .await
            .map_err(|e| e.to_string())?;
        ids.push(created["id"].as_str().ok_or("no id")?.to_owned());
    }
    // Warm up: streams opened and closed once, so the allocator holds what they use.
    drop(open(&http, &server.base, &ids, OPENING).await?);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before = server.rss_kib().ok_or("cannot read the server's memory")?;
    let streams = open(&http, &server.base, &ids, STREAMS).await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = server.rss_kib().ok_or("cannot read the server's memory")?;
    let counted = metrics_subscribers(&http, &server.base).await;
    let held = streams.len();
    drop(streams);
    server.stop().await;
    model.shutdown().await;
    let per_stream = (after - before) / held as f64;
    Ok(vec![Figure {
        name: format!(
            "idle event streams ({held} open at once over {CONVERSATIONS} conversations)"
        ),
        value: format!(
            "{per_stream:.2} KiB of the server's resident memory per stream ({before:.0} → \
             {after:.0} KiB); /metrics counted {}",
            counted.map_or_else(|| "nothing".to_owned(), |n| format!("{n} subscribers"))
        ),
        baseline: format!("the server with {OPENING} streams opened and closed: {before:.0} KiB"),
        ratio: format!("{:.2}× the target", per_stream / TARGET_KIB),
        target: format!(
            "{STREAMS} streams held, ≤ {TARGET_KIB} KiB each: {}",
            if held == STREAMS && per_stream <= TARGET_KIB {
                "met"
            } else {
                "NOT met"
            }
        ),
    }])
}

/// Opens `count` event streams over `ids`, round robin, [`OPENING`] at a time; each
/// answered `200` and held (its body not read).
async fn open(
    http: &reqwest::Client,
    base: &str,
    ids: &[String],
    count: usize,
) -> Result<Vec<reqwest::Response>, String> {
    let opened: Vec<Result<reqwest::Response, String>> = futures::stream::iter(0..count)
        .map(|i| {
            let url = format!("{base}/api/conversations/{}/events", ids[i % ids.len()]);
            async move {
                let response = http.get(url).send().await.map_err(|e| e.to_string())?;
                if response.status().is_success() {
                    Ok(response)
                } else {
                    Err(format!("stream {i}: {}", response.status()))
                }
            }
        })
        .buffer_unordered(OPENING)
        .collect()
        .await;
    opened.into_iter().collect()
}

/// The server's own count of event-stream subscribers (`/metrics`).
async fn metrics_subscribers(http: &reqwest::Client, base: &str) -> Option<u64> {
    let text = http
        .get(format!("{base}/metrics"))
        .send()
        .await
        .ok()?
        .text()
        .await
        .ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("smallebot_sse_subscribers "))?
        .trim()
        .parse()
        .ok()
}
