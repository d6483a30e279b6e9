//! SearchHistory's full-text query over many stored rows beside a linear scan.

use std::time::{Duration, Instant};

use smallebot_core::entities::{SearchQuery, SearchScope};
use smallebot_core::repository::SearchRepository;

use super::fixture::fill_conversation;
use super::harness::bench;
use super::{Figure, median, ms};

const QUERIES: [&str; 20] = [
    "deploy",
    "config error",
    "python server",
    "item12345",
    "database index",
    "timeout",
    "memory socket",
    "parser tokenizer",
    "item999999",
    "schema migration",
    "kernel",
    "docker cache",
    "release branch",
    "item500000",
    "latency network",
    "compile warning",
    "payload header",
    "stream buffer",
    "nonexistentword",
    "module function pointer",
];

/// Median of 20 varied queries (newest first, limit 10) over `rows` rows; with
/// `postgres` (a database URL) the same over the same rows in PostgreSQL, beside it.
pub async fn run(rows: usize, postgres: Option<&str>) -> Result<Vec<Figure>, String> {
    let (fts, scan) = sqlite(rows).await?;
    let mut figures = vec![Figure {
        name: format!("SearchHistory over {rows} stored rows (median of 20 queries)"),
        value: format!("FTS5 newest first: {}", ms(fts)),
        baseline: format!("linear scan (LIKE) of the same rows: {}", ms(scan)),
        ratio: format!(
            "{:.0}× faster",
            scan.as_secs_f64() / fts.as_secs_f64().max(1e-9)
        ),
        target: format!(
            "≤ 10 ms median: {}",
            if fts <= Duration::from_millis(10) {
                "met"
            } else {
                "NOT met"
            }
        ),
    }];
    if let Some(url) = postgres {
        let pg = on_postgres(url, rows).await?;
        figures.push(Figure {
            name: format!("SearchHistory over {rows} stored rows on PostgreSQL (median of 20)"),
            value: format!("newest rows first, then the GIN index: {}", ms(pg)),
            baseline: format!("SQLite FTS5 over the same rows: {}", ms(fts)),
            ratio: format!(
                "PostgreSQL/SQLite {:.2}×",
                pg.as_secs_f64() / fts.as_secs_f64().max(1e-9)
            ),
            target: format!(
                "≤ 20 ms median: {}",
                if pg <= Duration::from_millis(20) {
                    "met"
                } else {
                    "NOT met"
                }
            ),
        });
    }
    Ok(figures)
}

/// The query every measured search sends.
fn query(text: &str) -> SearchQuery {
    SearchQuery {
        text: text.into(),
        scope: SearchScope::User("alice".into()),
        since: None,
        limit: 10,
    }
}

/// Fills `rows` rows into the PostgreSQL database at `url`, measures the 20 queries
/// and removes the rows again; the median.
async fn on_postgres(url: &str, rows: usize) -> Result<Duration, String> {
    let store = smallebot_postgres::PgStore::connect(url)
        .await
        .map_err(|e| e.to_string())?;
    println!("(filling {rows} rows into PostgreSQL for the search benchmark…)");
    let per_conversation = 10_000usize;
    let mut left = rows;
    let mut n = 0;
    while left > 0 {
        let batch = left.min(per_conversation);
        let user = if n % 2 == 0 { "alice" } else { "bob" };
        super::pg_fill::fill_conversation(store.pool(), user, batch.div_ceil(2), 8, 10).await?;
        left = left.saturating_sub(batch);
        n += 1;
    }
    sqlx::query("ANALYZE")
        .execute(store.pool())
        .await
        .map_err(|e| e.to_string())?;
    let mut samples = Vec::new();
    for text in QUERIES {
        let started = Instant::now();
        let hits = store
            .search(&query(text))
            .await
            .map_err(|e| e.to_string())?;
        samples.push(started.elapsed());
        std::hint::black_box(hits);
    }
    super::pg_fill::remove_filled(store.pool()).await?;
    store.close().await;
    Ok(median(samples))
}

/// The SQLite medians: full-text search, and a linear scan as its baseline.
async fn sqlite(rows: usize) -> Result<(Duration, Duration), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let b = bench(dir.path(), 128_000).await?;
    println!("(filling {rows} rows for the search benchmark…)");
    let per_conversation = 10_000usize;
    let mut left = rows;
    let mut n = 0;
    while left > 0 {
        let batch = left.min(per_conversation);
        let user = if n % 2 == 0 { "alice" } else { "bob" };
        fill_conversation(b.store.pool(), user, batch.div_ceil(2), 8, 10).await?;
        left = left.saturating_sub(batch);
        n += 1;
    }
    // The rows went in with plain SQL; the first search adds them to the full-text
    // index (as the end of a turn does in use). Not timed: it is the fill's cost.
    b.store
        .search(&SearchQuery {
            text: "warm".into(),
            scope: SearchScope::All,
            since: None,
            limit: 1,
        })
        .await
        .map_err(|e| e.to_string())?;
    let mut fts = Vec::new();
    let mut scan = Vec::new();
    for text in QUERIES {
        let started = Instant::now();
        let hits = b
            .store
            .search(&query(text))
            .await
            .map_err(|e| e.to_string())?;
        fts.push(started.elapsed());
        std::hint::black_box(hits);
        let word = text.split_whitespace().next().unwrap_or(text);
        let started = Instant::now();
        let found: Vec<(String,)> = sqlx::query_as(
            "SELECT m.content FROM messages m JOIN conversations c ON c.id = m.conversation_id \
             WHERE c.user_name = 'alice' AND m.content LIKE '%' || ?1 || '%' \
             ORDER BY m.created_at DESC, m.seq DESC LIMIT 10",
        )
        .bind(word)
        .fetch_all(b.store.pool())
        .await
        .map_err(|e| e.to_string())?;
        scan.push(started.elapsed());
        std::hint::black_box(found);
    }
    let fts = median(fts);
    let scan = median(scan);
    b.store.close().await;
    Ok((fts, scan))
}
