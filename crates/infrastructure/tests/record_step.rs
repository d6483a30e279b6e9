//! A model step is stored as one transaction: all of its rows with consecutive `seq`s,
//! or nothing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    HistoryRow, NewStep, NewTurn, Role, SearchQuery, SearchScope, StartedTurn, StepMessage,
    StepToolCall, ToolCallStatus, TurnEnd, TurnStatus,
};
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::repository::{
    ConversationRepository, HistoryRepository, SearchRepository, TurnRepository,
};

fn call(call_id: &str, arguments: &str) -> StepToolCall {
    StepToolCall {
        call_id: call_id.into(),
        tool_name: "ReadFile".into(),
        arguments: arguments.into(),
        token_count: 7,
    }
}

fn step(conversation_id: ConversationId, turn_id: TurnId) -> NewStep {
    NewStep {
        conversation_id,
        turn_id,
        reasoning: Some("think first".into()),
        message: Some(StepMessage {
            content: "Reading two files.".into(),
            token_count: 4,
        }),
        tool_calls: vec![
            call("c1", r#"{"path":"a.txt"}"#),
            call("c2", r#"{"path":"b \"quoted\".txt"}"#),
        ],
        end: None,
    }
}

#[tokio::test]
async fn a_step_stores_reasoning_message_and_calls_in_order() {
    let f = fixture().await;
    let c = conversation(&f.store, "alice").await;
    let StartedTurn {
        turn,
        message: user,
        ..
    } = f
        .store
        .start_turn_in_context(&NewTurn {
            token_count: 2,
            ..NewTurn::new(c.id, "read them", &owner())
        })
        .await
        .unwrap();
    let recorded = f.store.record_step(&step(c.id, turn.id)).await.unwrap();
    assert_eq!(recorded.turn, None, "the turn goes on");
    let seqs: Vec<i64> = recorded.rows.iter().map(HistoryRow::seq).collect();
    assert_eq!(
        seqs,
        vec![user.seq + 1, user.seq + 2, user.seq + 3, user.seq + 4]
    );
    // What the store returned is what it stored.
    let stored = f.store.rows_after(c.id, user.seq).await.unwrap();
    assert_eq!(stored, recorded.rows);
    let HistoryRow::ToolCall(second) = &stored[3] else {
        panic!("{stored:?}")
    };
    assert_eq!(second.arguments, r#"{"path":"b \"quoted\".txt"}"#);
    assert_eq!(second.status, ToolCallStatus::Running);
    let HistoryRow::Message(message) = &stored[1] else {
        panic!("{stored:?}")
    };
    assert_eq!((message.role, message.token_count), (Role::Assistant, 4));
    // The conversation as read carries the running total of what goes to the model:
    // user message 2 + step message 4 + two calls 7 each (reasoning counts nothing).
    let read = f.store.get_conversation(c.id).await.unwrap().unwrap();
    assert_eq!(read.context_tokens, 2 + 4 + 7 + 7);
    assert_eq!(
        read.context_tokens,
        f.store.token_sum_after(c.id, 0).await.unwrap()
    );
    // The next append continues after the step.
    let after = f
        .store
        .record_step(&NewStep {
            reasoning: None,
            tool_calls: vec![],
            ..step(c.id, turn.id)
        })
        .await
        .unwrap();
    assert_eq!(after.rows[0].seq(), user.seq + 5);
    // Rows of a step are searchable like any other.
    let hits = f
        .store
        .search(&SearchQuery {
            text: "quoted".into(),
            scope: SearchScope::Conversation(c.id),
            limit: 5,
            since: None,
        })
        .await
        .unwrap();
    assert_eq!(hits.len(), 1, "{hits:?}");
}

#[tokio::test]
async fn the_last_step_ends_the_turn_with_its_answer() {
    let f = fixture().await;
    let c = conversation(&f.store, "alice").await;
    let StartedTurn { turn, .. } = f
        .store
        .start_turn_in_context(&NewTurn {
            token_count: 1,
            ..NewTurn::new(c.id, "hi", &owner())
        })
        .await
        .unwrap();
    let recorded = f
        .store
        .record_step(&NewStep {
            reasoning: None,
            tool_calls: vec![],
            end: Some(TurnEnd {
                status: TurnStatus::Completed,
                error: None,
                cut: None,
            }),
            ..step(c.id, turn.id)
        })
        .await
        .unwrap();
    let ended = recorded.turn.unwrap();
    assert_eq!(
        (ended.status, ended.lease.clone()),
        (TurnStatus::Completed, None)
    );
    assert!(ended.completed_at.is_some());
    assert_eq!(f.store.get_turn(turn.id).await.unwrap().unwrap(), ended);
    assert_eq!(recorded.rows.len(), 1);
    // The conversation may start its next turn.
    f.store
        .start_turn_in_context(&NewTurn {
            token_count: 1,
            ..NewTurn::new(c.id, "again", &owner())
        })
        .await
        .unwrap();
}

#[tokio::test]
async fn a_step_that_fails_stores_nothing() {
    let f = fixture().await;
    let c = conversation(&f.store, "alice").await;
    let StartedTurn {
        turn,
        message: user,
        ..
    } = f
        .store
        .start_turn_in_context(&NewTurn {
            token_count: 1,
            ..NewTurn::new(c.id, "hi", &owner())
        })
        .await
        .unwrap();
    // Two calls with one id: the second insert fails, so the reasoning, the message
    // and the first call go too.
    let mut twice = step(c.id, turn.id);
    twice.tool_calls[1].call_id = "c1".into();
    let err = f.store.record_step(&twice).await.unwrap_err();
    assert!(matches!(err, RepositoryError::Conflict(_)), "{err}");
    assert_eq!(f.store.rows_after(c.id, user.seq).await.unwrap(), vec![]);
    // The write connection is usable, and the seq was not used up.
    let next = f.store.record_step(&step(c.id, turn.id)).await.unwrap();
    assert_eq!(next.rows[0].seq(), user.seq + 1);

    let missing = ConversationId::new();
    let err = f
        .store
        .record_step(&step(missing, turn.id))
        .await
        .unwrap_err();
    assert!(matches!(err, RepositoryError::NotFound { .. }), "{err}");
    let err = f
        .store
        .record_step(&NewStep {
            reasoning: None,
            message: None,
            tool_calls: vec![],
            end: Some(TurnEnd {
                status: TurnStatus::Failed,
                error: Some("x".into()),
                cut: None,
            }),
            ..step(c.id, TurnId::new())
        })
        .await
        .unwrap_err();
    assert!(matches!(err, RepositoryError::NotFound { .. }), "{err}");
}
