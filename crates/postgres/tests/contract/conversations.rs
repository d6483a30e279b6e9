//! Contract: conversations — create, list per user newest first, rename, model,
//! cascading delete, compression boundary. Runs on SQLite and PostgreSQL.

use crate::backends;

use smallebot_core::RepositoryError;
use smallebot_core::entities::CompressionUpdate;

#[tokio::test]
async fn conversations_are_created_listed_renamed_and_deleted_with_their_rows() {
    for b in backends::each("conversations_are_created_listed_renamed_and_deleted").await {
        let name = b.name;
        let a1 = b.conversation("alice").await;
        let bob = b.conversation("bob").await;
        tokio::time::sleep(std::time::Duration::from_millis(3)).await;
        let a2 = b.conversation("alice").await;
        let listed: Vec<_> = b
            .store
            .list_conversations(Some("alice"))
            .await
            .unwrap()
            .into_iter()
            .map(|c| c.id)
            .collect();
        assert_eq!(listed, [a2.id, a1.id], "{name}");
        assert_eq!(
            b.store.list_conversations(None).await.unwrap().len(),
            3,
            "{name}"
        );
        // Timestamps have millisecond resolution: let the clock move past a2's.
        tokio::time::sleep(std::time::Duration::from_millis(3)).await;
        b.store.rename_conversation(a1.id, "Renamed").await.unwrap();
        b.store
            .set_conversation_model(a1.id, Some("fast"))
            .await
            .unwrap();
        let got = b.store.get_conversation(a1.id).await.unwrap().unwrap();
        assert_eq!(
            (got.title.as_str(), got.model.as_deref()),
            ("Renamed", Some("fast")),
            "{name}"
        );
        // Renaming bumps it to the top.
        let top = b.store.list_conversations(Some("alice")).await.unwrap()[0].id;
        assert_eq!(top, a1.id, "{name}");
        let turn = b.user_turn(&a1, "hello pelican").await;
        b.assistant(&a1, &turn, "a pelican answer").await;
        b.tool(&a1, &turn, "call_1", r#"{"command":"ls"}"#, "pelican.txt")
            .await;
        assert!(b.store.delete_conversation(a1.id).await.unwrap(), "{name}");
        assert!(!b.store.delete_conversation(a1.id).await.unwrap(), "{name}");
        assert!(
            b.store.get_conversation(a1.id).await.unwrap().is_none(),
            "{name}"
        );
        assert!(b.store.get_turn(turn.id).await.unwrap().is_none(), "{name}");
        assert!(
            b.store.rows_after(a1.id, 0).await.unwrap().is_empty(),
            "{name}"
        );
        let hits = b
            .store
            .search(&smallebot_core::entities::SearchQuery {
                text: "pelican".into(),
                scope: smallebot_core::entities::SearchScope::All,
                since: None,
                limit: 10,
            })
            .await
            .unwrap();
        assert!(hits.is_empty(), "{name}: {hits:?}");
        let missing = b.store.rename_conversation(a1.id, "x").await.unwrap_err();
        assert!(
            matches!(missing, RepositoryError::NotFound { .. }),
            "{name}: {missing}"
        );
        assert!(
            b.store.get_conversation(bob.id).await.unwrap().is_some(),
            "{name}"
        );
    }
}

#[tokio::test]
async fn the_compression_boundary_moves_forward_atomically_and_recounts_the_context() {
    for b in backends::each("the_compression_boundary_moves_forward_atomically").await {
        let name = b.name;
        let c = b.conversation("alice").await;
        let first = b.user_turn(&c, "one").await; // seq 1 turn, 2 message
        b.assistant(&c, &first, "answer one").await; // 3
        let second = b.user_turn(&c, "two").await; // 4 turn, 5 message
        b.assistant(&c, &second, "answer two").await; // 6
        let before = b.store.get_conversation(c.id).await.unwrap().unwrap();
        assert_eq!(before.context_tokens, 3 + 5 + 3 + 5, "{name}");
        let update = |through, expected| CompressionUpdate {
            compressed_context: "summary".into(),
            compressed_at: chrono::SubsecRound::trunc_subsecs(chrono::Utc::now(), 3),
            compressed_through_seq: through,
            expected_previous_seq: expected,
        };
        let after = b
            .store
            .set_compression(c.id, &update(3, None))
            .await
            .unwrap();
        assert_eq!(after.compressed_through_seq, Some(3), "{name}");
        assert_eq!(after.context_tokens, 3 + 5, "{name}");
        // Stale expectation, backwards, or a seq naming no row: refused, nothing changed.
        // Each refusal is told in words (not in Rust's debug notation), the same on
        // both engines.
        for (bad, said) in [
            (
                update(6, None),
                "rejected: the conversation was compacted by another request meanwhile; \
                 nothing changed"
                    .to_owned(),
            ),
            (
                update(2, Some(3)),
                "rejected: the compression boundary must move forward (from 3 to 2)".to_owned(),
            ),
            (
                update(99, Some(3)),
                format!("rejected: no row with seq 99 in conversation {}", c.id),
            ),
        ] {
            let err = b.store.set_compression(c.id, &bad).await.unwrap_err();
            assert!(matches!(err, RepositoryError::Conflict(_)), "{name}: {err}");
            assert_eq!(err.to_string(), said, "{name}");
        }
        let now = b.store.get_conversation(c.id).await.unwrap().unwrap();
        assert_eq!(now.compressed_through_seq, Some(3), "{name}");
        assert_eq!(now.compressed_context.as_deref(), Some("summary"), "{name}");
        assert_eq!(now.context_tokens, 3 + 5, "{name}");
    }
}

#[tokio::test]
async fn a_sub_agents_conversation_keeps_its_link_to_the_parents_call() {
    use smallebot_core::entities::SubAgentLink;
    for b in backends::each("a_sub_agents_conversation_keeps_its_link").await {
        let name = b.name;
        let parent = b.conversation("alice").await;
        let link = SubAgentLink {
            parent_conversation_id: parent.id,
            parent_tool_call_id: "call_7".into(),
            agent_name: "reviewer".into(),
        };
        let sub = b
            .store
            .create_sub_conversation("alice", "reviewer: check it", link.clone())
            .await
            .unwrap();
        assert_eq!(sub.parent.as_ref(), Some(&link), "{name}");
        let read = b.store.get_conversation(sub.id).await.unwrap().unwrap();
        assert_eq!(read, sub, "{name}");
        let listed = b.store.list_conversations(Some("alice")).await.unwrap();
        let found: Vec<_> = listed.iter().map(|c| (c.id, c.parent.clone())).collect();
        assert!(found.contains(&(sub.id, Some(link.clone()))), "{name}");
        assert!(found.contains(&(parent.id, None)), "{name}");
        // The parent's deletion keeps the sub-agent's conversation and its link.
        b.store.delete_conversation(parent.id).await.unwrap();
        let kept = b.store.get_conversation(sub.id).await.unwrap().unwrap();
        assert_eq!(kept.parent, Some(link), "{name}");
    }
}

#[tokio::test]
async fn a_parents_sub_agents_are_read_with_their_latest_turn_in_one_query() {
    use smallebot_core::entities::{SubAgentLink, TurnStatus};
    for b in backends::each("a_parents_sub_agents_are_read_with_their_latest_turn").await {
        let name = b.name;
        let parent = b.conversation("alice").await;
        let other = b.conversation("alice").await;
        let link = |parent_id, call: &str| SubAgentLink {
            parent_conversation_id: parent_id,
            parent_tool_call_id: call.into(),
            agent_name: "reviewer".into(),
        };
        let sub = |parent_id, call: &'static str| {
            let store = b.store.clone();
            async move {
                store
                    .create_sub_conversation("alice", call, link(parent_id, call))
                    .await
                    .unwrap()
            }
        };
        // Before any sub-agent: nothing.
        assert!(
            b.store.sub_agent_runs(parent.id).await.unwrap().is_empty(),
            "{name}"
        );
        let first = sub(parent.id, "call_1").await;
        let second = sub(parent.id, "call_2").await;
        let never_ran = sub(parent.id, "call_3").await;
        let elsewhere = sub(other.id, "call_9").await;
        // The first ran twice: only its latest turn counts (one tool call, failed).
        let earlier = b.user_turn(&first, "go").await;
        b.tool(&first, &earlier, "a", "{}", "ok").await;
        b.tool(&first, &earlier, "b", "{}", "ok").await;
        let latest = b.running_user_turn(&first, "again").await;
        b.tool(&first, &latest, "c", "{}", "ok").await;
        b.store
            .finish_turn(latest.id, TurnStatus::Failed, Some("model unreachable"))
            .await
            .unwrap();
        // The second is still running, with two tool calls.
        let running = b.running_user_turn(&second, "look").await;
        b.tool(&second, &running, "d", "{}", "ok").await;
        b.tool(&second, &running, "e", "{}", "ok").await;
        b.tool(
            &elsewhere,
            &b.running_user_turn(&elsewhere, "x").await,
            "f",
            "{}",
            "ok",
        )
        .await;

        let runs = b.store.sub_agent_runs(parent.id).await.unwrap();
        let seen: Vec<_> = runs
            .iter()
            .map(|r| {
                (
                    r.conversation.id,
                    r.latest_status,
                    r.latest_error.clone(),
                    r.tool_calls,
                )
            })
            .collect();
        assert_eq!(
            seen,
            vec![
                (
                    first.id,
                    Some(TurnStatus::Failed),
                    Some("model unreachable".to_owned()),
                    1
                ),
                (second.id, Some(TurnStatus::Running), None, 2),
                (never_ran.id, None, None, 0),
            ],
            "{name}"
        );
        assert_eq!(
            runs[0].conversation.parent,
            Some(link(parent.id, "call_1")),
            "{name}"
        );
    }
}
