//! Contract: the words both stores write and read — every status and role a store
//! stores comes back as the same value on both engines (the words live once in core,
//! beside each entity) — and what a store says of a value it cannot read is worded the
//! same, word for word.

use std::collections::BTreeMap;

use crate::backends::{self, OrFail, owner};
use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    HistoryRow, NewToolCall, NewTurn, Role, StartedTurn, ToolCallCompletion, ToolCallStatus,
    TurnStatus,
};

#[tokio::test]
async fn every_status_and_role_is_written_and_read_back_alike() {
    for b in backends::each("every_status_and_role_is_written_and_read_back_alike").await {
        let name = b.name;
        let c = b.conversation("alice").await;
        let running = b.running_user_turn(&c, "still running?").await;
        let read = b.store.get_turn(running.id).await.or_fail(name).unwrap();
        assert_eq!(read.status, TurnStatus::Running, "{name}");
        assert!(
            b.store.interrupt_turn(running.id).await.or_fail(name),
            "{name}"
        );
        let read = b.store.get_turn(running.id).await.or_fail(name).unwrap();
        assert_eq!(read.status, TurnStatus::Interrupted, "{name}");
        for status in [
            TurnStatus::Completed,
            TurnStatus::Cancelled,
            TurnStatus::Failed,
        ] {
            let t = b.running_user_turn(&c, "q").await;
            let error = (status == TurnStatus::Failed).then_some("boom");
            let ended = b.store.finish_turn(t.id, status, error).await.or_fail(name);
            assert_eq!(ended.status, status, "{name}");
            let read = b.store.get_turn(t.id).await.or_fail(name).unwrap();
            assert_eq!(
                (read.status, read.error.as_deref()),
                (status, error),
                "{name}"
            );
        }

        // Every tool call status: four completed, one left running and ended with its
        // turn (`interrupted`).
        let t = b.running_user_turn(&c, "calls").await;
        b.assistant(&c, &t, "calling").await;
        let completed = [
            ToolCallStatus::Ok,
            ToolCallStatus::Error,
            ToolCallStatus::Denied,
            ToolCallStatus::Cancelled,
        ];
        for (i, _) in completed
            .iter()
            .enumerate()
            .chain([(4, &ToolCallStatus::Running)])
        {
            b.store
                .append_tool_call(&NewToolCall {
                    conversation_id: c.id,
                    turn_id: t.id,
                    call_id: format!("call_{i}"),
                    tool_name: backends::TOOL.to_owned(),
                    arguments: "{}".to_owned(),
                    token_count: 1,
                })
                .await
                .or_fail(name);
        }
        for (i, status) in completed.iter().enumerate() {
            let completion = ToolCallCompletion {
                result: "r".to_owned(),
                status: *status,
                token_count: 1,
            };
            let call = b
                .store
                .complete_tool_call(t.id, &format!("call_{i}"), &completion)
                .await
                .or_fail(name);
            assert_eq!(call.status, *status, "{name}");
        }
        b.store
            .finish_turn(t.id, TurnStatus::Cancelled, None)
            .await
            .or_fail(name);
        let mut calls = BTreeMap::new();
        let mut roles = Vec::new();
        for row in b.rows(&c).await {
            match row {
                HistoryRow::ToolCall(call) => {
                    calls.insert(call.call_id, call.status);
                }
                HistoryRow::Message(m) if m.turn_id == t.id => roles.push(m.role),
                _ => {}
            }
        }
        let expected: BTreeMap<String, ToolCallStatus> = completed
            .iter()
            .chain([&ToolCallStatus::Interrupted])
            .enumerate()
            .map(|(i, s)| (format!("call_{i}"), *s))
            .collect();
        assert_eq!(calls, expected, "{name}");
        assert_eq!(roles, [Role::User, Role::Assistant], "{name}");
    }
}

#[tokio::test]
async fn a_stored_value_no_entity_can_hold_is_refused_in_the_same_words() {
    for b in backends::each("a_stored_value_no_entity_can_hold_is_refused_in_the_same_words").await
    {
        let name = b.name;
        let c = b.conversation("alice").await;
        let me = owner();
        let StartedTurn { turn, .. } = b
            .store
            .start_turn_in_context(&NewTurn::new(c.id, "hello", &me))
            .await
            .or_fail(name);
        // A process id no process has.
        b.execute("UPDATE turns SET owner_pid = -1").await;
        let err = b.store.get_turn(turn.id).await.unwrap_err();
        assert!(matches!(err, RepositoryError::Corrupt(_)), "{name}: {err}");
        assert_eq!(
            err.to_string(),
            "stored data is invalid: owner_pid: out of range integral type conversion attempted",
            "{name}"
        );
    }
}
