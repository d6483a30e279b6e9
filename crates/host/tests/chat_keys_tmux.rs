//! `smallebot chat` in a real terminal (tmux): Tab completing a unique id prefix at
//! once, `NO_COLOR` leaving typed input uncoloured while `/clear` still clears.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod tmux;

use smallebot_testkit::TestModel;
use tmux::Tmux;

async fn model() -> TestModel {
    tmux::answering("the answer").await
}

fn chat(
    test: &str,
    home: &std::path::Path,
    model: &TestModel,
    env: &[(&str, &str)],
) -> Option<Tmux> {
    let url = model.base_url();
    let mut all = vec![
        ("OPENAI_BASE_URL", url.as_str()),
        ("SMALLEBOT_MODEL", "scripted"),
    ];
    all.extend_from_slice(env);
    Tmux::start(test, home, &all, &["chat"])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tab_completes_a_unique_id_prefix_without_a_menu() {
    let home = tempfile::tempdir().unwrap();
    let model = model().await;
    let Some(term) = chat("tab", home.path(), &model, &[]) else {
        return;
    };
    term.wait_for("› ");
    term.type_text("hi");
    term.keys(&["Enter"]);
    term.wait_for_prompt_after("[context");
    term.type_text("/list");
    term.keys(&["Enter"]);
    let screen = term.wait_for("* ");
    let id = screen
        .lines()
        .find_map(|l| l.strip_prefix("* "))
        .and_then(|l| l.split_whitespace().next())
        .unwrap()
        .to_owned();
    term.wait_for_prompt_after(&id);
    term.type_text(&format!("/switch {}", &id[..8]));
    term.keys(&["Tab"]);
    term.wait_for(&format!("› /switch {id}"));
    term.keys(&["Enter"]);
    term.wait_for(&format!("switched to {id}"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn under_no_color_input_is_plain_and_clear_still_clears() {
    let home = tempfile::tempdir().unwrap();
    let model = model().await;
    let Some(term) = chat("no color", home.path(), &model, &[("NO_COLOR", "1")]) else {
        return;
    };
    term.wait_for("› ");
    term.type_text("plain words");
    let screen = term.wait_for("› plain words");
    let coloured = term.screen_with_escapes();
    assert!(
        !coloured.contains('\x1b'),
        "colours under NO_COLOR:\n{coloured:?}\n{screen}"
    );
    term.keys(&["Enter"]);
    term.wait_for_prompt_after("[context");
    assert!(term.visible().contains("SmallEBot — "));
    term.type_text("/clear");
    term.keys(&["Enter"]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let visible = term.visible();
        if !visible.contains("SmallEBot — ") && !visible.contains("the answer") {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "not cleared:\n{visible}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_project_home_is_found_from_a_subdirectory_and_the_banner_names_it() {
    let model = model().await;
    let user_home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let home = project.path().join(".agents");
    std::fs::create_dir(&home).unwrap();
    let sub = project.path().join("src/deep");
    std::fs::create_dir_all(&sub).unwrap();
    let url = model.base_url();
    let env = [
        ("OPENAI_BASE_URL", url.as_str()),
        ("SMALLEBOT_MODEL", "scripted"),
        ("HOME", &*user_home.path().to_string_lossy()),
    ];
    let Some(term) = Tmux::start_in("discovery", Some(&sub), &env, &["chat"]) else {
        return;
    };
    let screen = term.wait_for("› ");
    assert!(
        screen.contains(&format!("home {} · model scripted", home.display())),
        "{screen}"
    );
    term.type_text("hi");
    term.keys(&["Enter"]);
    term.wait_for("the answer");
    assert!(home.join("smallebot.db").exists());
    assert!(!user_home.path().join(".smallebot").exists());
    assert!(!sub.join(".agents").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_puts_the_last_answer_on_the_clipboard() {
    let home = tempfile::tempdir().unwrap();
    let model = model().await;
    let Some(term) = chat("copy", home.path(), &model, &[]) else {
        return;
    };
    term.allow_clipboard();
    term.wait_for("› ");
    term.type_text("hi");
    term.keys(&["Enter"]);
    term.wait_for_prompt_after("[context");
    term.type_text("/copy");
    term.keys(&["Enter"]);
    term.wait_for("copied the last answer (10 characters)");
    assert_eq!(term.clipboard(), "the answer");
}
