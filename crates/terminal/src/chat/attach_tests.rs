//! Files in the chat: `@path` in a message attaches the file (a missing one stops the
//! message before anything is stored); `/attach PATH` and a pasted image path attach
//! a file to the next message.

use smallebot_agent::tools::ToolRegistry;
use smallebot_model_client::ChatEndpoint;
use smallebot_testkit::files::png_header;
use smallebot_testkit::{ScriptedResponse, TestModel};

use super::test_support::{run_repl, service_on, service_with};

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

#[tokio::test]
async fn slash_attach_sends_the_file_with_the_next_message_only() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestModel::start().await.unwrap();
    let service = service_with(dir.path(), &server, ToolRegistry::new()).await;
    let notes = dir.path().join("my notes.txt");
    std::fs::write(&notes, "buy milk\n").unwrap();
    server.answer_when(smallebot_testkit::RecordedRequest::asks_for_title, |_| {
        ScriptedResponse::text("A title")
    });
    server.push(ScriptedResponse::text("Milk it is."));
    server.push(ScriptedResponse::text("Nothing attached."));

    let input = format!(
        "/attach {missing}\n/attach\n/attach '{notes}'\n/attach\n/attach clear\n\
         /attach '{notes}'\nwhat do I buy?\nand now?\n/attach\n/quit\n",
        missing = dir.path().join("missing.txt").display(),
        notes = notes.display(),
    );
    let out = run_repl(&service, None, input.as_bytes()).await;
    assert!(out.contains("cannot read"), "{out}");
    assert!(out.contains("— nothing attached"), "{out}");
    assert!(
        out.contains("nothing attached to your next message"),
        "{out}"
    );
    assert!(
        out.contains("attached [file: my notes.txt 9 B] — it goes with your next message"),
        "{out}"
    );
    assert!(out.contains("  [file: my notes.txt 9 B]\n"), "{out}");
    assert!(out.contains("took off 1 attached file"), "{out}");
    assert!(out.contains("Milk it is."), "{out}");
    // The missing file and `/attach clear` left nothing behind: one file, once.
    let turns = server.turn_requests();
    let first = turns[0].last_user_parts();
    assert_eq!(first.len(), 2, "{first:?}");
    assert_eq!(first[0]["text"], "what do I buy?");
    assert_eq!(
        first[1]["text"],
        "Attached file my notes.txt (9 B):\n```\nbuy milk\n```"
    );
    // Sent once: the second message goes without it, and nothing waits any more.
    assert!(turns[1].last_user_parts().is_empty(), "{:?}", turns[1]);
    assert_eq!(turns[1].last_user_text().as_deref(), Some("and now?"));
    assert_eq!(
        out.matches("nothing attached to your next message").count(),
        2,
        "{out}"
    );
}

#[tokio::test]
async fn a_pasted_image_path_attaches_the_image_and_other_paths_stay_text() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestModel::start().await.unwrap();
    let endpoint = ChatEndpoint::new(server.base_url(), "m").with_images();
    let service = service_on(dir.path(), endpoint, ToolRegistry::new()).await;
    let shots = dir.path().join("My Shots");
    std::fs::create_dir(&shots).unwrap();
    let shot = shots.join("shot.png");
    std::fs::write(&shot, png_header(64, 32)).unwrap();
    let small = shots.join("small.png");
    std::fs::write(&small, png_header(8, 8)).unwrap();
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "not an image").unwrap();
    server.answer_when(smallebot_testkit::RecordedRequest::asks_for_title, |_| {
        ScriptedResponse::text("A title")
    });
    server.push(ScriptedResponse::text("Two small pictures."));
    server.push(ScriptedResponse::text("A text path."));

    // As a file manager drops them: quoted, then as a file:// URL; a text file's
    // path is a message like any other.
    let input = format!(
        "'{shot}' \nfile://{url}\nwhat is this?\n'{text}'\n/quit\n",
        shot = shot.display(),
        text = text.display(),
        url = small.display().to_string().replace(' ', "%20"),
    );
    let out = run_repl(&service, None, input.as_bytes()).await;
    assert!(
        out.contains("attached [image: shot.png 64×32] — it goes with your next message"),
        "{out}"
    );
    assert!(
        out.contains("attached [image: small.png 8×8] — it goes with your next message"),
        "{out}"
    );
    let turns = server.turn_requests();
    assert_eq!(turns.len(), 2, "{out}");
    assert_eq!(
        turns[1].last_user_text(),
        Some(format!("'{}'", text.display()))
    );
    let parts = turns[0].last_user_parts();
    assert_eq!(parts[0]["text"], "what is this?");
    assert_eq!(parts.len(), 3, "{parts:?}");
    assert!(
        parts[1]["image_url"]["url"]
            .as_str()
            .unwrap()
            .starts_with("data:image/png;base64,"),
        "{parts:?}"
    );
}

#[tokio::test]
async fn files_attached_before_new_are_said_to_stay_for_the_next_message() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestModel::start().await.unwrap();
    let service = service_with(dir.path(), &server, ToolRegistry::new()).await;
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "buy milk\n").unwrap();
    server.answer_when(smallebot_testkit::RecordedRequest::asks_for_title, |_| {
        ScriptedResponse::text("A title")
    });
    server.push(ScriptedResponse::text("Milk it is."));

    let input = format!(
        "/new\n/attach {notes}\n/new\nwhat do I buy?\n/new\n/quit\n",
        notes = notes.display(),
    );
    let out = run_repl(&service, None, input.as_bytes()).await;
    let said = "1 attached file still goes with your next message \
                (/attach lists it, /attach clear takes it off)";
    assert_eq!(out.matches(said).count(), 1, "{out}");
    let parts = server.turn_requests()[0].last_user_parts();
    assert_eq!(
        parts[1]["text"],
        "Attached file notes.txt (9 B):\n```\nbuy milk\n```"
    );
}
