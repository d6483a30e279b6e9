//! The page in headless Chromium against the release `smallebot serve` and a testkit
//! model that answers at once: the first paint of the page, a stored conversation of
//! 200 turns opened by its address until it can be used, and a streamed 100 KB and
//! 1 MB Markdown answer until it is rendered as stored (the two compared: the work
//! must grow with the answer, not with its square).
//!
//! Without Chromium the benchmark says so in one line and measures nothing.

use std::time::Duration;

use smallebot_core::ids::ConversationId;
use smallebot_infrastructure::SqliteStore;
use smallebot_testkit::browser::{self, Chromium, INSTALL_HINT};
use smallebot_testkit::{RecordedRequest, ScriptedResponse, TestModel};

use super::fixture::{fill_conversation_with, markdown_answer, sentence};
use super::harness::release_binary;
use super::page_probe::{Streamed, first_paint, interactive, millis, streamed, wall_ms};
use super::server::Server;
use super::{Figure, median, ms};

/// Turns of the long stored conversation.
const TURNS: usize = 200;
/// Loads measured for the first paint and for opening a conversation.
const LOADS: usize = 7;
/// Streamed answers measured per size.
const STREAMS: usize = 3;
/// Characters per streamed delta (a few tokens, as providers send them).
const CHUNK: usize = 32;
/// The sizes of the streamed answers.
const SMALL: usize = 100 * 1024;
const LARGE: usize = 1024 * 1024;
/// The targets.
const PAINT_TARGET: Duration = Duration::from_millis(200);
const OPEN_TARGET: Duration = Duration::from_millis(500);
const STREAM_TARGET: Duration = Duration::from_secs(1);

/// Measures the page, or nothing (one loud line) without Chromium.
pub async fn run() -> Result<Vec<Figure>, String> {
    let Some(executable) = browser::executable() else {
        println!("!!! SKIPPED the page benchmark: it needs Chromium ({INSTALL_HINT})");
        return Ok(Vec::new());
    };
    let binary = release_binary("the page benchmark")?;
    let model = TestModel::start().await.map_err(|e| e.to_string())?;
    model.answer_when(RecordedRequest::asks_for_title, |_| {
        ScriptedResponse::text("Bench title")
    });
    let home = tempfile::tempdir().map_err(|e| e.to_string())?;
    let fixture = Fixture::fill(home.path()).await?;
    let server = Server::start(&binary, home.path(), &model.base_url()).await?;
    let browser = Chromium::launch(executable)
        .await
        .map_err(|e| e.to_string())?;
    let measured = measure(&browser, &server.base, &model, &fixture).await;
    browser.close().await;
    server.stop().await;
    model.shutdown().await;
    measured
}

/// The stored conversations.
struct Fixture {
    /// 200 turns.
    long: ConversationId,
    /// One turn.
    short: ConversationId,
    /// One turn each, a streamed answer is sent to each.
    fresh: Vec<ConversationId>,
}

impl Fixture {
    /// Stores them in `home`'s database (created and migrated here).
    async fn fill(home: &std::path::Path) -> Result<Self, String> {
        let store = SqliteStore::open(&home.join("smallebot.db"))
            .await
            .map_err(|e| e.to_string())?;
        let pool = store.pool();
        // An answer of a section (~700 bytes of Markdown with a code block), a question
        // of 20 words.
        let text = |n: usize| {
            if n.is_multiple_of(2) {
                sentence(n, 20)
            } else {
                markdown_answer(n, 1)
            }
        };
        let long = fill_conversation_with(pool, "bench", TURNS, 200, text).await?;
        let short = fill_conversation_with(pool, "bench", 1, 200, text).await?;
        let mut fresh = Vec::new();
        for _ in 0..STREAMS * 2 {
            fresh.push(fill_conversation_with(pool, "bench", 1, 200, text).await?);
        }
        store.pool().close().await;
        Ok(Self { long, short, fresh })
    }
}

async fn measure(
    browser: &Chromium,
    base: &str,
    model: &TestModel,
    fixture: &Fixture,
) -> Result<Vec<Figure>, String> {
    let mut paints = Vec::new();
    let mut floors = Vec::new();
    for _ in 0..LOADS {
        paints.push(first_paint(browser, &format!("{base}/")).await?);
        floors.push(first_paint(browser, &format!("{base}/healthz")).await?);
    }
    let (paint, floor) = (median(paints), median(floors));

    let mut longs = Vec::new();
    let mut shorts = Vec::new();
    for _ in 0..LOADS {
        longs.push(interactive(browser, &format!("{base}/c/{}", fixture.long), TURNS * 2).await?);
        shorts.push(interactive(browser, &format!("{base}/c/{}", fixture.short), 2).await?);
    }
    let (long, short) = (median(longs), median(shorts));

    let mut fresh = fixture.fresh.iter();
    let mut small = Vec::new();
    let mut large = Vec::new();
    for run in 0..STREAMS {
        for (size, into) in [(SMALL, &mut small), (LARGE, &mut large)] {
            let id = fresh.next().ok_or("not enough fresh conversations")?;
            into.push(stream_one(browser, base, model, *id, size, run).await?);
        }
    }
    let (small_whole, small_after) = medians(&small);
    let (large_whole, large_after) = medians(&large);

    Ok(vec![
        Figure {
            name: "page: first contentful paint of / (release server, headless Chromium)".into(),
            value: format!("{} from navigation start (median of {LOADS})", ms(paint)),
            baseline: format!("the server's /healthz (one line of text): {}", ms(floor)),
            ratio: ratio(paint, floor),
            target: met(paint, PAINT_TARGET),
        },
        Figure {
            name: format!(
                "page: a stored conversation of {TURNS} turns opened at /c/{{id}} until drawn \
                 and the message box usable"
            ),
            value: format!("{} from navigation start (median of {LOADS})", ms(long)),
            baseline: format!("a conversation of 1 turn: {}", ms(short)),
            ratio: ratio(long, short),
            target: met(long, OPEN_TARGET),
        },
        Figure {
            name: format!(
                "page: a streamed 1 MB Markdown answer ({CHUNK}-character deltas, model at full \
                 speed) until rendered as stored"
            ),
            value: format!(
                "{} after the model's last byte; {} from send (median of {STREAMS})",
                ms(large_after),
                ms(large_whole)
            ),
            baseline: format!(
                "a 100 KB answer: {} after the last byte; {} from send",
                ms(small_after),
                ms(small_whole)
            ),
            ratio: format!(
                "1 MB / 100 KB from send: {:.1}× (linear ≈ 10, quadratic ≈ 100); after the \
                 last byte: {:.1}×",
                large_whole.as_secs_f64() / small_whole.as_secs_f64().max(1e-9),
                large_after.as_secs_f64() / small_after.as_secs_f64().max(1e-9)
            ),
            target: met(large_after, STREAM_TARGET),
        },
    ])
}

/// One answer of `size` bytes streamed into conversation `id`: (send → rendered,
/// model's last byte → rendered).
async fn stream_one(
    browser: &Chromium,
    base: &str,
    model: &TestModel,
    id: ConversationId,
    size: usize,
    run: usize,
) -> Result<(Duration, Duration), String> {
    let key = format!("stream {size} bytes, run {run}");
    model.push(ScriptedResponse::text(markdown_answer(run, size)).chunk_size(CHUNK));
    let Streamed { sent_ms, shown_ms } = streamed(browser, &format!("{base}/c/{id}"), &key).await?;
    let index = model
        .requests()
        .iter()
        .rev()
        .find(|r| r.last_user_text().as_deref() == Some(key.as_str()))
        .map(|r| r.index)
        .ok_or_else(|| format!("{key}: the model never saw the message"))?;
    let last_byte = model
        .sent_at(index)
        .ok_or_else(|| format!("{key}: the model did not finish its answer"))?;
    Ok((
        millis(shown_ms - sent_ms),
        millis(shown_ms - wall_ms(last_byte)),
    ))
}

fn medians(runs: &[(Duration, Duration)]) -> (Duration, Duration) {
    (
        median(runs.iter().map(|r| r.0).collect()),
        median(runs.iter().map(|r| r.1).collect()),
    )
}

fn ratio(value: Duration, baseline: Duration) -> String {
    format!(
        "{:.2}× the baseline",
        value.as_secs_f64() / baseline.as_secs_f64().max(1e-9)
    )
}

fn met(value: Duration, target: Duration) -> String {
    format!(
        "≤ {}: {}",
        ms(target),
        if value <= target { "met" } else { "NOT met" }
    )
}
