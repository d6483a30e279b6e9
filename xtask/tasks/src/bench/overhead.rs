//! Host overhead per turn with three tool calls against a zero-latency model.

use std::time::{Duration, Instant};

use smallebot_application::SendOptions;
use std::sync::Arc;

use smallebot_application::ConversationService;
use smallebot_postgres::PgStore;
use smallebot_testkit::{ScriptedResponse, TestModel, ToolCallSpec};

use super::harness::{bench, pipeline};
use super::{Figure, median, ms};

const TURNS: usize = 40;

/// Answers every turn with three GetCurrentTime calls, one per step, then a text.
fn three_tool_calls(server: &TestModel) {
    server.respond_with(|req| {
        let since_user = req.tool_results_since_user();
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
}

/// Medians of one run: the whole turn, its raw model requests, and the difference.
struct Measured {
    turn: Duration,
    raw: Duration,
    overhead: Duration,
}

/// Runs [`TURNS`] turns on `service` against `server` and, as the baseline, right
/// after each turn, that turn's own four requests sent raw over HTTP (the same bodies:
/// history grows, so they do). Each turn and its baseline run back to back, so both see
/// the machine in the same state; the overhead is the median of turn − raw.
async fn measure(service: &ConversationService, server: &TestModel) -> Result<Measured, String> {
    three_tool_calls(server);
    let conversation = service
        .create_conversation("bench")
        .await
        .map_err(|e| e.to_string())?;
    let client = reqwest::Client::new();
    let url = format!("{}/chat/completions", server.base_url());
    let mut turns = Vec::with_capacity(TURNS);
    let mut raw = Vec::with_capacity(TURNS);
    for i in 0..TURNS {
        let first = server.request_count();
        let started = Instant::now();
        let outcome = service
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
        let requests: Vec<_> = (first..server.request_count())
            .filter_map(|index| server.request(index))
            .collect();
        if requests.len() != 4 {
            return Err(format!(
                "expected 4 model requests for turn {i}, the model saw {}",
                requests.len()
            ));
        }
        let started = Instant::now();
        for request in &requests {
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
    Ok(Measured {
        turn: median(turns),
        raw: median(raw),
        overhead: median(overheads),
    })
}

/// The SQLite target: the overhead per turn at most this.
const SQLITE_TARGET: Duration = Duration::from_millis(1);
/// The PostgreSQL target: the overhead per turn at most this.
const POSTGRES_TARGET: Duration = Duration::from_millis(3);

/// Measures whole turns against the raw requests on SQLite, and on PostgreSQL beside
/// it: on the database at `postgres`, else on a throwaway cluster when the PostgreSQL
/// binaries are installed (`initdb`; skipped with a note otherwise).
pub async fn run(postgres: Option<&str>) -> Result<Vec<Figure>, String> {
    let cluster = match postgres {
        Some(_) => None,
        None => smallebot_testkit::postgres::TestCluster::start("bench --only overhead"),
    };
    let throwaway = match &cluster {
        Some(cluster) => Some(cluster.create_database().map_err(|e| e.to_string())?),
        None => None,
    };
    let postgres = postgres.or(throwaway.as_deref());
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let b = bench(dir.path(), 128_000).await?;
    let sqlite = measure(&b.service, &b.server).await?;
    b.store.close().await;
    let Measured {
        turn,
        raw: baseline,
        overhead,
    } = sqlite;
    let mut figures = vec![Figure {
        name: "host overhead per turn (3 tool calls, zero-latency testkit model)".into(),
        value: format!("turn {} (median of {TURNS})", ms(turn)),
        baseline: format!(
            "each turn's own 4 model requests sent raw right after it: {} (median)",
            ms(baseline)
        ),
        ratio: format!(
            "overhead {} = median over turns of (turn − its raw requests); turn/raw {:.2}×",
            ms(overhead),
            turn.as_secs_f64() / baseline.as_secs_f64().max(1e-9)
        ),
        target: format!(
            "≤ {} overhead: {}",
            ms(SQLITE_TARGET),
            if overhead <= SQLITE_TARGET {
                "met"
            } else {
                "NOT met"
            }
        ),
    }];
    if let Some(url) = postgres {
        let store = PgStore::connect(url).await.map_err(|e| e.to_string())?;
        let server = TestModel::start().await.map_err(|e| e.to_string())?;
        let agent = pipeline(&server, Arc::new(store.clone()), dir.path(), 128_000)?;
        let pg = measure(&agent.service, &server).await?;
        let removed = sqlx::query("DELETE FROM conversations WHERE user_name = 'bench'")
            .execute(store.pool())
            .await;
        store.close().await;
        removed.map_err(|e| e.to_string())?;
        figures.push(Figure {
            name: "host overhead per turn on PostgreSQL (3 tool calls, zero-latency model)".into(),
            value: format!(
                "overhead {} (turn {}, raw requests {})",
                ms(pg.overhead),
                ms(pg.turn),
                ms(pg.raw)
            ),
            baseline: format!("the same on SQLite: overhead {}", ms(overhead)),
            ratio: format!(
                "PostgreSQL/SQLite overhead {:.2}×",
                pg.overhead.as_secs_f64() / overhead.as_secs_f64().max(1e-9)
            ),
            target: format!(
                "≤ {} overhead: {}",
                ms(POSTGRES_TARGET),
                if pg.overhead <= POSTGRES_TARGET {
                    "met"
                } else {
                    "NOT met"
                }
            ),
        });
    }
    Ok(figures)
}
