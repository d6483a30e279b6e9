//! The context estimate (stored counts) against re-tokenizing the whole history.

use std::time::Instant;

use smallebot_application::ports::ContextAssembler;
use smallebot_core::repository::{ConversationRepository, HistoryRepository};

use super::fixture::fill_conversation;
use super::harness::bench;
use super::{Figure, median, ms};

/// Estimates at 1k / 10k / 100k stored messages beside a full re-tokenization.
pub async fn run() -> Result<Vec<Figure>, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let b = bench(dir.path(), 1_000_000_000).await?;
    let mut figures = Vec::new();
    for messages in [1_000usize, 10_000, 100_000] {
        let id = fill_conversation(b.store.pool(), "bench", messages / 2, 9, 12).await?;
        let conversation = b
            .store
            .get_conversation(id)
            .await
            .map_err(|e| e.to_string())?
            .ok_or("conversation vanished")?;
        let mut samples = Vec::new();
        for _ in 0..20 {
            let started = Instant::now();
            let stored = b
                .store
                .token_sum_after(id, 0)
                .await
                .map_err(|e| e.to_string())?;
            let estimate =
                b.builder
                    .estimate(&conversation, stored, None, &[], Some("next message"));
            std::hint::black_box(estimate);
            samples.push(started.elapsed());
        }
        let estimate = median(samples);
        let rows = b.store.rows_after(id, 0).await.map_err(|e| e.to_string())?;
        let texts: Vec<String> = rows
            .iter()
            .filter_map(|r| match r {
                smallebot_core::entities::HistoryRow::Message(m) => Some(m.content.clone()),
                _ => None,
            })
            .collect();
        let started = Instant::now();
        let tokens: usize = texts.iter().map(|t| b.tokenizer.count(t)).sum();
        let retokenize = started.elapsed();
        figures.push(Figure {
            name: format!("context estimate, {messages} stored messages ({tokens} tokens)"),
            value: format!("{} (sum of stored counts + system prompt)", ms(estimate)),
            baseline: format!("re-tokenizing the history: {}", ms(retokenize)),
            ratio: format!(
                "{:.0}× faster",
                retokenize.as_secs_f64() / estimate.as_secs_f64().max(1e-9)
            ),
            target: "flat in history length; ≥ 100× faster than re-tokenizing at 1 M tokens".into(),
        });
    }
    b.store.close().await;
    Ok(figures)
}
