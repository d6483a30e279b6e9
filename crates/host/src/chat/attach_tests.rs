//! `@path` in a chat message: the file is attached; a missing one stops the message
//! before anything is stored.

use smallebot_agent::tools::ToolRegistry;
use smallebot_testkit::{ScriptedResponse, TestModel};

use super::test_support::{run_repl, service_with};

#[tokio::test]
async fn an_at_path_attaches_the_file_and_a_missing_one_sends_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestModel::start().await.unwrap();
    let service = service_with(dir.path(), &server, ToolRegistry::new()).await;
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "buy milk\n").unwrap();

    let missing = dir.path().join("missing.txt");
    let out = run_repl(
        &service,
        None,
        format!("look at @{}\n/quit\n", missing.display()).as_bytes(),
    )
    .await;
    assert!(out.contains("cannot read"), "{out}");
    assert!(out.contains("the message was not sent"), "{out}");
    assert_eq!(server.request_count(), 0);
    let stored = service.store().list_conversations(None).await.unwrap();
    assert!(stored.is_empty(), "{stored:?}");

    server.answer_when(smallebot_testkit::RecordedRequest::asks_for_title, |_| {
        ScriptedResponse::text("A title")
    });
    server.push(ScriptedResponse::text("Milk it is."));
    let out = run_repl(
        &service,
        None,
        format!("read @{}, please\n/quit\n", notes.display()).as_bytes(),
    )
    .await;
    assert!(out.contains("attached [file: notes.txt 9 B]"), "{out}");
    assert!(out.contains("Milk it is."), "{out}");
    let parts = server.turn_requests()[0].last_user_parts();
    assert_eq!(
        parts[1]["text"],
        "Attached file notes.txt (9 B):\n```\nbuy milk\n```"
    );
}
