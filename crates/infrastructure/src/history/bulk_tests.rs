//! Packed history reads decode like table-by-table reads.

use super::*;
use smallebot_application::rewrite;
use smallebot_core::entities::{
    LeaseOwner, NewMessage, NewThinkBlock, NewToolCall, ToolCallCompletion, TurnStatus,
};
use smallebot_core::repository::{ConversationRepository, HistoryRepository, TurnRepository};
use smallebot_core::test_support::RowFixtures;

use crate::database::SqliteStore;

const AWKWARD: &str = "quotes \" and \\ backslashes, tabs\t, newlines\n, é, 🦀, \u{1} and </think>";

#[tokio::test]
async fn packed_rows_decode_exactly_like_rows_read_one_by_one() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("t.db")).await.unwrap();
    let c = store.create_conversation("u", "t").await.unwrap();
    let first = store.start_turn(c.id, true).await.unwrap();
    let message = |turn_id, role, content: &str| NewMessage {
        conversation_id: c.id,
        turn_id,
        role,
        content: content.to_owned(),
        token_count: 5,
    };
    let typo = store
        .append_message(&message(first.id, Role::User, "typo"))
        .await
        .unwrap();
    store
        .finish_turn(first.id, TurnStatus::Completed, None)
        .await
        .unwrap();
    let owner = LeaseOwner {
        pid: 1,
        host: "h".into(),
        started_at: chrono::Utc::now(),
    };
    let (turn, _) = rewrite::edit_user_message(&store, typo.id, AWKWARD, 7, &owner)
        .await
        .unwrap();
    store
        .append_think_block(&NewThinkBlock {
            conversation_id: c.id,
            turn_id: turn.id,
            content: AWKWARD.into(),
        })
        .await
        .unwrap();
    store
        .append_message(&message(turn.id, Role::Assistant, ""))
        .await
        .unwrap();
    for (call_id, result) in [("a", Some(AWKWARD)), ("b\"\\", None)] {
        store
            .append_tool_call(&NewToolCall {
                conversation_id: c.id,
                turn_id: turn.id,
                call_id: call_id.into(),
                tool_name: "Read\"File".into(),
                arguments: "{\"path\":\"a\\\\b\"}".into(),
                token_count: 9,
            })
            .await
            .unwrap();
        if let Some(result) = result {
            store
                .complete_tool_call(
                    turn.id,
                    call_id,
                    &ToolCallCompletion {
                        result: result.into(),
                        status: ToolCallStatus::Error,
                        token_count: 11,
                    },
                )
                .await
                .unwrap();
        }
    }
    store
        .append_message(&message(turn.id, Role::Assistant, AWKWARD))
        .await
        .unwrap();
    let conn = crate::open::connection(
        store.path(),
        crate::open::OpenMode::ReadOnly,
        std::time::Duration::from_secs(1),
    )
    .unwrap();
    let id = c.id.to_string();
    let all = table_by_table(&conn, (&id, 0, true)).unwrap();
    assert_eq!(all.len(), 7);
    assert!(
        all.iter()
            .any(|r| matches!(r, HistoryRow::Message(m) if m.replaced_by.is_some()))
    );
    for which in [Rows::All, Rows::InContext] {
        for after in [0, 1, 3, 100] {
            let packed = rows_after(&conn, c.id, after, which).unwrap();
            let plain = table_by_table(&conn, (&id, after, which.include_undone())).unwrap();
            assert_eq!(packed, plain, "after seq {after}");
        }
    }
    assert!(rows_after(&conn, c.id, 100, Rows::All).unwrap().is_empty());
    assert_eq!(store.rows_after(c.id, 0).await.unwrap(), all);
}
