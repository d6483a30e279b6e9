//! Contract: a model step is stored as one transaction — its reasoning, message and
//! tool calls with consecutive `seq`s (searchable, counted in the running total), the
//! end of the turn with the last one — or nothing at all. Runs on SQLite and PostgreSQL.

use crate::backends;

use crate::backends::{OrFail, owner, query, step_call};
use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    HistoryRow, NewStep, NewTurn, Role, SearchHitKind, SearchScope, StartedTurn, StepMessage,
    ToolCallStatus, TurnEnd, TurnStatus,
};
use smallebot_core::ids::{ConversationId, TurnId};

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
            step_call("c1", r#"{"path":"a.txt"}"#),
            step_call("c2", r#"{"path":"b \"quoted\".txt"}"#),
        ],
        end: None,
    }
}

#[tokio::test]
async fn a_step_stores_reasoning_message_and_calls_in_order() {
    for b in backends::each("a_step_stores_reasoning_message_and_calls_in_order").await {
        let name = b.name;
        let c = b.conversation("alice").await;
        let StartedTurn {
            turn,
            message: user,
            ..
        } = b
            .store
            .start_turn_in_context(&NewTurn {
                token_count: 2,
                ..NewTurn::new(c.id, "read them", &owner())
            })
            .await
            .or_fail(name);
        let recorded = b
            .store
            .record_step(&step(c.id, turn.id))
            .await
            .or_fail(name);
        assert_eq!(recorded.turn, None, "{name}: the turn goes on");
        let seqs: Vec<i64> = recorded.rows.iter().map(HistoryRow::seq).collect();
        let expected: Vec<i64> = (1..=4).map(|i| user.seq + i).collect();
        assert_eq!(seqs, expected, "{name}");
        // What the store returned is what it stored.
        let stored = b.store.rows_after(c.id, user.seq).await.or_fail(name);
        assert_eq!(stored, recorded.rows, "{name}");
        assert!(
            matches!(&stored[0], HistoryRow::ThinkBlock(t) if t.content == "think first"),
            "{name}: {stored:?}"
        );
        let HistoryRow::ToolCall(second) = &stored[3] else {
            panic!("{name}: {stored:?}")
        };
        assert_eq!(second.arguments, r#"{"path":"b \"quoted\".txt"}"#, "{name}");
        assert_eq!(second.status, ToolCallStatus::Running, "{name}");
        let HistoryRow::Message(message) = &stored[1] else {
            panic!("{name}: {stored:?}")
        };
        assert_eq!(
            (message.role, message.token_count),
            (Role::Assistant, 4),
            "{name}"
        );
        // The conversation as read carries the running total of what goes to the model:
        // user message 2 + step message 4 + two calls 7 each (reasoning counts nothing).
        let read = b
            .store
            .get_conversation(c.id)
            .await
            .or_fail(name)
            .or_fail(name);
        assert_eq!(read.context_tokens, 2 + 4 + 7 + 7, "{name}");
        let sum = b.store.token_sum_after(c.id, 0).await.or_fail(name);
        assert_eq!(read.context_tokens, sum, "{name}");
        // The next append continues after the step.
        let after = b
            .store
            .record_step(&NewStep {
                reasoning: None,
                tool_calls: vec![],
                ..step(c.id, turn.id)
            })
            .await
            .or_fail(name);
        assert_eq!(after.rows[0].seq(), user.seq + 5, "{name}");
        // Rows of a step are searchable like any other.
        let hits = b
            .store
            .search(&query("quoted", SearchScope::Conversation(c.id)))
            .await
            .or_fail(name);
        assert_eq!(hits.len(), 1, "{name}: {hits:?}");
        assert_eq!(
            (hits[0].seq, hits[0].kind),
            (user.seq + 4, SearchHitKind::ToolCall),
            "{name}: {hits:?}"
        );
    }
}

#[tokio::test]
async fn the_last_step_ends_the_turn_and_a_failing_step_stores_nothing() {
    for b in backends::each("the_last_step_ends_the_turn_and_a_failing_step").await {
        let name = b.name;
        // The last step ends the turn with its answer.
        let c = b.conversation("alice").await;
        let StartedTurn { turn, .. } = b
            .store
            .start_turn_in_context(&NewTurn {
                token_count: 1,
                ..NewTurn::new(c.id, "hi", &owner())
            })
            .await
            .or_fail(name);
        let recorded = b
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
            .or_fail(name);
        let ended = recorded.turn.or_fail(name);
        assert_eq!(
            (ended.status, ended.lease.clone()),
            (TurnStatus::Completed, None),
            "{name}"
        );
        assert!(ended.completed_at.is_some(), "{name}");
        let read = b.store.get_turn(turn.id).await.or_fail(name);
        assert_eq!(read, Some(ended), "{name}");
        assert_eq!(recorded.rows.len(), 1, "{name}");
        // The conversation may start its next turn.
        b.store
            .start_turn_in_context(&NewTurn {
                token_count: 1,
                ..NewTurn::new(c.id, "again", &owner())
            })
            .await
            .or_fail(name);

        // Two calls with one id: the second insert fails, so the reasoning, the message
        // and the first call go too.
        let c = b.conversation("alice").await;
        let StartedTurn {
            turn,
            message: user,
            ..
        } = b
            .store
            .start_turn_in_context(&NewTurn {
                token_count: 1,
                ..NewTurn::new(c.id, "hi", &owner())
            })
            .await
            .or_fail(name);
        let mut twice = step(c.id, turn.id);
        twice.tool_calls[1].call_id = "c1".into();
        let err = b.store.record_step(&twice).await.unwrap_err();
        assert!(matches!(err, RepositoryError::Conflict(_)), "{name}: {err}");
        assert_eq!(
            err.to_string(),
            "rejected: a tool call id of this step is already used in its turn",
            "{name}"
        );
        let after = b.store.rows_after(c.id, user.seq).await.or_fail(name);
        assert_eq!(after, vec![], "{name}");
        let read = b
            .store
            .get_conversation(c.id)
            .await
            .or_fail(name)
            .or_fail(name);
        assert_eq!(
            read.context_tokens, 1,
            "{name}: only the user message counts"
        );
        // The store is usable, and the seq was not used up.
        let next = b
            .store
            .record_step(&step(c.id, turn.id))
            .await
            .or_fail(name);
        assert_eq!(next.rows[0].seq(), user.seq + 1, "{name}");

        // Unknown conversation or turn: not found.
        let missing = ConversationId::new();
        let err = b
            .store
            .record_step(&step(missing, turn.id))
            .await
            .unwrap_err();
        assert!(
            matches!(err, RepositoryError::NotFound { .. }),
            "{name}: {err}"
        );
        let err = b
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
        assert!(
            matches!(err, RepositoryError::NotFound { .. }),
            "{name}: {err}"
        );
        let still = b.store.get_turn(turn.id).await.or_fail(name).or_fail(name);
        assert_eq!(still.status, TurnStatus::Running, "{name}");
    }
}

#[tokio::test]
async fn a_cut_answer_ends_its_turn_marked_cut() {
    use smallebot_core::entities::AnswerCut;
    for b in backends::each("a_cut_answer_ends_its_turn_marked_cut").await {
        let name = b.name;
        let c = b.conversation("alice").await;
        for cut in [AnswerCut::OutputLimit, AnswerCut::ContextFull] {
            let owner = owner();
            let turn = b
                .store
                .start_turn_in_context(&NewTurn {
                    token_count: 1,
                    ..NewTurn::new(c.id, "write a lot", &owner)
                })
                .await
                .or_fail(name)
                .turn;
            assert_eq!(turn.cut, None, "{name}: a running turn is not cut");
            let recorded = b
                .store
                .record_step(&NewStep {
                    reasoning: None,
                    tool_calls: vec![],
                    end: Some(TurnEnd {
                        status: TurnStatus::Completed,
                        error: None,
                        cut: Some(cut),
                    }),
                    ..step(c.id, turn.id)
                })
                .await
                .or_fail(name);
            let ended = recorded.turn.or_fail(name);
            assert_eq!(
                (ended.status, ended.cut),
                (TurnStatus::Completed, Some(cut)),
                "{name}"
            );
            let read = b.store.get_turn(turn.id).await.or_fail(name).or_fail(name);
            assert_eq!(read.cut, Some(cut), "{name}: stored, read back");
            let listed = b.store.list_turns(c.id).await.or_fail(name);
            assert_eq!(listed.last().and_then(|t| t.cut), Some(cut), "{name}");
        }
    }
}
