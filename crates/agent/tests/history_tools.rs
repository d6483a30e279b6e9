//! `SearchHistory` over a real SQLite store.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod history_support;

use history_support::*;
use serde_json::{Value, json};
use smallebot_core::entities::{CompressionUpdate, LeaseOwner, NewAttachment, NewTurn, Role};
use smallebot_core::repository::{AttachmentRepository, ConversationRepository, TurnRepository};
use smallebot_core::rules::attachment::describe;

#[tokio::test]
async fn finds_messages_tool_arguments_and_results_newest_first_with_context() {
    let f = fixture().await;
    let c = f.conversation("alice", "Pelican setup").await;
    let t = f.user(&c, "where is the pelican config").await;
    f.think(&c, &t, "I should look for pelican files").await;
    f.tool(
        &c,
        &t,
        "c1",
        (
            "ExecuteCommand",
            r#"{"command":"find . -name pelican.toml"}"#,
        ),
        "./etc/pelican.toml",
    )
    .await;
    f.think(&c, &t, "found the pelican file").await;
    f.message(&c, &t, Role::Assistant, "The pelican config is in etc")
        .await;
    // Earlier searches quote the query; they are never shown as hits.
    f.tool(
        &c,
        &t,
        "c2",
        ("SearchHistory", r#"{"query":"pelican"}"#),
        "## Match 1 — Pelican setup | …\n→ USER: pelican",
    )
    .await;
    f.sql("UPDATE search_rows SET created_at = '2026-01-02T03:04:05.000Z'")
        .await;

    let text = ok(f.search(&c, json!({"query": "pelican"})).await);
    let call = r#"TOOL CALL: ExecuteCommand({"command":"find . -name pelican.toml"})"#;
    let expected = format!(
        "## Match 1 — Pelican setup | 2026-01-02 03:04\n\
         TOOL RESULT: ./etc/pelican.toml\n\
         → ASSISTANT: The pelican config is in etc\n\
         TOOL CALL: SearchHistory({{\"query\":\"pelican\"}})\n\
         \n\
         ## Match 2 — Pelican setup | 2026-01-02 03:04\n\
         {call}\n\
         → TOOL RESULT: ./etc/pelican.toml\n\
         ASSISTANT: The pelican config is in etc\n\
         \n\
         ## Match 3 — Pelican setup | 2026-01-02 03:04\n\
         USER: where is the pelican config\n\
         → {call}\n\
         TOOL RESULT: ./etc/pelican.toml\n\
         \n\
         ## Match 4 — Pelican setup | 2026-01-02 03:04\n\
         → USER: where is the pelican config\n\
         {call}"
    );
    assert_eq!(text, expected);

    // Words only in the arguments, only in the result.
    let args_only = ok(f.search(&c, json!({"query": "toml find"})).await);
    assert_eq!(match_count(&args_only), 1, "{args_only}");
    assert!(args_only.contains(&format!("→ {call}")));
    let result_only = ok(f.search(&c, json!({"query": "etc/pelican.toml"})).await);
    assert!(
        result_only.contains("→ TOOL RESULT: ./etc/pelican.toml"),
        "{result_only}"
    );
}

#[tokio::test]
async fn newest_first_across_turns_and_long_texts_are_cut() {
    let f = fixture().await;
    let c = f.conversation("alice", "Otters").await;
    for n in 1..=3 {
        f.user(&c, &format!("otter note {n} {}", "é".repeat(400)))
            .await;
    }
    let text = ok(f.search(&c, json!({"query": "otter"})).await);
    let order: Vec<usize> = ["otter note 3", "otter note 2", "otter note 1"]
        .iter()
        .map(|needle| text.find(&format!("→ USER: {needle}")).unwrap())
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{text}");
    for line in text.lines().filter(|l| l.contains("otter note")) {
        let body = line.trim_start_matches("→ ").trim_start_matches("USER: ");
        assert_eq!(body.chars().count(), 301, "{line}");
        assert!(body.ends_with('…'));
    }
}

#[tokio::test]
async fn days_excludes_old_rows_and_bad_days_are_errors() {
    let f = fixture().await;
    let c = f.conversation("alice", "Otters").await;
    f.user(&c, "ancient otter").await;
    f.sql("UPDATE search_rows SET created_at = '2020-01-01T00:00:00.000Z'")
        .await;
    f.sql("UPDATE messages SET created_at = '2020-01-01T00:00:00.000Z'")
        .await;
    f.user(&c, "fresh otter").await;

    let recent = ok(f.search(&c, json!({"query": "otter", "days": 7})).await);
    assert_eq!(match_count(&recent), 1, "{recent}");
    assert!(recent.contains("→ USER: fresh otter"));
    let all = ok(f.search(&c, json!({"query": "otter"})).await);
    assert_eq!(match_count(&all), 2);
    assert!(all.contains("| 2020-01-01 00:00\n"), "{all}");

    for days in [
        json!(0),
        json!(-3),
        json!(36_501),
        json!(1.5),
        json!("soon"),
    ] {
        let text = error(f.search(&c, json!({"query": "otter", "days": days})).await);
        assert!(text.contains("days"), "{text}");
    }
}

#[tokio::test]
async fn max_results_is_clamped() {
    let f = fixture().await;
    let c = f.conversation("alice", "Walruses").await;
    for n in 0..60 {
        f.user(&c, &format!("walrus {n}")).await;
    }
    let count = |text: String| match_count(&text);
    let q = |n: Value| json!({"query": "walrus", "maxResults": n});
    assert_eq!(
        count(ok(f.search(&c, json!({"query": "walrus"})).await)),
        10
    );
    assert_eq!(count(ok(f.search(&c, q(json!(0))).await)), 1);
    assert_eq!(count(ok(f.search(&c, q(json!(3))).await)), 3);
    assert_eq!(count(ok(f.search(&c, q(json!(500))).await)), 50);
    assert_eq!(count(ok(f.search(&c, q(json!("7"))).await)), 7);
    let text = error(f.search(&c, q(json!("lots"))).await);
    assert!(text.contains("maxResults"), "{text}");
}

#[tokio::test]
async fn scope_all_covers_this_users_conversations_only() {
    let f = fixture().await;
    let here = f.conversation("alice", "Alice here").await;
    let other = f.conversation("alice", "Alice other").await;
    let bob = f.conversation("bob", "Bob secrets").await;
    f.user(&here, "walrus in this one").await;
    f.user(&other, "walrus elsewhere").await;
    f.user(&bob, "walrus of bob").await;

    let all = ok(f
        .search(&here, json!({"query": "walrus", "scope": "all"}))
        .await);
    assert_eq!(match_count(&all), 2, "{all}");
    assert!(all.contains("— Alice other |") && all.contains("— Alice here |"));
    assert!(!all.contains("Bob") && !all.contains("of bob"), "{all}");
    let from_bob = ok(f
        .search(&bob, json!({"query": "walrus", "scope": "ALL"}))
        .await);
    assert_eq!(match_count(&from_bob), 1);
    assert!(from_bob.contains("walrus of bob"));

    let this = ok(f.search(&here, json!({"query": "walrus"})).await);
    assert_eq!(match_count(&this), 1);
    let explicit = ok(f
        .search(&here, json!({"query": "walrus", "scope": "conversation"}))
        .await);
    assert_eq!(this, explicit);

    let wrong = error(
        f.search(&here, json!({"query": "walrus", "scope": "everyone"}))
            .await,
    );
    assert!(
        wrong.contains("\"conversation\"") && wrong.contains("\"all\""),
        "{wrong}"
    );
    error(
        f.search(&here, json!({"query": "walrus", "scope": 3}))
            .await,
    );
}

#[tokio::test]
async fn no_matches_answers_exactly() {
    let f = fixture().await;
    let c = f.conversation("alice", "Empty").await;
    f.user(&c, "nothing to see").await;
    assert_eq!(
        ok(f.search(&c, json!({"query": "zebra"})).await),
        "No matches found for 'zebra'."
    );
    assert_eq!(
        ok(f.search(&c, json!({"query": "* - :"})).await),
        "No matches found for '* - :'."
    );
}

#[tokio::test]
async fn fts_syntax_in_queries_never_errors() {
    let f = fixture().await;
    let c = f.conversation("alice", "Syntax").await;
    f.user(&c, "error: \"quoted\" a-b NEAR c AND (x) prefix* OR y")
        .await;
    for query in [
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
        "OR",
        "OR NOT",
        "c OR y",
        "^x",
        "col:val",
        "{a}",
        "'",
        "\\",
        "NEAR/3",
        "\" OR 1=1 --",
        "quoted\" AND \"",
    ] {
        let text = ok(f.search(&c, json!({ "query": query })).await);
        assert!(
            text.starts_with("## Match") || text == format!("No matches found for '{query}'."),
            "{query:?}: {text}"
        );
    }
    let quoted = ok(f.search(&c, json!({"query": "\"quoted\" NEAR"})).await);
    assert_eq!(match_count(&quoted), 1, "{quoted}");
}

#[tokio::test]
async fn outside_a_turn_there_is_no_conversation_context() {
    let f = fixture().await;
    for (tool, args) in [
        ("SearchHistory", r#"{"query":"x"}"#),
        ("ReadConversationData", "{}"),
    ] {
        let text = error(f.call_in(None, tool, args).await);
        assert!(text.contains("no conversation context"), "{text}");
    }
}

#[tokio::test]
async fn missing_or_mistyped_arguments_are_errors() {
    let f = fixture().await;
    let c = f.conversation("alice", "Args").await;
    let cases = [
        ("{}", "missing required parameter 'query'"),
        (r#"{"query":5}"#, "'query' must be a string"),
        (r#"{"query":"   "}"#, "'query' is empty"),
        (r#"{"query":"x","maxResults":-1}"#, "maxResults"),
        (r#"{"query":"x","scope":"mine"}"#, "scope"),
        ("{not json", "not valid JSON"),
        ("[1]", "must be a JSON object"),
    ];
    for (args, needle) in cases {
        let text = error(f.call_in(Some(&c), "SearchHistory", args).await);
        assert!(text.contains(needle), "{args}: {text}");
    }
}

#[tokio::test]
async fn rows_on_both_sides_of_the_compression_boundary_are_found() {
    let f = fixture().await;
    let c = f.conversation("alice", "Long").await;
    let t1 = f.user(&c, "old heron sighting").await;
    let boundary = f.message(&c, &t1, Role::Assistant, "noted the heron").await;
    f.user(&c, "new heron sighting").await;
    f.store
        .set_compression(
            c.id,
            &CompressionUpdate {
                compressed_context: "The user reported a heron.".into(),
                compressed_at: chrono::Utc::now(),
                compressed_through_seq: boundary,
                expected_previous_seq: None,
            },
        )
        .await
        .unwrap();
    let text = ok(f.search(&c, json!({"query": "heron sighting"})).await);
    assert_eq!(match_count(&text), 2, "{text}");
    assert!(text.contains("→ USER: old heron sighting"));
    assert!(text.contains("→ USER: new heron sighting"));
}

#[tokio::test]
async fn earlier_searches_never_crowd_out_real_matches() {
    let f = fixture().await;
    let c = f.conversation("alice", "Echoes").await;
    let t = f.user(&c, "the first walrus").await;
    f.user(&c, "the second walrus").await;
    for n in 0..40 {
        f.tool(
            &c,
            &t,
            &format!("s{n}"),
            ("SearchHistory", r#"{"query":"walrus"}"#),
            "→ USER: the first walrus",
        )
        .await;
    }
    let text = ok(f
        .search(&c, json!({"query": "walrus", "maxResults": 2}))
        .await);
    assert_eq!(match_count(&text), 2, "{text}");
    assert!(text.contains("→ USER: the second walrus"));
    assert!(text.contains("→ USER: the first walrus"));
    assert!(!text.contains("→ TOOL"), "{text}");
}

#[tokio::test]
async fn an_attachment_is_found_by_its_text_beside_its_message() {
    let f = fixture().await;
    let c = f.conversation("alice", "Logs").await;
    let content = b"error: wombat overflow\n".to_vec();
    let attachment = f
        .store
        .put_attachment(&NewAttachment {
            conversation_id: c.id,
            facts: describe("server.log", &content),
            content,
        })
        .await
        .unwrap();
    let owner = LeaseOwner {
        pid: 1,
        host: "box".into(),
        started_at: chrono::SubsecRound::trunc_subsecs(chrono::Utc::now(), 3),
    };
    f.store
        .start_turn_in_context(&NewTurn {
            attachments: &[attachment.id],
            token_count: 5,
            ..NewTurn::new(c.id, "what broke?", &owner)
        })
        .await
        .unwrap();

    let text = ok(f.search(&c, json!({"query": "wombat"})).await);
    assert_eq!(match_count(&text), 1, "{text}");
    assert!(
        text.contains("→ ATTACHMENT: server.log") && text.contains("\nUSER: what broke?"),
        "the hit shows its message after it: {text}"
    );
}
