//! Turns: interrupted recovery, edit, regenerate, the first turn with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use chrono::Utc;
use common::*;
use smallebot_application::rewrite;
use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    CompressionUpdate, HistoryRow, NewTurn, Role, StartedTurn, TurnStatus,
};
use smallebot_core::repository::{ConversationRepository, HistoryRepository, TurnRepository};

#[tokio::test]
async fn a_running_turn_is_listed_and_can_be_interrupted_once() {
    let f = fixture().await;
    let c = conversation(&f.store, "alice").await;
    let done = user_turn(&f.store, &c, "done").await;
    let running = running_user_turn(&f.store, &c, "in flight").await;
    let listed = f.store.running_turns().await.unwrap();
    assert_eq!(
        listed.iter().map(|t| t.id).collect::<Vec<_>>(),
        [running.id]
    );
    assert_eq!(
        f.store.running_turn(c.id).await.unwrap().map(|t| t.id),
        Some(running.id)
    );
    assert!(f.store.interrupt_turn(running.id).await.unwrap());
    assert!(!f.store.interrupt_turn(running.id).await.unwrap());
    assert!(!f.store.interrupt_turn(done.id).await.unwrap());
    assert!(f.store.running_turns().await.unwrap().is_empty());
    let t = f.store.get_turn(running.id).await.unwrap().unwrap();
    assert_eq!(t.status, TurnStatus::Interrupted);
    assert_eq!(
        f.store.get_turn(done.id).await.unwrap().unwrap().status,
        TurnStatus::Completed
    );
    // The user message is still there.
    let rows = f.store.rows_after(c.id, 0).await.unwrap();
    assert!(
        rows.iter()
            .any(|r| matches!(r, HistoryRow::Message(m) if m.content == "in flight"))
    );
}

#[tokio::test]
async fn edit_discards_later_turns_and_marks_the_old_message_replaced() {
    let f = fixture().await;
    let c = conversation(&f.store, "alice").await;
    let t1 = user_turn(&f.store, &c, "keep").await;
    assistant(&f.store, &c, &t1, "kept answer").await;
    let t2 = user_turn(&f.store, &c, "typo").await;
    tool(&f.store, &c, &t2, "x", "{}", "r").await;
    assistant(&f.store, &c, &t2, "answer to typo").await;
    let t3 = user_turn(&f.store, &c, "later").await;
    assistant(&f.store, &c, &t3, "later answer").await;

    let rows = f.store.rows_after(c.id, 0).await.unwrap();
    let HistoryRow::Message(typo) = &rows[2] else {
        panic!("expected message")
    };
    let (turn, edited) = rewrite::edit_user_message(&f.store, typo.id, "fixed", 2, &owner())
        .await
        .unwrap();
    assert!(edited.is_edited);
    assert_eq!(edited.turn_id, turn.id);
    assert_eq!(turn.status, TurnStatus::Running);

    let rows = f.store.rows_after(c.id, 0).await.unwrap();
    let texts: Vec<String> = rows
        .iter()
        .map(|r| match r {
            HistoryRow::Message(m) => format!(
                "{}:{}:{}",
                m.role.as_str(),
                m.content,
                m.replaced_by.is_some()
            ),
            other => format!("other {}", other.seq()),
        })
        .collect();
    assert_eq!(
        texts,
        [
            "user:keep:false",
            "assistant:kept answer:false",
            "user:typo:true",
            "user:fixed:false"
        ]
    );
    assert_eq!(f.store.list_turns(c.id).await.unwrap().len(), 3);
    // The replaced message is excluded from the token sum.
    assert_eq!(f.store.token_sum_after(c.id, 0).await.unwrap(), 3 + 5 + 2);
    // Editing the replaced message again is refused.
    assert!(
        rewrite::edit_user_message(&f.store, typo.id, "again", 1, &owner())
            .await
            .is_err()
    );
}

#[tokio::test]
async fn regenerate_discards_the_turn_output_and_later_turns() {
    let f = fixture().await;
    let c = conversation(&f.store, "alice").await;
    let t1 = user_turn(&f.store, &c, "question").await;
    tool(&f.store, &c, &t1, "x", "{}", "r").await;
    assistant(&f.store, &c, &t1, "bad answer").await;
    f.store
        .finish_turn(t1.id, TurnStatus::Completed, None)
        .await
        .unwrap();
    let t2 = user_turn(&f.store, &c, "later").await;
    assistant(&f.store, &c, &t2, "later answer").await;

    let (turn, user) = rewrite::regenerate_turn(&f.store, t1.id, &owner())
        .await
        .unwrap();
    assert_eq!(turn.status, TurnStatus::Running);
    assert_eq!(user.content, "question");
    let rows = f.store.rows_after(c.id, 0).await.unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(f.store.list_turns(c.id).await.unwrap().len(), 1);
}

#[tokio::test]
async fn summarized_rows_cannot_be_edited_or_regenerated() {
    let f = fixture().await;
    let c = conversation(&f.store, "alice").await;
    let t1 = user_turn(&f.store, &c, "old").await;
    assistant(&f.store, &c, &t1, "old answer").await;
    let rows = f.store.rows_after(c.id, 0).await.unwrap();
    f.store
        .set_compression(
            c.id,
            &CompressionUpdate {
                compressed_context: "s".into(),
                compressed_at: Utc::now(),
                compressed_through_seq: rows[1].seq(),
                expected_previous_seq: None,
            },
        )
        .await
        .unwrap();
    let HistoryRow::Message(old) = &rows[0] else {
        panic!()
    };
    let err = rewrite::edit_user_message(&f.store, old.id, "new", 1, &owner())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("summarized"), "{err}");
    assert!(
        rewrite::regenerate_turn(&f.store, t1.id, &owner())
            .await
            .is_err()
    );
    assert_eq!(f.store.rows_after(c.id, 0).await.unwrap(), rows);
}

#[tokio::test]
async fn a_turn_starts_with_its_message_or_not_at_all() {
    let f = fixture().await;
    let c = conversation(&f.store, "alice").await;
    let StartedTurn { turn, message, .. } = f
        .store
        .start_turn_in_context(&NewTurn {
            token_count: 3,
            ..NewTurn::new(c.id, "hello", &owner())
        })
        .await
        .unwrap();
    assert_eq!(turn.seq, 1, "a conversation's first turn has seq 1");
    assert_eq!(
        (message.turn_id, message.seq, message.role),
        (turn.id, 2, Role::User)
    );
    let missing = smallebot_core::ids::ConversationId::new();
    let err = f
        .store
        .start_turn_in_context(&NewTurn {
            token_count: 1,
            ..NewTurn::new(missing, "lost?", &owner())
        })
        .await
        .unwrap_err();
    assert!(matches!(err, RepositoryError::NotFound { .. }), "{err}");
    assert_eq!(count(&f.store, "SELECT COUNT(*) FROM turns").await, 1);
    assert_eq!(count(&f.store, "SELECT COUNT(*) FROM messages").await, 1);
}

#[tokio::test]
async fn one_running_turn_per_conversation_and_its_lease() {
    let f = fixture().await;
    let c = conversation(&f.store, "alice").await;
    let me = owner();
    let StartedTurn { turn: first, .. } = f
        .store
        .start_turn_in_context(&NewTurn {
            token_count: 1,
            ..NewTurn::new(c.id, "first", &me)
        })
        .await
        .unwrap();
    let lease = first.lease.clone().unwrap();
    assert_eq!(lease.owner, me);
    assert_eq!(
        f.store.get_turn(first.id).await.unwrap().unwrap().lease,
        Some(lease)
    );

    // A second start is refused with the running turn, and stores nothing.
    let err = f
        .store
        .start_turn_in_context(&NewTurn {
            token_count: 1,
            ..NewTurn::new(c.id, "second", &me)
        })
        .await
        .unwrap_err();
    let RepositoryError::TurnRunning(running) = &err else {
        panic!("{err}")
    };
    assert_eq!(running.id, first.id);
    assert!(err.to_string().contains("test-host"), "{err}");
    assert_eq!(count(&f.store, "SELECT COUNT(*) FROM messages").await, 1);
    assert_eq!(count(&f.store, "SELECT COUNT(*) FROM turns").await, 1);
    // Other conversations are not affected.
    let other = conversation(&f.store, "alice").await;
    f.store
        .start_turn_in_context(&NewTurn {
            token_count: 1,
            ..NewTurn::new(other.id, "elsewhere", &me)
        })
        .await
        .unwrap();

    let later = Utc::now() + chrono::Duration::seconds(30);
    assert!(f.store.heartbeat(first.id, later).await.unwrap());
    let beat = f
        .store
        .get_turn(first.id)
        .await
        .unwrap()
        .unwrap()
        .lease
        .unwrap();
    assert_eq!(
        smallebot_core::time::format_timestamp(&beat.heartbeat_at),
        smallebot_core::time::format_timestamp(&later)
    );
    // Finishing ends the lease; then the next turn may start.
    let done = f
        .store
        .finish_turn(first.id, TurnStatus::Completed, None)
        .await
        .unwrap();
    assert_eq!(done.lease, None);
    assert!(!f.store.heartbeat(first.id, later).await.unwrap());
    f.store
        .start_turn_in_context(&NewTurn {
            token_count: 1,
            ..NewTurn::new(c.id, "second", &me)
        })
        .await
        .unwrap();
}
