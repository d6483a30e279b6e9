//! Issue 27: `ConversationService::start_edit` and `start_regenerate` return, as
//! `start` does, once the turn is stored, with the turn's id, its events and its end.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use smallebot_application::{EventKind, PipelineError, SendOptions};
use smallebot_core::entities::{HistoryRow, Role, TurnStatus};
use smallebot_core::ids::MessageId;
use smallebot_core::repository::TurnRepository;
use smallebot_testkit::{Gate, ScriptedResponse};

/// The turn's events from its handle, once it ended.
fn drained(events: &mut smallebot_application::EventSubscription) -> Vec<EventKind> {
    let mut kinds = Vec::new();
    while let Some(event) = events.try_recv() {
        kinds.push(event.kind);
    }
    kinds
}

#[tokio::test]
async fn start_edit_returns_with_the_new_message_stored_before_the_model_answers() {
    let h = harness(Options::default()).await;
    h.server.push(ScriptedResponse::text("First answer."));
    let c = h.service.create_conversation("tester").await.unwrap();
    h.service
        .send(c.id, "Old question", SendOptions::default())
        .await
        .unwrap();
    let old = h
        .rows(&c)
        .await
        .into_iter()
        .find_map(|r| match r {
            HistoryRow::Message(m) if m.role == Role::User => Some(m),
            _ => None,
        })
        .unwrap();
    let gate = Gate::new();
    h.server
        .push(ScriptedResponse::text("Edited answer.").hold_until(&gate));

    let mut handle = h
        .service
        .start_edit(c.id, old.id, "New question", SendOptions::default())
        .await
        .unwrap();
    // The model has not answered: the new turn and message are stored, the old ones
    // replaced.
    let turns = h.store.list_turns(c.id).await.unwrap();
    let running = turns.iter().find(|t| t.id == handle.turn_id).unwrap();
    assert_eq!(running.status, TurnStatus::Running);
    let rows = h.rows(&c).await;
    assert!(
        rows.iter().any(|r| matches!(r, HistoryRow::Message(m)
            if m.content == "New question" && m.turn_id == handle.turn_id)),
        "{rows:?}"
    );
    assert!(h.service.is_busy(c.id));
    assert!(handle.title.is_none(), "an edit never titles");

    gate.open();
    let outcome = (&mut handle.end).await.unwrap().unwrap();
    assert_eq!(outcome.status, TurnStatus::Completed);
    assert_eq!(outcome.turn_id, handle.turn_id);
    assert_eq!(outcome.text, "Edited answer.");
    let kinds = drained(&mut handle.events);
    assert!(kinds.contains(&EventKind::TurnStarted), "{kinds:?}");
    assert!(kinds.last().unwrap().ends_turn(), "{kinds:?}");
}

#[tokio::test]
async fn start_regenerate_returns_with_the_turn_running_again() {
    let h = harness(Options::default()).await;
    h.server.push(ScriptedResponse::text("First answer."));
    let c = h.service.create_conversation("tester").await.unwrap();
    let first = h
        .service
        .send(c.id, "Question", SendOptions::default())
        .await
        .unwrap();
    let gate = Gate::new();
    h.server
        .push(ScriptedResponse::text("Second answer.").hold_until(&gate));

    let mut handle = h
        .service
        .start_regenerate(c.id, first.turn_id, SendOptions::default())
        .await
        .unwrap();
    assert_eq!(handle.turn_id, first.turn_id, "the same turn answers again");
    let turn = h.store.get_turn(first.turn_id).await.unwrap().unwrap();
    assert_eq!(turn.status, TurnStatus::Running);
    // The old answer is gone before the new one comes.
    let rows = h.rows(&c).await;
    assert!(
        !rows
            .iter()
            .any(|r| matches!(r, HistoryRow::Message(m) if m.content == "First answer.")),
        "{rows:?}"
    );

    gate.open();
    let outcome = (&mut handle.end).await.unwrap().unwrap();
    assert_eq!(outcome.status, TurnStatus::Completed);
    assert_eq!(outcome.text, "Second answer.");
    let kinds = drained(&mut handle.events);
    assert!(kinds.contains(&EventKind::TurnStarted), "{kinds:?}");
}

#[tokio::test]
async fn rewrites_refused_before_anything_is_stored_come_from_their_start() {
    let h = harness(Options::default()).await;
    h.server.push(ScriptedResponse::text("Answer."));
    let c = h.service.create_conversation("tester").await.unwrap();
    let first = h
        .service
        .send(c.id, "Question", SendOptions::default())
        .await
        .unwrap();

    let unknown = MessageId::new();
    let not_editable = h
        .service
        .start_edit(c.id, unknown, "text", SendOptions::default())
        .await;
    assert!(
        matches!(not_editable, Err(PipelineError::MessageNotEditable { message_id, .. }) if message_id == unknown),
        "{not_editable:?}"
    );
    let empty = h
        .service
        .start_edit(c.id, unknown, "  ", SendOptions::default())
        .await;
    assert!(
        matches!(empty, Err(PipelineError::EmptyMessage)),
        "{empty:?}"
    );
    let other = smallebot_core::ids::TurnId::new();
    let missing = h
        .service
        .start_regenerate(c.id, other, SendOptions::default())
        .await;
    assert!(
        matches!(missing, Err(PipelineError::TurnNotFound { turn_id, .. }) if turn_id == other),
        "{missing:?}"
    );

    let gate = Gate::new();
    h.server
        .push(ScriptedResponse::text("Held.").hold_until(&gate));
    let running = h
        .service
        .start(c.id, "Another", SendOptions::default())
        .await
        .unwrap();
    let busy = h
        .service
        .start_regenerate(c.id, first.turn_id, SendOptions::default())
        .await;
    assert!(
        matches!(busy, Err(PipelineError::Busy(id)) if id == c.id),
        "{busy:?}"
    );
    gate.open();
    running.end.await.unwrap().unwrap();
    assert_eq!(h.store.list_turns(c.id).await.unwrap().len(), 2);
}
