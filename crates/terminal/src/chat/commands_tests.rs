//! The REPL's slash commands driven with scripted input against the testkit model.

use std::sync::Arc;

use smallebot_agent::assembly::AgentAssembly;
use smallebot_agent::tools::ToolRegistry;
use smallebot_application::{ConversationService, SendOptions};
use smallebot_infrastructure::SqliteStore;
use smallebot_model_client::{ChatEndpoint, NamedEndpoint};
use smallebot_testkit::{RecordedRequest, ScriptedResponse, TestModel, message_text};

use super::test_support::{run_repl, service_with};

/// Answers `answer N` (N counting the turn requests) and titles with `Title`.
fn numbered_answers(server: &TestModel) {
    let count = std::sync::atomic::AtomicUsize::new(0);
    server.respond_with(move |req| {
        if req.asks_for_title() {
            return ScriptedResponse::text("Title");
        }
        let n = count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        ScriptedResponse::text(format!("answer {n}"))
    });
}

/// A service on a fresh database (the folder kept alive by the first value) whose
/// model answers with [`numbered_answers`] and offers no tools.
async fn numbered_session() -> (tempfile::TempDir, TestModel, Arc<ConversationService>) {
    let dir = tempfile::tempdir().unwrap();
    let server = TestModel::start().await.unwrap();
    numbered_answers(&server);
    let service = service_with(dir.path(), &server, ToolRegistry::new()).await;
    (dir, server, service)
}

fn turn_requests(server: &TestModel) -> Vec<RecordedRequest> {
    server
        .requests()
        .into_iter()
        .filter(|r| !r.asks_for_title())
        .collect()
}

async fn count(service: &ConversationService) -> usize {
    service
        .store()
        .list_conversations(Some("tester"))
        .await
        .unwrap()
        .len()
}

#[tokio::test]
async fn new_creates_the_conversation_with_its_first_message_only() {
    let (_dir, server, service) = numbered_session().await;
    let out = run_repl(&service, None, b"/new\n/new\n/usage\n/quit\n").await;
    assert!(out.contains("saved with your first message"), "{out}");
    assert_eq!(
        count(&service).await,
        0,
        "no empty conversations left behind"
    );
    run_repl(&service, None, b"/new\nhello\n/quit\n").await;
    assert_eq!(count(&service).await, 1);
    assert_eq!(turn_requests(&server)[0].last_user_text().unwrap(), "hello");
}

#[tokio::test]
async fn retry_and_edit_answer_the_last_message_again() {
    let (_dir, server, service) = numbered_session().await;
    let c = service.create_conversation("tester").await.unwrap();
    service
        .send(c.id, "the question", SendOptions::default())
        .await
        .unwrap();
    let out = run_repl(
        &service,
        Some(c.id),
        b"/retry\n/edit the better question\n/quit\n",
    )
    .await;
    assert!(
        out.contains("answer 1") && out.contains("answer 2"),
        "{out}"
    );
    let asked: Vec<String> = turn_requests(&server)
        .iter()
        .map(|r| r.last_user_text().unwrap())
        .collect();
    assert_eq!(
        asked,
        ["the question", "the question", "the better question"]
    );
}

#[tokio::test]
async fn undo_takes_the_last_turn_out_of_what_the_model_sees_and_keeps_it_marked() {
    let (_dir, server, service) = numbered_session().await;
    let c = service.create_conversation("tester").await.unwrap();
    for text in ["keep this", "drop this"] {
        service
            .send(c.id, text, SendOptions::default())
            .await
            .unwrap();
    }
    let out = run_repl(
        &service,
        Some(c.id),
        b"/undo
after the undo
/undo
/undo
/undo
/retry
/quit
",
    )
    .await;
    assert!(out.contains("undone: the turn “drop this”"), "{out}");
    assert!(out.contains("undone: the turn “after the undo”"), "{out}");
    assert!(out.contains("undone: the turn “keep this”"), "{out}");
    assert!(out.contains("nothing to undo"), "{out}");
    assert!(out.contains("nothing to retry"), "{out}");
    let requests = turn_requests(&server);
    let after = requests
        .iter()
        .find(|r| r.last_user_text().as_deref() == Some("after the undo"))
        .unwrap();
    let sent: Vec<String> = after.messages().iter().map(message_text).collect();
    assert!(sent.iter().any(|t| t.contains("keep this")), "{sent:?}");
    assert!(
        !sent
            .iter()
            .any(|t| t.contains("drop this") || t.contains("answer 1")),
        "the undone turn went to the model: {sent:?}"
    );
    assert_eq!(
        requests.len(),
        3,
        "/retry with every turn undone asks nothing"
    );
    // Nothing is deleted: the timeline keeps all three turns, each marked undone.
    let turns = service.store().list_turns(c.id).await.unwrap();
    assert_eq!(turns.len(), 3);
    assert!(turns.iter().all(|t| t.undone_at.is_some()));
    let read = service
        .store()
        .get_conversation(c.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        read.context_tokens, 0,
        "no undone row counts toward the window"
    );
}

#[tokio::test]
async fn a_failing_command_is_reported_and_the_session_goes_on() {
    let (_dir, _server, service) = numbered_session().await;
    let c = service.create_conversation("tester").await.unwrap();
    service.delete_conversation(c.id).await.unwrap();
    let out = run_repl(&service, Some(c.id), b"/usage\n/list\n/quit\n").await;
    assert!(
        out.contains(&format!("error: conversation {} not found", c.id)),
        "{out}"
    );
    assert!(
        out.contains("no conversations yet"),
        "/list still ran: {out}"
    );
}

#[tokio::test]
async fn compact_with_nothing_to_do_says_so_once() {
    let (_dir, _server, service) = numbered_session().await;
    let c = service.create_conversation("tester").await.unwrap();
    service
        .send(c.id, "one", SendOptions::default())
        .await
        .unwrap();
    let out = run_repl(&service, Some(c.id), b"/compact\n/quit\n").await;
    assert_eq!(out.matches("nothing to summarize").count(), 1, "{out}");
}

#[tokio::test]
async fn switch_by_prefix_shows_the_last_turns() {
    let (_dir, _server, service) = numbered_session().await;
    let first = service.create_conversation("tester").await.unwrap();
    service
        .send(first.id, "about walruses", SendOptions::default())
        .await
        .unwrap();
    let second = service.create_conversation("tester").await.unwrap();
    let prefix = &first.id.to_string()[..28];
    let input = format!("/switch {prefix}\n/quit\n");
    let out = run_repl(&service, Some(second.id), input.as_bytes()).await;
    assert!(out.contains(&format!("switched to {}", first.id)), "{out}");
    assert!(out.contains("› about walruses\nanswer 0\n"), "{out}");
}

#[tokio::test]
async fn model_lists_the_models_and_chooses_one_for_this_conversation() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestModel::start().await.unwrap();
    numbered_answers(&server);
    let store = SqliteStore::open(&dir.path().join("db.sqlite"))
        .await
        .unwrap();
    let named = |id: &str, window| NamedEndpoint {
        id: id.into(),
        endpoint: ChatEndpoint::new(server.base_url(), format!("{id}-model")),
        context_window: window,
    };
    let agent = AgentAssembly::new(Arc::new(store), ChatEndpoint::new(server.base_url(), "m"))
        .skill_path(dir.path().join("SKILL.md"))
        .choices(vec![named("small", 8_000), named("large", 200_000)])
        .build()
        .unwrap();
    let service = Arc::new(agent.service);
    let out = run_repl(
        &service,
        None,
        b"/model\n/model huge\n/model large\nhello\n/model\n/quit\n",
    )
    .await;
    assert!(out.contains("* small (small-model, 8.0k tokens)"), "{out}");
    assert!(out.contains("error: no model has the id `huge`"), "{out}");
    assert!(
        out.contains("* large (large-model, 200.0k tokens)"),
        "{out}"
    );
    let turn = turn_requests(&server).pop().unwrap();
    assert_eq!(turn.model(), Some("large-model"));
}

#[tokio::test]
async fn switch_to_an_unknown_id_points_to_list_and_help_names_the_keys() {
    let (_dir, _server, service) = numbered_session().await;
    let out = run_repl(&service, None, b"/switch ffff\n/help\n/quit\n").await;
    assert!(
        out.contains("no conversation of yours has an id starting with 'ffff': /list shows them"),
        "{out}"
    );
    assert!(!out.contains("smallebot conversations list"), "{out}");
    for key in ["Alt+Enter", "Shift+Enter", "Tab", "Ctrl+R"] {
        assert!(out.contains(key), "{key} missing from /help:\n{out}");
    }
}

#[tokio::test]
async fn show_expands_a_folded_tool_call_of_the_last_turn() {
    use smallebot_agent::tools::GetCurrentTime;
    use smallebot_testkit::ToolCallSpec;
    let dir = tempfile::tempdir().unwrap();
    let server = TestModel::start().await.unwrap();
    server.respond_with(|req| {
        if req.asks_for_title() {
            ScriptedResponse::text("Title")
        } else if req.last_role() == Some("user") {
            ScriptedResponse::tool_calls([ToolCallSpec::new(
                "call_1",
                "GetCurrentTime",
                r#"{"zone":"UTC"}"#,
            )])
        } else {
            ScriptedResponse::text("it is now")
        }
    });
    let service = service_with(
        dir.path(),
        &server,
        ToolRegistry::new().with(std::sync::Arc::new(GetCurrentTime)),
    )
    .await;
    let out = run_repl(&service, None, b"what time?\n/show 1\n/show 2\n/quit\n").await;
    // Folded in the stream: one line each way, no result.
    assert!(out.contains("⚙ GetCurrentTime UTC\n"), "{out}");
    assert!(out.contains("  ✓ GetCurrentTime · ok · "), "{out}");
    let shown = &out[out.find("⚙ GetCurrentTime [ok]").expect(&out)..];
    assert!(
        shown.contains("arguments:\n{\n  \"zone\": \"UTC\"\n}\nresult:\n"),
        "{out}"
    );
    assert!(
        out.contains("the last turn made 1 tool call(s): /show 1 to /show 1"),
        "{out}"
    );
}
