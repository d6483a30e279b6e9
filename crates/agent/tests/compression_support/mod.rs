//! Helpers shared by the compression tests.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use smallebot_application::EventKind;
use smallebot_application::events::CompressionTrigger;
use smallebot_core::entities::{Conversation, HistoryRow, Role};
use smallebot_core::repository::ConversationRepository;
use smallebot_testkit::{RecordedRequest, ScriptedResponse};

use crate::common::{Harness, is_summary_request};

/// Answers summary requests with `SUMMARY-<n>` and everything else with a short echo.
pub fn responder(
    summaries: Arc<AtomicUsize>,
) -> impl Fn(&RecordedRequest) -> ScriptedResponse + Send + Sync + 'static {
    move |req| {
        if is_summary_request(req) {
            let n = summaries.fetch_add(1, Ordering::SeqCst) + 1;
            ScriptedResponse::text(format!(
                "SUMMARY-{n}: the person asked about /srv/app/config.toml"
            ))
        } else {
            ScriptedResponse::text(format!("ack {}", req.index))
        }
    }
}

pub fn compressions(events: &[EventKind]) -> Vec<(CompressionTrigger, bool, u64, u64)> {
    events
        .iter()
        .filter_map(|e| match e {
            EventKind::CompressionCompleted {
                trigger,
                ok,
                tokens_before,
                tokens_after,
                ..
            } => Some((*trigger, *ok, *tokens_before, *tokens_after)),
            _ => None,
        })
        .collect()
}

/// The estimates (`used`) of the requests the events announce, in order.
pub fn estimates<'a>(events: impl IntoIterator<Item = &'a EventKind>) -> Vec<u64> {
    events
        .into_iter()
        .filter_map(|e| match e {
            EventKind::ContextUsage {
                used,
                reported: None,
                ..
            } => Some(*used),
            _ => None,
        })
        .collect()
}

pub fn user_texts(rows: &[HistoryRow]) -> Vec<(i64, String)> {
    rows.iter()
        .filter_map(|r| match r {
            HistoryRow::Message(m) if m.role == Role::User => Some((m.seq, m.content.clone())),
            _ => None,
        })
        .collect()
}

pub async fn fresh(h: &Harness, c: &Conversation) -> Conversation {
    h.store.get_conversation(c.id).await.unwrap().unwrap()
}
