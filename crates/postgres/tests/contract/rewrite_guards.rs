//! Contract: the guarded rewrite primitives — what the rules read of a turn, and the
//! refusals (nothing changed) when the state a rewrite was decided on no longer holds
//! or a turn runs. Runs on SQLite and PostgreSQL.

use chrono::Utc;
use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    CompressionUpdate, Conversation, HistoryRow, MessageReplacement, RewriteGuard, Role,
    TurnRestart, TurnUndo,
};

use crate::backends::{self, Backend, OrFail, describe, owner};

fn guard(c: &Conversation, boundary: i64) -> RewriteGuard {
    RewriteGuard {
        conversation_id: c.id,
        boundary,
    }
}

fn is_conflict(result: &Result<impl std::fmt::Debug, RepositoryError>) -> bool {
    matches!(result, Err(RepositoryError::Conflict(_)))
}

/// Asserts the refusal of a rewrite whose guard no longer holds, word for word: both
/// engines give the person the same sentence.
fn refused_as_changed(
    result: &Result<impl std::fmt::Debug, RepositoryError>,
    doing: &str,
    name: &str,
) {
    let text = match result {
        Err(err @ RepositoryError::Conflict(_)) => err.to_string(),
        other => panic!("{name}: expected the conversation-changed refusal, got {other:?}"),
    };
    assert_eq!(
        text,
        format!(
            "rejected: the conversation changed while {doing} (another writer compressed, \
             edited or undid it); nothing was changed, try again"
        ),
        "{name}"
    );
}

/// Two finished turns: "one" answered, "two" answered; returns the conversation.
async fn two_turns(b: &Backend) -> Conversation {
    let c = b.conversation("ann").await;
    let one = b.user_turn(&c, "one").await;
    b.assistant(&c, &one, "answer one").await;
    let two = b.user_turn(&c, "two").await;
    b.assistant(&c, &two, "answer two").await;
    c
}

fn user_message(rows: &[HistoryRow], content: &str) -> smallebot_core::entities::Message {
    rows.iter()
        .find_map(|r| match r {
            HistoryRow::Message(m) if m.content == content => Some(m.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no message {content:?} in {rows:?}"))
}

#[tokio::test]
async fn a_turn_reads_back_with_its_messages_and_last_row() {
    for b in backends::each("a_turn_reads_back_with_its_messages").await {
        let name = b.name;
        let c = b.conversation("ann").await;
        let turn = b.user_turn(&c, "hello").await;
        b.assistant(&c, &turn, "hi").await;
        b.tool(&c, &turn, "c1", "{}", "out").await;
        let contents = b
            .store
            .turn_contents(turn.id)
            .await
            .or_fail(name)
            .or_fail(name);
        assert_eq!(contents.turn.id, turn.id, "{name}");
        let texts: Vec<_> = contents
            .messages
            .iter()
            .map(|m| (m.role, m.content.as_str()))
            .collect();
        assert_eq!(
            texts,
            [(Role::User, "hello"), (Role::Assistant, "hi")],
            "{name}"
        );
        let last = b.rows(&c).await.last().or_fail(name).seq();
        assert_eq!(contents.last_row_seq, Some(last), "{name}");
        let hello = &contents.messages[0];
        let read = b.store.get_message(hello.id).await.or_fail(name);
        assert_eq!(read.as_ref(), Some(hello), "{name}");

        let empty = b.store.start_turn(c.id, false).await.or_fail(name);
        let contents = b
            .store
            .turn_contents(empty.id)
            .await
            .or_fail(name)
            .or_fail(name);
        assert!(contents.messages.is_empty(), "{name}");
        assert_eq!(contents.last_row_seq, None, "{name}");
        let unknown = smallebot_core::ids::TurnId::new();
        assert!(
            b.store.turn_contents(unknown).await.or_fail(name).is_none(),
            "{name}"
        );
    }
}

#[tokio::test]
async fn a_moved_boundary_refuses_every_rewrite_and_changes_nothing() {
    for b in backends::each("a_moved_boundary_refuses_every_rewrite").await {
        let name = b.name;
        let c = two_turns(&b).await;
        let rows = b.rows(&c).await;
        let two = user_message(&rows, "two");
        // Decided before a compression through "one" that another writer stored.
        let through_one = user_message(&rows, "answer one").seq;
        b.store
            .set_compression(
                c.id,
                &CompressionUpdate {
                    compressed_context: "summary".into(),
                    compressed_at: Utc::now(),
                    compressed_through_seq: through_one,
                    expected_previous_seq: None,
                },
            )
            .await
            .or_fail(name);
        let before = describe(&b.rows(&c).await);
        let stale = guard(&c, 0);
        let replaced = b
            .store
            .replace_user_message(&MessageReplacement {
                guard: stale,
                message_id: two.id,
                content: "two, edited".into(),
                token_count: 1,
                owner: owner(),
            })
            .await;
        refused_as_changed(&replaced, "editing a message", name);
        let restarted = b
            .store
            .restart_turn(&TurnRestart {
                guard: stale,
                turn_id: two.turn_id,
                keep_message: two.id,
                owner: owner(),
            })
            .await;
        refused_as_changed(&restarted, "regenerating a turn", name);
        let undone = b
            .store
            .mark_turn_undone(&TurnUndo {
                guard: stale,
                turn_id: two.turn_id,
            })
            .await;
        refused_as_changed(&undone, "undoing a turn", name);
        assert_eq!(describe(&b.rows(&c).await), before, "{name}");
        let turns = b.store.list_turns(c.id).await.or_fail(name);
        assert!(turns.iter().all(|t| t.undone_at.is_none()), "{name}");
        assert!(b.store.running_turn(c.id).await.or_fail(name).is_none());

        // With the boundary it now has, the same rewrite goes through.
        let (turn, message) = b
            .store
            .replace_user_message(&MessageReplacement {
                guard: guard(&c, through_one),
                message_id: two.id,
                content: "two, edited".into(),
                token_count: 1,
                owner: owner(),
            })
            .await
            .or_fail(name);
        assert!(message.is_edited, "{name}");
        assert_eq!(message.turn_id, turn.id, "{name}");
    }
}

#[tokio::test]
async fn two_rewrites_decided_on_the_same_reads_apply_once() {
    for b in backends::each("two_rewrites_decided_on_the_same_reads").await {
        let name = b.name;
        let c = two_turns(&b).await;
        let rows = b.rows(&c).await;
        let two = user_message(&rows, "two");

        // Two undos of the last turn: the second finds it undone already.
        let undo = TurnUndo {
            guard: guard(&c, 0),
            turn_id: two.turn_id,
        };
        let undone = b.store.mark_turn_undone(&undo).await.or_fail(name);
        assert!(undone.undone_at.is_some(), "{name}");
        let again = b.store.mark_turn_undone(&undo).await;
        assert!(is_conflict(&again), "{name}: {again:?}");
        // Nor may the turn before it be undone while a later one is in the context:
        // bring "two" back and try to undo "one".
        let one = user_message(&rows, "one");
        let (restarted, kept) = b
            .store
            .restart_turn(&TurnRestart {
                guard: guard(&c, 0),
                turn_id: two.turn_id,
                keep_message: two.id,
                owner: owner(),
            })
            .await
            .or_fail(name);
        assert!(restarted.undone_at.is_none(), "{name}");
        assert_eq!(kept.id, two.id, "{name}");
        b.store
            .finish_turn(
                restarted.id,
                smallebot_core::entities::TurnStatus::Completed,
                None,
            )
            .await
            .or_fail(name);
        let earlier = b
            .store
            .mark_turn_undone(&TurnUndo {
                guard: guard(&c, 0),
                turn_id: one.turn_id,
            })
            .await;
        assert!(is_conflict(&earlier), "{name}: {earlier:?}");

        // Two edits of "one": the second finds it replaced already, nothing changed.
        let edit = |content: &str| MessageReplacement {
            guard: guard(&c, 0),
            message_id: one.id,
            content: content.to_owned(),
            token_count: 1,
            owner: owner(),
        };
        let (first, _) = b
            .store
            .replace_user_message(&edit("first edit"))
            .await
            .or_fail(name);
        b.store
            .finish_turn(
                first.id,
                smallebot_core::entities::TurnStatus::Completed,
                None,
            )
            .await
            .or_fail(name);
        let before = describe(&b.rows(&c).await);
        let second = b.store.replace_user_message(&edit("second edit")).await;
        assert!(is_conflict(&second), "{name}: {second:?}");
        // And a regeneration decided on the replaced message is refused too.
        let restart = b
            .store
            .restart_turn(&TurnRestart {
                guard: guard(&c, 0),
                turn_id: one.turn_id,
                keep_message: one.id,
                owner: owner(),
            })
            .await;
        assert!(is_conflict(&restart), "{name}: {restart:?}");
        assert_eq!(describe(&b.rows(&c).await), before, "{name}");
    }
}

#[tokio::test]
async fn a_running_turn_refuses_every_rewrite() {
    for b in backends::each("a_running_turn_refuses_every_rewrite").await {
        let name = b.name;
        let c = b.conversation("ann").await;
        let done = b.user_turn(&c, "done").await;
        let running = b.running_user_turn(&c, "running").await;
        let rows = b.rows(&c).await;
        let message = user_message(&rows, "done");
        let before = describe(&rows);
        let replaced = b
            .store
            .replace_user_message(&MessageReplacement {
                guard: guard(&c, 0),
                message_id: message.id,
                content: "edited".into(),
                token_count: 1,
                owner: owner(),
            })
            .await;
        let restarted = b
            .store
            .restart_turn(&TurnRestart {
                guard: guard(&c, 0),
                turn_id: done.id,
                keep_message: message.id,
                owner: owner(),
            })
            .await;
        let undone = b
            .store
            .mark_turn_undone(&TurnUndo {
                guard: guard(&c, 0),
                turn_id: running.id,
            })
            .await;
        for (what, refused) in [
            ("replace", replaced.map(|_| ())),
            ("restart", restarted.map(|_| ())),
            ("undo", undone.map(|_| ())),
        ] {
            assert!(
                matches!(&refused, Err(RepositoryError::TurnRunning(t)) if t.id == running.id),
                "{name} {what}: {refused:?}"
            );
        }
        assert_eq!(describe(&b.rows(&c).await), before, "{name}");
    }
}
