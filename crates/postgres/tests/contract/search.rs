//! Contract: full-text search — every word must occur (runs of letters and digits,
//! any case), hits are messages (never empty ones), tool calls (`Name(arguments)`) and
//! tool results, newest first, scoped by conversation or user, cut by `since` and the
//! limit; any text is a valid query; what a running turn wrote is found at once. A
//! parity test runs the same queries over the same rows on SQLite and PostgreSQL and
//! compares the hits.

use crate::backends;

use std::time::Duration;

use crate::backends::{Backend, OrFail, TOOL, owner, query, step_call};
use smallebot_core::entities::{
    Conversation, NewStep, NewTurn, SearchHit, SearchHitKind, SearchQuery, SearchScope,
    StartedTurn, StepMessage, ToolCallCompletion, ToolCallStatus, TurnEnd, TurnStatus,
};

async fn search(b: &Backend, query: &SearchQuery) -> Vec<SearchHit> {
    b.store.search(query).await.or_fail(b.name)
}

fn kinds(hits: &[SearchHit]) -> Vec<SearchHitKind> {
    hits.iter().map(|h| h.kind).collect()
}

#[tokio::test]
async fn finds_words_in_messages_and_tool_calls_newest_first_up_to_the_limit() {
    for b in backends::each("finds_words_in_messages_and_tool_calls").await {
        let name = b.name;
        let c = b.conversation("alice").await;
        let t1 = b.user_turn(&c, "where is the pelican config").await;
        let args = r#"{"command":"find . -name pelican.toml"}"#;
        b.tool(&c, &t1, "c1", args, "./etc/pelican.toml").await;
        b.assistant(&c, &t1, "The Pelican config is in etc").await;
        b.assistant(&c, &t1, "pelicans").await;

        let hits = search(&b, &query("pelican", SearchScope::Conversation(c.id))).await;
        use SearchHitKind::{Assistant, ToolCall, ToolResult, User};
        assert_eq!(
            kinds(&hits),
            [Assistant, ToolResult, ToolCall, User],
            "{name}: {hits:?}"
        );
        assert!(hits.windows(2).all(|w| w[0].seq >= w[1].seq), "{name}");
        assert_eq!(hits[0].text, "The Pelican config is in etc", "{name}");
        assert_eq!(hits[1].text, "./etc/pelican.toml", "{name}");
        assert_eq!(hits[2].text, format!("{TOOL}({args})"), "{name}");
        assert_eq!(hits[3].text, "where is the pelican config", "{name}");
        assert_eq!(hits[0].conversation_title, "New conversation", "{name}");
        assert_eq!(hits[0].conversation_id, c.id, "{name}");

        // Every word must occur, in any case and order.
        let both = search(&b, &query("CONFIG pelican", SearchScope::All)).await;
        assert_eq!(kinds(&both), [Assistant, User], "{name}: {both:?}");
        let none = search(&b, &query("pelican walrus", SearchScope::All)).await;
        assert!(none.is_empty(), "{name}: {none:?}");
        // A word inside punctuation, and a tool name.
        let toml = search(&b, &query("toml", SearchScope::All)).await;
        assert_eq!(kinds(&toml), [ToolResult, ToolCall], "{name}: {toml:?}");
        let tool = search(&b, &query(TOOL, SearchScope::All)).await;
        assert_eq!(kinds(&tool), [ToolCall], "{name}: {tool:?}");

        let limited = search(
            &b,
            &SearchQuery {
                limit: 2,
                ..query("pelican", SearchScope::All)
            },
        )
        .await;
        assert_eq!(kinds(&limited), [Assistant, ToolResult], "{name}");
    }
}

#[tokio::test]
async fn scopes_never_cross_users_and_since_drops_older_rows() {
    for b in backends::each("scopes_never_cross_users_and_since").await {
        let name = b.name;
        let a = b.conversation("alice").await;
        let a2 = b.conversation("alice").await;
        let other = b.conversation("bob").await;
        b.user_turn(&a, "ancient walrus plan").await;
        tokio::time::sleep(Duration::from_millis(5)).await;
        b.user_turn(&other, "bob walrus notes").await;
        tokio::time::sleep(Duration::from_millis(20)).await;
        let cut = chrono::Utc::now();
        tokio::time::sleep(Duration::from_millis(20)).await;
        b.user_turn(&a2, "fresh walrus plan").await;

        let alice = search(&b, &query("walrus", SearchScope::User("alice".into()))).await;
        let ids: Vec<_> = alice.iter().map(|h| h.conversation_id).collect();
        assert_eq!(ids, [a2.id, a.id], "{name}: newest first, alice's only");
        let bob = search(&b, &query("walrus", SearchScope::User("bob".into()))).await;
        assert_eq!(bob.len(), 1, "{name}: {bob:?}");
        assert_eq!(bob[0].conversation_id, other.id, "{name}");
        let nobody = search(&b, &query("walrus", SearchScope::User("carol".into()))).await;
        assert!(nobody.is_empty(), "{name}: {nobody:?}");
        let one = search(&b, &query("walrus", SearchScope::Conversation(a.id))).await;
        assert_eq!(one.len(), 1, "{name}: {one:?}");
        assert_eq!(one[0].text, "ancient walrus plan", "{name}");
        let everyone = search(&b, &query("walrus", SearchScope::All)).await;
        assert_eq!(everyone.len(), 3, "{name}: {everyone:?}");

        let recent = search(
            &b,
            &SearchQuery {
                since: Some(cut),
                ..query("walrus", SearchScope::All)
            },
        )
        .await;
        assert_eq!(recent.len(), 1, "{name}: {recent:?}");
        assert_eq!(recent[0].text, "fresh walrus plan", "{name}");
        // `since` includes a row written at that very instant.
        let at = search(
            &b,
            &SearchQuery {
                since: Some(everyone[1].created_at),
                ..query("walrus", SearchScope::All)
            },
        )
        .await;
        assert_eq!(at.len(), 2, "{name}: {at:?}");
    }
}

#[tokio::test]
async fn any_text_is_a_query_and_a_running_turn_is_found_at_once() {
    for b in backends::each("any_text_is_a_query").await {
        let name = b.name;
        let c = b.conversation("alice").await;
        b.user_turn(&c, "error: \"quoted\" a-b NEAR c AND (x) prefix* or not")
            .await;
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
            "!",
            "<->",
            "a & b | c",
            "!x",
        ] {
            let result = b.store.search(&query(text, SearchScope::All)).await;
            assert!(result.is_ok(), "{name}: query {text:?} failed: {result:?}");
        }
        for word in ["\"quoted\"", "AND", "or", "not", "NEAR", "prefix*"] {
            let hits = search(&b, &query(word, SearchScope::All)).await;
            assert_eq!(hits.len(), 1, "{name}: {word:?} is searched as a word");
        }
        for nothing in ["*", "-", "''", "", "   "] {
            let hits = search(&b, &query(nothing, SearchScope::All)).await;
            assert!(
                hits.is_empty(),
                "{name}: {nothing:?} finds nothing: {hits:?}"
            );
        }

        // A running turn's rows are found before it ends; an empty message is no hit.
        let StartedTurn { turn, .. } = b
            .store
            .start_turn_in_context(&NewTurn {
                token_count: 3,
                ..NewTurn::new(c.id, "find the armadillo", &owner())
            })
            .await
            .or_fail(name);
        let step = |message: &str, calls, end| NewStep {
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
        let call = step_call("c1", r#"{"pattern":"armadillo"}"#);
        b.store
            .record_step(&step("", vec![call], None))
            .await
            .or_fail(name);
        let hits = search(&b, &query("armadillo", SearchScope::Conversation(c.id))).await;
        use SearchHitKind::{Assistant, ToolCall, ToolResult, User};
        assert_eq!(kinds(&hits), [ToolCall, User], "{name}: {hits:?}");
        let completion = ToolCallCompletion {
            result: "armadillo.txt: one armadillo".into(),
            status: ToolCallStatus::Ok,
            token_count: 4,
        };
        b.store
            .complete_tool_call(turn.id, "c1", &completion)
            .await
            .or_fail(name);
        let end = Some(TurnEnd {
            status: TurnStatus::Completed,
            error: None,
            cut: None,
        });
        let answer = "The armadillo is in armadillo.txt";
        b.store
            .record_step(&step(answer, vec![], end))
            .await
            .or_fail(name);
        let hits = search(&b, &query("armadillo", SearchScope::Conversation(c.id))).await;
        assert_eq!(
            kinds(&hits),
            [Assistant, ToolResult, ToolCall, User],
            "{name}: {hits:?}"
        );
        let one = search(&b, &query("one armadillo", SearchScope::All)).await;
        assert_eq!(kinds(&one), [ToolResult], "{name}: {one:?}");
    }
}

/// Writes the parity rows; returns alice's first conversation.
async fn fill(b: &Backend) -> Conversation {
    let pause = || tokio::time::sleep(Duration::from_millis(3));
    let plans = b.conversation("alice").await;
    b.store
        .rename_conversation(plans.id, "Pelican plans")
        .await
        .or_fail(b.name);
    let t = b.user_turn(&plans, "Where is the pelican config?").await;
    pause().await;
    let args = r#"{"command":"cat notes.txt"}"#;
    b.tool(
        &plans,
        &t,
        "c1",
        args,
        "pelican: yes\nconfig: etc/pelican.toml",
    )
    .await;
    pause().await;
    b.assistant(&plans, &t, "The pelican config is in etc.")
        .await;
    pause().await;
    let t = b.user_turn(&plans, "Summarize my NOTES, please").await;
    pause().await;
    b.assistant(&plans, &t, "Notes: pelicans eat fish (lots).")
        .await;
    pause().await;
    let walrus = b.conversation("bob").await;
    b.store
        .rename_conversation(walrus.id, "Walrus notes")
        .await
        .or_fail(b.name);
    let t = b.user_turn(&walrus, "walrus facts?").await;
    pause().await;
    let args = r#"{"command":"grep -r walrus ."}"#;
    b.tool(
        &walrus,
        &t,
        "c1",
        args,
        "walrus.md: a walrus weighs 1500 kg",
    )
    .await;
    pause().await;
    b.assistant(&walrus, &t, "").await;
    b.assistant(&walrus, &t, "A walrus weighs about 1500 kg; see notes.txt")
        .await;
    pause().await;
    let later = b.conversation("alice").await;
    let t = b.user_turn(&later, "pelican config, again").await;
    b.assistant(&later, &t, "Still etc/pelican.toml").await;
    plans
}

type Found = (SearchHitKind, String, i64, String);

#[tokio::test]
async fn both_backends_find_the_same_hits_for_the_same_rows() {
    let all = backends::each("both_backends_find_the_same_hits").await;
    let mut plans = Vec::new();
    for b in &all {
        plans.push(fill(b).await);
    }
    let queries = [
        "pelican",
        "pelican config",
        "notes",
        "NOTES.txt",
        TOOL,
        "weighs",
        "1500 kg",
        "zebra",
        "?! ... --- ()",
        "pelicans",
    ];
    for text in queries {
        let mut results: Vec<(&str, Vec<Vec<Found>>)> = Vec::new();
        for (b, first) in all.iter().zip(&plans) {
            let name = b.name;
            let scopes = [
                (SearchScope::All, 10),
                (SearchScope::All, 2),
                (SearchScope::User("alice".into()), 10),
                (SearchScope::Conversation(first.id), 10),
            ];
            let mut per_scope = Vec::new();
            for (scope, limit) in scopes {
                let hits = search(
                    b,
                    &SearchQuery {
                        limit,
                        ..query(text, scope)
                    },
                )
                .await;
                assert!(hits.len() <= usize::try_from(limit).unwrap(), "{name}");
                assert!(
                    hits.windows(2).all(|w| w[0].created_at >= w[1].created_at),
                    "{name}: {text:?} newest first: {hits:?}"
                );
                assert!(hits.iter().all(|h| !h.text.is_empty()), "{name}: {hits:?}");
                let found = hits.into_iter().map(|h| {
                    let title = h.conversation_title;
                    (h.kind, h.text, h.seq, title)
                });
                per_scope.push(found.collect());
            }
            results.push((name, per_scope));
        }
        let (first_name, expected) = &results[0];
        let should_find = !matches!(text, "zebra" | "?! ... --- ()");
        assert_eq!(
            !expected[0].is_empty(),
            should_find,
            "{first_name}: {text:?}: {expected:?}"
        );
        for (name, found) in &results[1..] {
            assert_eq!(
                found, expected,
                "{text:?}: {name} differs from {first_name}"
            );
        }
    }
}
