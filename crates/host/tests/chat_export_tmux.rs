//! `/export` in a real terminal (tmux): the conversation written as JSON to a named
//! file and as Markdown to a file named after its title in the current directory, a
//! second export picking a free name, an existing file never replaced; `~/` in the
//! file names of `/export` and `/attach` is the home directory.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod tmux;

/// The file a `exported the conversation to FILE (N bytes)` line on `screen` names
/// last.
fn exported(screen: &str) -> String {
    let line = screen
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("exported the conversation to "))
        .unwrap();
    line[..line.rfind(" (").unwrap()].to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn export_writes_the_conversation_and_never_replaces_a_file() {
    let home = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    std::fs::write(cwd.path().join("taken.json"), "keep").unwrap();
    let model = tmux::answering("the **answer**").await;
    let Some(term) = tmux::chat_in("export", home.path(), cwd.path(), &model) else {
        return;
    };
    term.wait_for("› ");
    term.type_text("/export md");
    term.keys(&["Enter"]);
    term.wait_for("nothing to export: this conversation has no messages yet");
    term.type_text("a question");
    term.keys(&["Enter"]);
    term.wait_for_prompt_after("[context");

    term.type_text("/export json taken.json");
    term.keys(&["Enter"]);
    term.wait_for("error: taken.json exists already");
    assert_eq!(
        std::fs::read_to_string(cwd.path().join("taken.json")).unwrap(),
        "keep"
    );

    term.type_text("/exp");
    term.keys(&["Tab"]);
    term.type_text("j");
    term.keys(&["Tab"]);
    term.wait_for("› /export json ");
    term.type_text("out.json");
    term.keys(&["Enter"]);
    term.wait_for("exported the conversation to out.json (");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(cwd.path().join("out.json")).unwrap())
            .unwrap();
    assert!(json.to_string().contains("a question"), "{json}");
    assert!(json.to_string().contains("the **answer**"), "{json}");

    term.type_text("/export md");
    term.keys(&["Enter"]);
    let screen = term.wait_for(".md (");
    let first = exported(&screen);
    assert!(first.ends_with(".md"), "{first}");
    let markdown = std::fs::read_to_string(cwd.path().join(&first)).unwrap();
    assert!(markdown.contains("## You"), "{markdown}");
    assert!(markdown.contains("the **answer**"), "{markdown}");

    term.type_text("/export md");
    term.keys(&["Enter"]);
    let second_name = format!("{}-2.md", first.trim_end_matches(".md"));
    term.wait_for(&format!("exported the conversation to {second_name} ("));
    assert_eq!(
        std::fs::read_to_string(cwd.path().join(&second_name)).unwrap(),
        markdown
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tilde_in_export_and_attach_paths_is_the_home_directory() {
    let home = tempfile::tempdir().unwrap();
    let user_home = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    std::fs::write(user_home.path().join("notes.txt"), "from the home folder\n").unwrap();
    let model = tmux::answering("noted").await;
    let url = model.base_url();
    let user_home_text = user_home.path().to_string_lossy().into_owned();
    let env = [
        ("OPENAI_BASE_URL", url.as_str()),
        ("SMALLEBOT_MODEL", "scripted"),
        ("HOME", user_home_text.as_str()),
    ];
    let home_arg = home.path().to_string_lossy().into_owned();
    let Some(term) = tmux::Tmux::start_in(
        "export-tilde",
        Some(cwd.path()),
        &env,
        &["--home", &home_arg, "chat"],
    ) else {
        return;
    };
    term.wait_for("› ");
    term.type_text("/attach ~/notes.txt");
    term.keys(&["Enter"]);
    term.wait_for("attached [file: notes.txt");
    term.type_text("read it");
    term.keys(&["Enter"]);
    term.wait_for_prompt_after("[context");
    let parts = model.turn_requests()[0].last_user_parts();
    assert!(
        parts[1]["text"]
            .as_str()
            .unwrap()
            .contains("from the home folder"),
        "{parts:?}"
    );

    term.type_text("/export json ~/out.json");
    term.keys(&["Enter"]);
    let out = user_home.path().join("out.json");
    term.wait_for(&format!("exported the conversation to {}", out.display()));
    let json = std::fs::read_to_string(&out).unwrap();
    assert!(json.contains("read it"), "{json}");
    assert!(!cwd.path().join("~").exists());
}
