//! Contract: turns — running turns listed and interrupted once, edit and regenerate
//! discarding later turns (never summarized ones), the first turn with its message, one
//! running turn per conversation with its lease. Runs on SQLite and PostgreSQL.

use crate::backends;
use smallebot_application::rewrite;

use crate::backends::{OrFail, owner};
use chrono::Utc;
use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    CompressionUpdate, FirstTurnTitle, HistoryRow, NewTurn, Role, StartedTurn, TurnStatus,
};
use smallebot_core::ids::ConversationId;

#[tokio::test]
async fn a_running_turn_is_listed_and_can_be_interrupted_once() {
    for b in backends::each("a_running_turn_is_listed_and_can_be_interrupted_once").await {
        let name = b.name;
        let c = b.conversation("alice").await;
        let done = b.user_turn(&c, "done").await;
        let running = b.running_user_turn(&c, "in flight").await;
        let listed = b.store.running_turns().await.or_fail(name);
        let ids: Vec<_> = listed.iter().map(|t| t.id).collect();
        assert_eq!(ids, [running.id], "{name}");
        let current = b.store.running_turn(c.id).await.or_fail(name);
        assert_eq!(current.map(|t| t.id), Some(running.id), "{name}");
        assert!(
            b.store.interrupt_turn(running.id).await.or_fail(name),
            "{name}"
        );
        assert!(
            !b.store.interrupt_turn(running.id).await.or_fail(name),
            "{name}"
        );
        assert!(
            !b.store.interrupt_turn(done.id).await.or_fail(name),
            "{name}"
        );
        assert!(
            b.store.running_turns().await.or_fail(name).is_empty(),
            "{name}"
        );
        assert!(
            b.store.running_turn(c.id).await.or_fail(name).is_none(),
            "{name}"
        );
        let t = b
            .store
            .get_turn(running.id)
            .await
            .or_fail(name)
            .or_fail(name);
        assert_eq!(t.status, TurnStatus::Interrupted, "{name}");
        let d = b.store.get_turn(done.id).await.or_fail(name).or_fail(name);
        assert_eq!(d.status, TurnStatus::Completed, "{name}");
        // The user message is still there.
        let rows = b.rows(&c).await;
        assert!(
            rows.iter()
                .any(|r| matches!(r, HistoryRow::Message(m) if m.content == "in flight")),
            "{name}: {rows:?}"
        );
    }
}

#[tokio::test]
async fn edit_and_regenerate_discard_later_turns_but_never_summarized_rows() {
    for b in backends::each("edit_and_regenerate_discard_later_turns").await {
        let name = b.name;
        let me = owner();
        // Edit: the edited turn's output and later turns go, the old message stays
        // marked replaced.
        let c = b.conversation("alice").await;
        let t1 = b.user_turn(&c, "keep").await;
        b.assistant(&c, &t1, "kept answer").await;
        let t2 = b.user_turn(&c, "typo").await;
        b.tool(&c, &t2, "x", "{}", "r").await;
        b.assistant(&c, &t2, "answer to typo").await;
        let t3 = b.user_turn(&c, "later").await;
        b.assistant(&c, &t3, "later answer").await;
        let rows = b.rows(&c).await;
        let HistoryRow::Message(typo) = &rows[2] else {
            panic!("{name}: expected a message in {rows:?}")
        };
        let (turn, edited) = rewrite::edit_user_message(&*b.store, typo.id, "fixed", 2, &owner())
            .await
            .or_fail(name);
        assert!(edited.is_edited, "{name}");
        assert_eq!(edited.turn_id, turn.id, "{name}");
        assert_eq!(turn.status, TurnStatus::Running, "{name}");
        assert_eq!(
            backends::describe(&b.rows(&c).await),
            [
                "user:keep:false",
                "assistant:kept answer:false",
                "user:typo:true",
                "user:fixed:false"
            ],
            "{name}"
        );
        assert_eq!(
            b.store.list_turns(c.id).await.or_fail(name).len(),
            3,
            "{name}"
        );
        // The replaced message is excluded from the token sum.
        let sum = b.store.token_sum_after(c.id, 0).await.or_fail(name);
        assert_eq!(sum, 3 + 5 + 2, "{name}");
        // Editing the replaced message again is refused.
        let again = rewrite::edit_user_message(&*b.store, typo.id, "again", 1, &me);
        assert!(again.await.is_err(), "{name}");

        // Regenerate: the turn's output and later turns go, the user message stays.
        let c = b.conversation("alice").await;
        let t1 = b.user_turn(&c, "question").await;
        b.tool(&c, &t1, "x", "{}", "r").await;
        b.assistant(&c, &t1, "bad answer").await;
        let t2 = b.user_turn(&c, "later").await;
        b.assistant(&c, &t2, "later answer").await;
        let (turn, user) = rewrite::regenerate_turn(&*b.store, t1.id, &owner())
            .await
            .or_fail(name);
        assert_eq!(turn.status, TurnStatus::Running, "{name}");
        assert_eq!(user.content, "question", "{name}");
        assert_eq!(
            backends::describe(&b.rows(&c).await),
            ["user:question:false"],
            "{name}"
        );
        assert_eq!(
            b.store.list_turns(c.id).await.or_fail(name).len(),
            1,
            "{name}"
        );

        // Rows summarized by compression can be neither edited nor regenerated.
        let c = b.conversation("alice").await;
        let t1 = b.user_turn(&c, "old").await;
        b.assistant(&c, &t1, "old answer").await;
        let rows = b.rows(&c).await;
        let update = CompressionUpdate {
            compressed_context: "s".into(),
            compressed_at: Utc::now(),
            compressed_through_seq: rows[1].seq(),
            expected_previous_seq: None,
        };
        b.store.set_compression(c.id, &update).await.or_fail(name);
        let HistoryRow::Message(old) = &rows[0] else {
            panic!("{name}: expected a message in {rows:?}")
        };
        let err = rewrite::edit_user_message(&*b.store, old.id, "new", 1, &owner())
            .await
            .unwrap_err();
        assert!(err.to_string().contains("summarized"), "{name}: {err}");
        let regenerate = rewrite::regenerate_turn(&*b.store, t1.id, &me);
        assert!(regenerate.await.is_err(), "{name}");
        assert_eq!(b.rows(&c).await, rows, "{name}");
    }
}

#[tokio::test]
async fn a_turn_starts_with_its_message_one_at_a_time_and_holds_a_lease() {
    for b in backends::each("a_turn_starts_with_its_message_one_at_a_time").await {
        let name = b.name;
        let c = b.conversation("alice").await;
        let me = owner();
        let StartedTurn {
            turn: first,
            message,
            ..
        } = b
            .store
            .start_turn_in_context(&NewTurn {
                token_count: 3,
                ..NewTurn::new(c.id, "hello", &me)
            })
            .await
            .or_fail(name);
        assert_eq!(
            first.seq, 1,
            "{name}: a conversation's first turn has seq 1"
        );
        assert_eq!(
            (message.turn_id, message.seq, message.role),
            (first.id, 2, Role::User),
            "{name}"
        );
        // An unknown conversation: not found, nothing stored.
        let missing = ConversationId::new();
        let refused = b
            .store
            .start_turn_in_context(&NewTurn {
                token_count: 1,
                ..NewTurn::new(missing, "lost?", &me)
            })
            .await;
        b.refused_as_unknown(refused, missing).await;
        let running = b.store.running_turns().await.or_fail(name);
        assert_eq!(running.len(), 1, "{name}: {running:?}");

        let lease = first.lease.clone().or_fail(name);
        assert_eq!(lease.owner, me, "{name}");
        let read = b.store.get_turn(first.id).await.or_fail(name).or_fail(name);
        assert_eq!(read.lease, Some(lease), "{name}");

        // A second start is refused with the running turn, and stores nothing.
        let err = b
            .store
            .start_turn_in_context(&NewTurn {
                token_count: 1,
                ..NewTurn::new(c.id, "second", &me)
            })
            .await
            .unwrap_err();
        let RepositoryError::TurnRunning(running) = &err else {
            panic!("{name}: {err}")
        };
        assert_eq!(running.id, first.id, "{name}");
        assert!(err.to_string().contains("test-host"), "{name}: {err}");
        assert_eq!(b.rows(&c).await.len(), 1, "{name}");
        assert_eq!(
            b.store.list_turns(c.id).await.or_fail(name).len(),
            1,
            "{name}"
        );
        // Other conversations are not affected.
        let other = b.conversation("alice").await;
        b.store
            .start_turn_in_context(&NewTurn {
                token_count: 1,
                ..NewTurn::new(other.id, "elsewhere", &me)
            })
            .await
            .or_fail(name);

        let later = Utc::now() + chrono::Duration::seconds(30);
        assert!(
            b.store.heartbeat(first.id, later).await.or_fail(name),
            "{name}"
        );
        let beat = b.store.get_turn(first.id).await.or_fail(name).or_fail(name);
        let beat = beat.lease.or_fail(name);
        assert_eq!(
            smallebot_core::time::format_timestamp(&beat.heartbeat_at),
            smallebot_core::time::format_timestamp(&later),
            "{name}"
        );
        // Finishing ends the lease; then the next turn may start.
        let done = b
            .store
            .finish_turn(first.id, TurnStatus::Completed, None)
            .await
            .or_fail(name);
        assert_eq!(done.lease, None, "{name}");
        assert!(
            !b.store.heartbeat(first.id, later).await.or_fail(name),
            "{name}"
        );
        b.store
            .start_turn_in_context(&NewTurn {
                token_count: 1,
                ..NewTurn::new(c.id, "second", &me)
            })
            .await
            .or_fail(name);
    }
}

#[tokio::test]
async fn a_first_turn_gives_a_new_conversation_its_title_and_only_then() {
    for b in backends::each("a_first_turn_gives_a_new_conversation_its_title").await {
        let name = b.name;
        let me = owner();
        let title = |title| FirstTurnTitle {
            untitled: "New conversation",
            title,
        };
        let title_of = |id| {
            let store = &b.store;
            async move {
                let c = store.get_conversation(id).await.or_fail(name);
                c.or_fail(name).title
            }
        };
        // A new conversation's first turn: titled with it.
        let fresh = b.conversation("alice").await;
        let StartedTurn {
            turn: first,
            message,
            titled,
            ..
        } = b
            .store
            .start_turn_in_context(&NewTurn {
                token_count: 3,
                title: Some(title("hello")),
                ..NewTurn::new(fresh.id, "hello", &me)
            })
            .await
            .or_fail(name);
        assert!(titled, "{name}");
        assert_eq!((first.seq, message.seq), (1, 2), "{name}");
        assert_eq!(title_of(fresh.id).await, "hello", "{name}");
        b.store
            .finish_turn(first.id, TurnStatus::Completed, None)
            .await
            .or_fail(name);
        // A later turn leaves the title alone, even with the placeholder title back.
        b.store
            .rename_conversation(fresh.id, "New conversation")
            .await
            .or_fail(name);
        let StartedTurn {
            turn: second,
            titled,
            ..
        } = b
            .store
            .start_turn_in_context(&NewTurn {
                token_count: 1,
                title: Some(title("again")),
                ..NewTurn::new(fresh.id, "again", &me)
            })
            .await
            .or_fail(name);
        assert!(!titled, "{name}");
        assert_eq!(second.seq, 3, "{name}");
        assert_eq!(title_of(fresh.id).await, "New conversation", "{name}");
        // A first turn of a conversation renamed meanwhile keeps the chosen title.
        let named = b.conversation("alice").await;
        b.store
            .rename_conversation(named.id, "Chosen")
            .await
            .or_fail(name);
        let StartedTurn { titled, .. } = b
            .store
            .start_turn_in_context(&NewTurn {
                token_count: 1,
                title: Some(title("hi")),
                ..NewTurn::new(named.id, "hi", &me)
            })
            .await
            .or_fail(name);
        assert!(!titled, "{name}");
        assert_eq!(title_of(named.id).await, "Chosen", "{name}");
        // Refused while a turn runs: nothing stored, the title unchanged.
        let err = b
            .store
            .start_turn_in_context(&NewTurn {
                token_count: 1,
                title: Some(title("busy")),
                ..NewTurn::new(named.id, "busy", &me)
            })
            .await
            .unwrap_err();
        assert!(
            matches!(err, RepositoryError::TurnRunning(_)),
            "{name}: {err}"
        );
        assert_eq!(title_of(named.id).await, "Chosen", "{name}");
    }
}

#[tokio::test]
async fn a_turn_that_ends_first_ends_its_running_tool_calls_interrupted() {
    use smallebot_core::entities::{NewToolCall, ToolCallStatus};
    for b in backends::each("a_turn_that_ends_first_ends_its_running_tool_calls").await {
        let name = b.name;
        let c = b.conversation("alice").await;
        // Every way a turn can end while a call still runs: the recovery of a turn
        // whose process stopped, and the turn's own end (a failure mid-turn).
        let recovered = b.running_user_turn(&c, "recovered").await;
        let start_call = |turn: smallebot_core::ids::TurnId, call_id: &str| NewToolCall {
            conversation_id: c.id,
            turn_id: turn,
            call_id: call_id.to_owned(),
            tool_name: backends::TOOL.to_owned(),
            arguments: "{}".to_owned(),
            token_count: 7,
        };
        b.store
            .append_tool_call(&start_call(recovered.id, "open"))
            .await
            .or_fail(name);
        b.tool(&c, &recovered, "done", "{}", "finished").await;
        assert!(
            b.store.interrupt_turn(recovered.id).await.or_fail(name),
            "{name}"
        );
        let failed = b.running_user_turn(&c, "failed").await;
        b.store
            .append_tool_call(&start_call(failed.id, "open"))
            .await
            .or_fail(name);
        b.store
            .finish_turn(failed.id, TurnStatus::Failed, Some("storage went away"))
            .await
            .or_fail(name);
        let calls: Vec<_> = b
            .rows(&c)
            .await
            .into_iter()
            .filter_map(|r| match r {
                HistoryRow::ToolCall(call) => Some(call),
                _ => None,
            })
            .collect();
        let seen: Vec<_> = calls
            .iter()
            .map(|call| (call.call_id.as_str(), call.status, call.result.is_some()))
            .collect();
        assert_eq!(
            seen,
            [
                ("open", ToolCallStatus::Interrupted, false),
                ("done", ToolCallStatus::Ok, true),
                ("open", ToolCallStatus::Interrupted, false),
            ],
            "{name}"
        );
        assert!(
            calls.iter().all(|call| call.completed_at.is_some()),
            "{name}: {calls:?}"
        );
    }
}
