//! The web server's Markdown rendering under hostile input: `POST /api/markdown` with
//! 100 000 nested `>`, 100 000 nested `<div>` and a megabyte of mixed Markdown and
//! HTML, two requests at once, while a client asks `/healthz` every 10 ms — how long
//! each render takes and how long the server takes to answer `/healthz` meanwhile.
//! The baseline is a usual 10 KB answer rendered the same way.
//!
//! The server is the release `smallebot serve` in its own process.

use std::cell::Cell;
use std::time::{Duration, Instant};

use super::harness::release_binary;
use super::server::Server;
use super::{Figure, median, ms};

/// Nesting levels of the bombs.
const LEVELS: usize = 100_000;
/// Renders of each input measured (each run is two requests at once).
const RUNS: usize = 3;
/// How often `/healthz` is asked while renders run.
const PROBE_EVERY: Duration = Duration::from_millis(10);

/// The inputs: name and body.
fn inputs() -> Vec<(&'static str, String)> {
    let chunk = "> **quoted** & <div>*x*</div>\n- [link](https://example.com) `c` 90°\n\n\
                 | a | b |\n|---|---|\n| <span>1</span> | 2 |\n\n";
    let mut mixed = String::new();
    while mixed.len() < 1_000_000 {
        mixed.push_str(chunk);
    }
    vec![
        ("100 000 nested `>`", format!("{} deep", ">".repeat(LEVELS))),
        (
            "100 000 nested `<div>`",
            format!("{}inside", "<div>".repeat(LEVELS)),
        ),
        ("1 MB of mixed Markdown and HTML", mixed),
    ]
}

/// A usual answer of about 10 KB: paragraphs, a list, code, a table.
fn usual_answer() -> String {
    let section = "## A section\n\nSome **bold** text with `code` and a [link](https://example.com).\n\n\
                   1. one\n2. two\n   - nested\n\n```rust\nfn main() {}\n```\n\n\
                   | a | b |\n|---|---|\n| 1 | 2 |\n\n> a quote\n\n";
    section.repeat(10_000 / section.len() + 1)
}

/// One render: how long `POST /api/markdown` took, or what went wrong.
async fn render(http: &reqwest::Client, base: &str, body: &str) -> Result<Duration, String> {
    let started = Instant::now();
    let response = http
        .post(format!("{base}/api/markdown"))
        .header("content-type", "text/plain; charset=utf-8")
        .body(body.to_owned())
        .send()
        .await
        .map_err(|e| format!("render: {e}"))?;
    let status = response.status();
    let html = response.text().await.map_err(|e| format!("render: {e}"))?;
    if !status.is_success() {
        return Err(format!("render answered {status}: {html:.200}"));
    }
    Ok(started.elapsed())
}

/// Two renders of `body` at once while `/healthz` is asked every [`PROBE_EVERY`]:
/// the slower render's time and the slowest `/healthz` answer.
async fn under_probe(
    http: &reqwest::Client,
    base: &str,
    body: &str,
) -> Result<(Duration, Duration), String> {
    let done = Cell::new(false);
    let renders = async {
        let (a, b) = tokio::join!(render(http, base, body), render(http, base, body));
        done.set(true);
        Ok::<_, String>(a?.max(b?))
    };
    // Asks until both renders have answered (both run on this task: a `Cell` will do).
    let probe = async {
        let mut worst = Duration::ZERO;
        while !done.get() {
            let started = Instant::now();
            let answered = http
                .get(format!("{base}/healthz"))
                .send()
                .await
                .map_err(|e| format!("/healthz: {e}"))?;
            if !answered.status().is_success() {
                return Err(format!("/healthz answered {}", answered.status()));
            }
            worst = worst.max(started.elapsed());
            tokio::time::sleep(PROBE_EVERY).await;
        }
        Ok(worst)
    };
    let (slowest, worst) = tokio::join!(renders, probe);
    Ok((slowest?, worst?))
}

/// Measures each input (median of [`RUNS`]) and the usual answer.
pub async fn run() -> Result<Vec<Figure>, String> {
    let binary = release_binary("the markdown benchmark")?;
    let home = tempfile::tempdir().map_err(|e| e.to_string())?;
    // No turn runs: the model is never asked.
    let server = Server::start(&binary, home.path(), "http://127.0.0.1:9").await?;
    let http = reqwest::Client::new();
    let usual = usual_answer();
    let mut alone = Vec::new();
    for _ in 0..RUNS {
        alone.push(render(&http, &server.base, &usual).await?);
    }
    let baseline = median(alone);
    let mut figures = Vec::new();
    for (name, body) in inputs() {
        let mut times = Vec::new();
        let mut probes = Vec::new();
        for _ in 0..RUNS {
            let (time, probe) = under_probe(&http, &server.base, &body).await?;
            times.push(time);
            probes.push(probe);
        }
        let (time, probe) = (median(times), probes.into_iter().max().unwrap_or_default());
        let met = time <= Duration::from_secs(1) && probe <= Duration::from_millis(50);
        figures.push(Figure {
            name: format!(
                "web Markdown rendering of {name} ({} KB), two requests at once",
                body.len() / 1000
            ),
            value: format!(
                "the slower of the two answered in {} (median of {RUNS} runs); /healthz \
                 meanwhile (asked every {} ms): slowest {}",
                ms(time),
                PROBE_EVERY.as_millis(),
                ms(probe)
            ),
            baseline: format!(
                "a usual {} KB answer alone: {}",
                usual.len() / 1000,
                ms(baseline)
            ),
            ratio: format!(
                "{:.1}× the usual answer for {:.0}× its size",
                time.as_secs_f64() / baseline.as_secs_f64().max(1e-9),
                body.len() as f64 / usual.len() as f64
            ),
            target: format!(
                "answered within 1 s, /healthz within 50 ms: {}",
                if met { "met" } else { "NOT met" }
            ),
        });
    }
    server.stop().await;
    Ok(figures)
}
