//! Contract: search finds the newest hits however deep they are. More rows than the
//! PostgreSQL store's first pass reads (its newest 2 000 per source): a rare word in
//! the oldest row is still found, a frequent word returns the newest rows, and hits of
//! different sources (messages, tool calls, results) merge newest first.

use crate::backends;

use crate::backends::{OrFail, TOOL, query};
use smallebot_core::entities::{NewMessage, Role, SearchHitKind, SearchScope};

/// More rows than the PostgreSQL store's first-pass window.
const FILLER: usize = 2_100;

#[tokio::test]
async fn deep_rare_words_and_frequent_words_are_both_found_newest_first() {
    for b in backends::each("deep_rare_words_and_frequent_words").await {
        let name = b.name;
        let c = b.conversation("alice").await;
        let turn = b.running_user_turn(&c, "an ancient zebra").await;
        b.tool(&c, &turn, "early", r#"{"animal":"okapi"}"#, "okapi seen")
            .await;
        for n in 0..FILLER {
            b.store
                .append_message(&NewMessage {
                    conversation_id: c.id,
                    turn_id: turn.id,
                    role: Role::Assistant,
                    content: format!("filler line {n}"),
                    token_count: 1,
                })
                .await
                .or_fail(name);
        }
        b.tool(&c, &turn, "late", r#"{"note":"filler"}"#, "done")
            .await;

        let scopes = [
            SearchScope::All,
            SearchScope::User("alice".into()),
            SearchScope::Conversation(c.id),
        ];
        for scope in scopes {
            let rare = b
                .store
                .search(&query("zebra", scope.clone()))
                .await
                .or_fail(name);
            assert_eq!(
                rare.iter().map(|h| h.text.as_str()).collect::<Vec<_>>(),
                ["an ancient zebra"],
                "{name} {scope:?}"
            );
            let old_tool = b
                .store
                .search(&query("okapi", scope.clone()))
                .await
                .or_fail(name);
            assert_eq!(
                old_tool.iter().map(|h| h.kind).collect::<Vec<_>>(),
                [SearchHitKind::ToolResult, SearchHitKind::ToolCall],
                "{name} {scope:?}"
            );
            let mut frequent = query("filler", scope.clone());
            frequent.limit = 3;
            let newest = b.store.search(&frequent).await.or_fail(name);
            let texts: Vec<&str> = newest.iter().map(|h| h.text.as_str()).collect();
            assert_eq!(
                texts,
                [
                    format!(r#"{TOOL}({{"note":"filler"}})"#).as_str(),
                    format!("filler line {}", FILLER - 1).as_str(),
                    format!("filler line {}", FILLER - 2).as_str(),
                ],
                "{name} {scope:?}"
            );
        }
        let other = b.conversation("bob").await;
        let nothing = b
            .store
            .search(&query("zebra", SearchScope::Conversation(other.id)))
            .await
            .or_fail(name);
        assert!(nothing.is_empty(), "{name}");
        let nobody = b
            .store
            .search(&query("zebra", SearchScope::User("bob".into())))
            .await
            .or_fail(name);
        assert!(nobody.is_empty(), "{name}");
    }
}
