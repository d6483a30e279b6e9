//! Attachments in a real terminal (tmux): Tab completes a path after `@` and after
//! `/attach `, and the files go with the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod tmux;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tab_completes_paths_and_the_files_go_with_the_message() {
    let home = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    std::fs::create_dir(cwd.path().join("docs")).unwrap();
    std::fs::write(cwd.path().join("docs/plan.md"), "step one\n").unwrap();
    std::fs::write(cwd.path().join("notes.txt"), "buy milk\n").unwrap();
    let model = tmux::answering("the answer").await;
    let Some(term) = tmux::chat_in("attach", home.path(), cwd.path(), &model) else {
        return;
    };
    term.wait_for("› ");
    // A directory completes with a `/`, a file inside it with a space after it.
    term.type_text("/attach d");
    term.keys(&["Tab"]);
    term.wait_for("› /attach docs/");
    term.type_text("p");
    term.keys(&["Tab"]);
    term.wait_for("› /attach docs/plan.md ");
    term.keys(&["Enter"]);
    term.wait_for("attached [file: plan.md 9 B] — it goes with your next message");
    term.type_text("read @no");
    term.keys(&["Tab"]);
    term.wait_for("› read @notes.txt ");
    term.type_text("please");
    term.keys(&["Enter"]);
    term.wait_for_prompt_after("[context");
    let request = model
        .turn_requests()
        .into_iter()
        .last()
        .expect("a turn was sent");
    let texts: Vec<String> = request
        .last_user_parts()
        .iter()
        .map(|part| part["text"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(texts[0], "read @notes.txt please", "{texts:?}");
    assert!(texts.iter().any(|t| t.contains("step one")), "{texts:?}");
    assert!(texts.iter().any(|t| t.contains("buy milk")), "{texts:?}");
}
