//! Issue 31: `smallebot run --attach FILE` through the real binary — the files reach the
//! model with the message; a missing file, a file over the limit or an image for a
//! model that cannot see images stop `run` before anything is stored.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;

use std::path::Path;
use std::process::Output;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use cli::text;
use smallebot_testkit::files::png_header as png;
use smallebot_testkit::{ScriptedResponse, TestModel};

async fn run(home: &Path, base_url: &str, images: bool, args: &[&str]) -> Output {
    let mut command = cli::smallebot(home, Some(base_url));
    if images {
        command.env("OPENAI_SUPPORTS_IMAGES", "1");
    }
    command.args(args).output().await.unwrap()
}

#[tokio::test]
async fn run_attach_sends_an_image_and_a_text_file_with_the_message() {
    let home = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir().unwrap();
    let server = TestModel::start().await.unwrap();
    cli::answer_titles(&server);
    server.push(ScriptedResponse::text("A login error."));
    let image = png(800, 600);
    std::fs::write(files.path().join("shot.png"), &image).unwrap();
    std::fs::write(files.path().join("notes.txt"), "first line\nsecond line\n").unwrap();
    let (shot, notes) = (
        files.path().join("shot.png"),
        files.path().join("notes.txt"),
    );
    let out = run(
        home.path(),
        &server.base_url(),
        true,
        &[
            "run",
            "--attach",
            shot.to_str().unwrap(),
            "--attach",
            notes.to_str().unwrap(),
            "what went wrong?",
        ],
    )
    .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("A login error."));
    let parts = server.turn_requests()[0].last_user_parts();
    assert_eq!(parts[0]["text"], "what went wrong?");
    assert_eq!(
        parts[1]["image_url"]["url"],
        format!("data:image/png;base64,{}", STANDARD.encode(&image))
    );
    assert_eq!(
        parts[2]["text"],
        "Attached file notes.txt (23 B):\n```\nfirst line\nsecond line\n```"
    );
    // The timeline names them under the message.
    let id = cli::listed(home.path()).await;
    let id = id.split_whitespace().next().unwrap();
    let shown = cli::smallebot(home.path(), None)
        .args(["conversations", "show", id])
        .output()
        .await
        .unwrap();
    let shown = text(&shown.stdout);
    assert!(shown.contains("USER: what went wrong?"), "{shown}");
    assert!(shown.contains("[image: shot.png 800×600]"), "{shown}");
    assert!(shown.contains("[file: notes.txt 23 B]"), "{shown}");
}

#[tokio::test]
async fn run_attach_refuses_before_anything_is_stored() {
    let home = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir().unwrap();
    let server = TestModel::start().await.unwrap();
    cli::answer_titles(&server);
    std::fs::write(files.path().join("shot.png"), png(10, 10)).unwrap();
    std::fs::write(files.path().join("big.txt"), "x".repeat(64)).unwrap();
    std::fs::write(
        home.path().join("agent.json"),
        r#"{ "attachments": { "maxFileBytes": 60, "maxMessageBytes": 60 } }"#,
    )
    .unwrap();
    let path = |name: &str| files.path().join(name).to_str().unwrap().to_owned();
    let cases = [
        (path("missing.txt"), false, "cannot read"),
        (path("big.txt"), false, "maxFileBytes"),
        // The environment's model is named as it was given (SMALLEBOT_MODEL).
        (
            path("shot.png"),
            false,
            "model 'scripted' cannot see images",
        ),
    ];
    for (file, images, expected) in cases {
        let out = run(
            home.path(),
            &server.base_url(),
            images,
            &["run", "--attach", &file, "look"],
        )
        .await;
        assert_eq!(out.status.code(), Some(1), "{file}: {}", text(&out.stderr));
        let stderr = text(&out.stderr);
        assert!(stderr.contains(expected), "{file}: {stderr}");
    }
    assert!(
        !cli::listed(home.path()).await.contains("New conversation"),
        "nothing stored"
    );
    assert_eq!(server.request_count(), 0);
}
