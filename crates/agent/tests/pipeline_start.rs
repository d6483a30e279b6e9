//! Issue 27: `ConversationService::start` returns once the turn and its message are
//! stored, with the turn's id, its events, its end and (when asked) its title.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::*;
use smallebot_application::pipeline::TITLE_INSTRUCTION;
use smallebot_application::{EventKind, PipelineError, SendOptions};
use smallebot_core::entities::{HistoryRow, Role, TurnStatus};
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::{ConversationRepository, TurnRepository};
use smallebot_testkit::{Gate, RecordedRequest, ScriptedResponse};

/// Whether a recorded request asks for a title.
fn asks_for_title(request: &RecordedRequest) -> bool {
    messages(request).iter().any(|m| {
        m["content"]
            .as_str()
            .is_some_and(|c| c.starts_with(TITLE_INSTRUCTION))
    })
}

/// Answers the turn only once `gate` opens; a title request at once.
fn held_answers(h: &Harness, gate: &Gate) {
    let held = gate.clone();
    h.server.respond_with(move |request| {
        if asks_for_title(request) {
            ScriptedResponse::text("A model title")
        } else {
            ScriptedResponse::text("The answer.").hold_until(&held)
        }
    });
}

#[tokio::test]
async fn start_returns_with_the_turn_stored_before_the_model_answers() {
    let h = harness(Options::default()).await;
    let gate = Gate::new();
    held_answers(&h, &gate);
    let c = h.service.create_conversation("tester").await.unwrap();

    let mut handle = h
        .service
        .start(c.id, "What is it?", SendOptions::default())
        .await
        .unwrap();
    // The model has not answered: the turn and the message are already stored.
    let turns = h.store.list_turns(c.id).await.unwrap();
    assert_eq!(turns.len(), 1);
    assert_eq!(turns[0].id, handle.turn_id);
    assert_eq!(turns[0].status, TurnStatus::Running);
    let rows = h.rows(&c).await;
    assert!(
        matches!(&rows[..], [HistoryRow::Message(m)] if m.role == Role::User && m.content == "What is it?"),
        "{rows:?}"
    );
    assert!(h.service.is_busy(c.id));
    assert!(handle.title.is_none(), "no title unless the options ask");

    gate.open();
    let outcome = (&mut handle.end).await.unwrap().unwrap();
    assert_eq!(outcome.status, TurnStatus::Completed);
    assert_eq!(outcome.turn_id, handle.turn_id);
    assert_eq!(outcome.text, "The answer.");
    assert!(!h.service.is_busy(c.id));

    // The events hold the turn's whole sequence, from before it started to its end.
    let mut events = Vec::new();
    while let Some(event) = handle.events.try_recv() {
        events.push(event);
    }
    check_envelopes(c.id, &events);
    assert_eq!(events[0].seq, 1, "nothing missed: {events:?}");
    let kinds: Vec<&EventKind> = events.iter().map(|e| &e.kind).collect();
    assert!(
        matches!(kinds[0], EventKind::TitleChanged { .. }),
        "{kinds:?}"
    );
    let started = kinds
        .iter()
        .position(|k| **k == EventKind::TurnStarted)
        .unwrap();
    assert_eq!(events[started].turn_id, Some(handle.turn_id));
    let last = events.last().unwrap();
    assert!(
        matches!(last.kind, EventKind::TurnCompleted { .. }),
        "{last:?}"
    );
    assert_eq!(last.turn_id, Some(handle.turn_id));
}

#[tokio::test]
async fn start_asks_for_the_title_beside_a_new_conversations_first_turn() {
    let h = harness(Options::default()).await;
    let gate = Gate::new();
    held_answers(&h, &gate);
    let c = h.service.create_conversation("tester").await.unwrap();
    let titled = SendOptions {
        title: true,
        ..SendOptions::default()
    };

    let handle = h
        .service
        .start(c.id, "First words", titled.clone())
        .await
        .unwrap();
    // The title comes while the turn is still held.
    let title = handle.title.expect("a title for the first turn");
    let title = tokio::time::timeout(Duration::from_secs(10), title)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(title.as_deref(), Some("A model title"));
    assert!(h.service.is_busy(c.id), "the turn still runs");
    let stored = h.store.get_conversation(c.id).await.unwrap().unwrap();
    assert_eq!(stored.title, "A model title");

    gate.open();
    let outcome = handle.end.await.unwrap().unwrap();
    assert_eq!(outcome.status, TurnStatus::Completed);
    // A later turn is not titled again.
    let second = h.service.start(c.id, "More", titled).await.unwrap();
    assert!(second.title.is_none());
    second.end.await.unwrap().unwrap();
}

#[tokio::test]
async fn errors_before_the_turn_is_stored_come_from_start() {
    let h = harness(Options::default()).await;
    let gate = Gate::new();
    held_answers(&h, &gate);
    let c = h.service.create_conversation("tester").await.unwrap();

    let empty = h.service.start(c.id, "  ", SendOptions::default()).await;
    assert!(
        matches!(empty, Err(PipelineError::EmptyMessage)),
        "{empty:?}"
    );
    let unknown = ConversationId::new();
    let missing = h.service.start(unknown, "hi", SendOptions::default()).await;
    assert!(
        matches!(missing, Err(PipelineError::ConversationNotFound(id)) if id == unknown),
        "{missing:?}"
    );
    assert!(h.store.list_turns(c.id).await.unwrap().is_empty());

    let running = h
        .service
        .start(c.id, "first", SendOptions::default())
        .await
        .unwrap();
    let busy = h
        .service
        .start(c.id, "second", SendOptions::default())
        .await;
    assert!(
        matches!(busy, Err(PipelineError::Busy(id)) if id == c.id),
        "{busy:?}"
    );
    gate.open();
    running.end.await.unwrap().unwrap();
    // Only the first turn was stored.
    assert_eq!(h.store.list_turns(c.id).await.unwrap().len(), 1);

    h.service.close();
    let closed = h.service.start(c.id, "late", SendOptions::default()).await;
    assert!(
        matches!(closed, Err(PipelineError::ShuttingDown)),
        "{closed:?}"
    );
}

#[tokio::test]
async fn a_start_given_up_while_storing_still_runs_its_turn() {
    let h = harness(Options::default()).await;
    h.server.push(ScriptedResponse::text("Still answered."));
    let c = h.service.create_conversation("tester").await.unwrap();
    let mut events = h.service.subscribe(c.id);

    // Polled once, then dropped (a client gone): whatever that poll reached, the turn
    // runs to its end.
    let mut start = Box::pin(h.service.start(c.id, "Anyone?", SendOptions::default()));
    tokio::select! {
        biased;
        _ = &mut start => {}
        () = std::future::ready(()) => {}
    }
    drop(start);

    let end = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let event = events.recv().await.unwrap();
            if event.kind.ends_turn() {
                break event.kind;
            }
        }
    })
    .await
    .unwrap();
    assert!(matches!(end, EventKind::TurnCompleted { .. }), "{end:?}");
    let turns = h.store.list_turns(c.id).await.unwrap();
    assert_eq!(turns.len(), 1);
    assert_eq!(turns[0].status, TurnStatus::Completed);
}
