//! Full-text search: newest first, scoped, never an SQL error.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use smallebot_core::entities::{NewTurn, SearchHitKind, SearchQuery, SearchScope, StartedTurn};
use smallebot_core::repository::SearchRepository;

fn query(text: &str, scope: SearchScope) -> SearchQuery {
    SearchQuery {
        text: text.into(),
        scope,
        since: None,
        limit: 10,
    }
}

#[tokio::test]
async fn finds_words_in_messages_and_tool_results_newest_first() {
    let f = fixture().await;
    let c = conversation(&f.store, "alice").await;
    let t1 = user_turn(&f.store, &c, "where is the pelican config").await;
    tool(
        &f.store,
        &c,
        &t1,
        "c1",
        r#"{"command":"find . -name pelican.toml"}"#,
        "./etc/pelican.toml",
    )
    .await;
    assistant(&f.store, &c, &t1, "The pelican config is in etc").await;

    let hits = f
        .store
        .search(&query("pelican", SearchScope::Conversation(c.id)))
        .await
        .unwrap();
    let kinds: Vec<SearchHitKind> = hits.iter().map(|h| h.kind).collect();
    assert_eq!(
        kinds,
        [
            SearchHitKind::Assistant,
            SearchHitKind::ToolResult,
            SearchHitKind::ToolCall,
            SearchHitKind::User
        ]
    );
    assert!(hits.windows(2).all(|w| w[0].seq >= w[1].seq));
    assert_eq!(hits[1].text, "./etc/pelican.toml");
    assert!(hits[2].text.starts_with("ExecuteCommand("));
    assert_eq!(hits[0].conversation_title, "New conversation");

    let limited = f
        .store
        .search(&SearchQuery {
            limit: 2,
            ..query("pelican", SearchScope::All)
        })
        .await
        .unwrap();
    assert_eq!(limited.len(), 2);
    assert_eq!(limited[0].kind, SearchHitKind::Assistant);
}

#[tokio::test]
async fn user_scope_never_returns_another_users_rows() {
    let f = fixture().await;
    let a = conversation(&f.store, "alice").await;
    let b = conversation(&f.store, "bob").await;
    user_turn(&f.store, &a, "secret walrus plan").await;
    user_turn(&f.store, &b, "bob walrus notes").await;
    let alice = f
        .store
        .search(&query("walrus", SearchScope::User("alice".into())))
        .await
        .unwrap();
    assert_eq!(alice.len(), 1);
    assert_eq!(alice[0].conversation_id, a.id);
    let everyone = f
        .store
        .search(&query("walrus", SearchScope::All))
        .await
        .unwrap();
    assert_eq!(everyone.len(), 2);
}

#[tokio::test]
async fn since_filters_old_rows() {
    let f = fixture().await;
    let c = conversation(&f.store, "alice").await;
    user_turn(&f.store, &c, "ancient otter").await;
    sqlx::query("UPDATE search_rows SET created_at = '2020-01-01T00:00:00.000Z'")
        .execute(f.store.pool())
        .await
        .unwrap();
    user_turn(&f.store, &c, "fresh otter").await;
    let recent = f
        .store
        .search(&SearchQuery {
            since: Some(chrono::Utc::now() - chrono::Duration::days(7)),
            ..query("otter", SearchScope::All)
        })
        .await
        .unwrap();
    assert_eq!(recent.len(), 1);
    assert_eq!(recent[0].text, "fresh otter");
}

#[tokio::test]
async fn fts_syntax_in_queries_never_errors() {
    let f = fixture().await;
    let c = conversation(&f.store, "alice").await;
    user_turn(&f.store, &c, "error: \"quoted\" a-b NEAR c AND (x) prefix*").await;
    for text in [
        "\"",
        "\"quoted\"",
        "*",
        "prefix*",
        "-",
        "a-b",
        ":",
        "error:",
        "(",
        "(x)",
        ")",
        "NEAR",
        "NEAR(a b)",
        "AND",
        "a AND",
        "OR NOT",
        "^start",
        "col:val",
        "{a b}",
        "'",
        "''",
        "\\",
        "NEAR/3",
        "+",
        "quoted\"",
        "",
    ] {
        let result = f.store.search(&query(text, SearchScope::All)).await;
        assert!(result.is_ok(), "query {text:?} failed: {:?}", result.err());
    }
    let hits = f
        .store
        .search(&query("\"quoted\"", SearchScope::All))
        .await
        .unwrap();
    assert_eq!(hits.len(), 1);
    let hits = f
        .store
        .search(&query("AND", SearchScope::All))
        .await
        .unwrap();
    assert_eq!(hits.len(), 1, "AND is searched as a word");
}

/// Text goes into the full-text index in batches: before any search — so a search finds
/// everything stored, also what a running turn wrote — and when a turn ends with a full
/// batch pending.
#[tokio::test]
async fn text_is_indexed_before_every_search_and_in_full_batches_at_turn_end() {
    use smallebot_core::entities::{
        NewStep, StepMessage, StepToolCall, ToolCallCompletion, ToolCallStatus, TurnEnd, TurnStatus,
    };
    use smallebot_core::repository::{HistoryRepository, TurnRepository};
    use smallebot_infrastructure::INDEX_BATCH_ROWS;

    let f = fixture().await;
    let c = conversation(&f.store, "alice").await;
    let indexed = || count(&f.store, "SELECT COUNT(*) FROM search_fts");
    let StartedTurn { turn, .. } = f
        .store
        .start_turn_in_context(&NewTurn {
            token_count: 3,
            ..NewTurn::new(c.id, "find the armadillo", &owner())
        })
        .await
        .unwrap();
    let step = |message: &str, calls: Vec<StepToolCall>, end: Option<TurnEnd>| NewStep {
        conversation_id: c.id,
        turn_id: turn.id,
        reasoning: None,
        message: Some(StepMessage {
            content: message.into(),
            token_count: 1,
        }),
        tool_calls: calls,
        end,
    };
    let call = |id: &str| StepToolCall {
        call_id: id.into(),
        tool_name: "Grep".into(),
        arguments: r#"{"pattern":"armadillo"}"#.into(),
        token_count: 5,
    };
    f.store
        .record_step(&step("", vec![call("c1")], None))
        .await
        .unwrap();
    // Pending: recorded, not indexed yet; the empty step message is not recorded.
    assert_eq!(indexed().await, 0);
    assert_eq!(count(&f.store, "SELECT COUNT(*) FROM search_rows").await, 2);

    let hits = f
        .store
        .search(&query("armadillo", SearchScope::Conversation(c.id)))
        .await
        .unwrap();
    let kinds: Vec<SearchHitKind> = hits.iter().map(|h| h.kind).collect();
    assert_eq!(kinds, [SearchHitKind::ToolCall, SearchHitKind::User]);
    assert_eq!(indexed().await, 2);

    f.store
        .complete_tool_call(
            turn.id,
            "c1",
            &ToolCallCompletion {
                result: "armadillo.txt: one armadillo".into(),
                status: ToolCallStatus::Ok,
                token_count: 4,
            },
        )
        .await
        .unwrap();
    // Far from a full batch: the end of the turn leaves the two new rows pending.
    let end = |status| {
        Some(TurnEnd {
            status,
            error: None,
            cut: None,
        })
    };
    f.store
        .record_step(&step(
            "The armadillo is in armadillo.txt",
            vec![],
            end(TurnStatus::Completed),
        ))
        .await
        .unwrap();
    assert_eq!(indexed().await, 2);

    // A turn that leaves a full batch pending indexes it as it ends.
    let StartedTurn { turn: second, .. } = f
        .store
        .start_turn_in_context(&NewTurn {
            token_count: 3,
            ..NewTurn::new(c.id, "and the pangolin?", &owner())
        })
        .await
        .unwrap();
    let batch = usize::try_from(INDEX_BATCH_ROWS).unwrap();
    let calls: Vec<StepToolCall> = (0..batch).map(|i| call(&format!("p{i}"))).collect();
    let many = NewStep {
        turn_id: second.id,
        ..step("", calls, None)
    };
    f.store.record_step(&many).await.unwrap();
    assert_eq!(indexed().await, 2);
    f.store
        .finish_turn(second.id, TurnStatus::Cancelled, None)
        .await
        .unwrap();
    let all = count(&f.store, "SELECT COUNT(*) FROM search_rows").await;
    assert_eq!(all, 5 + INDEX_BATCH_ROWS);
    assert_eq!(indexed().await, all);

    // The same when the turn ends with its last model step (one script with the step).
    let StartedTurn { turn: third, .. } = f
        .store
        .start_turn_in_context(&NewTurn {
            token_count: 3,
            ..NewTurn::new(c.id, "and the aardvark?", &owner())
        })
        .await
        .unwrap();
    let calls: Vec<StepToolCall> = (0..batch).map(|i| call(&format!("q{i}"))).collect();
    f.store
        .record_step(&NewStep {
            turn_id: third.id,
            ..step("", calls, None)
        })
        .await
        .unwrap();
    assert_eq!(indexed().await, all);
    f.store
        .record_step(&NewStep {
            turn_id: third.id,
            ..step("The aardvark is asleep", vec![], end(TurnStatus::Completed))
        })
        .await
        .unwrap();
    let all = count(&f.store, "SELECT COUNT(*) FROM search_rows").await;
    assert_eq!(all, 5 + 2 * INDEX_BATCH_ROWS + 2);
    assert_eq!(indexed().await, all, "the last step indexed the full batch");

    let hits = f
        .store
        .search(&query("one armadillo", SearchScope::All))
        .await
        .unwrap();
    assert_eq!(hits.len(), 1, "{hits:?}");
}
