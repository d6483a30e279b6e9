//! `smallebot run` and the listing commands behind a pipe: standard output carries
//! exactly the stored answer whatever retries happened, a failure is printed once, a
//! reader that goes away (`| head`, `| true`) never makes the program panic, and a
//! prompt that is not UTF-8 is refused in words that say so.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;

use std::path::Path;
use std::process::{Output, Stdio};
use std::time::Duration;

use cli::text;
use smallebot_testkit::{ScriptedResponse, TestModel};
use tokio::io::AsyncWriteExt;

const ANSWER: &str = "Hi there, this is the whole answer.";

/// Runs `smallebot ARGS` to its exit, within 30 s.
async fn smallebot(home: &Path, base_url: &str, args: &[&str]) -> Output {
    let run = cli::smallebot(home, Some(base_url)).args(args).output();
    tokio::time::timeout(Duration::from_secs(30), run)
        .await
        .expect("smallebot exits")
        .unwrap()
}

/// Runs `smallebot ARGS` with its standard output closed before it writes anything
/// (the reader of its pipe has gone), to its exit.
async fn with_stdout_closed(home: &Path, base_url: &str, args: &[&str]) -> Output {
    let mut child = cli::smallebot(home, Some(base_url))
        .args(args)
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    tokio::time::timeout(Duration::from_secs(30), child.wait_with_output())
        .await
        .expect("smallebot exits")
        .unwrap()
}

/// The id of the only conversation of `home`.
async fn only_conversation(home: &Path, base_url: &str) -> String {
    let listed = smallebot(home, base_url, &["conversations", "list"]).await;
    text(&listed.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn stdout_carries_exactly_the_stored_answer_when_a_stream_was_cut_and_retried() {
    let home = tempfile::tempdir().unwrap();
    let model = TestModel::start().await.unwrap();
    cli::answer_titles(&model);
    // The first attempt streams a few pieces of the answer, then the connection drops.
    model.push(
        ScriptedResponse::text(ANSWER)
            .chunk_size(3)
            .cut_after_chunks(4),
    );
    model.push(ScriptedResponse::text(ANSWER).chunk_size(3));
    let out = smallebot(home.path(), &model.base_url(), &["run", "hi"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("retrying"), "the cut was retried: {stderr}");
    assert_eq!(text(&out.stdout), format!("{ANSWER}\n"));

    let id = only_conversation(home.path(), &model.base_url()).await;
    let shown = smallebot(
        home.path(),
        &model.base_url(),
        &["conversations", "show", &id],
    )
    .await;
    let timeline = text(&shown.stdout);
    assert_eq!(timeline.matches(ANSWER).count(), 1, "{timeline}");
    assert!(!timeline.contains("Hi Hi"), "{timeline}");
}

#[tokio::test]
async fn a_failed_turn_is_reported_once() {
    let home = tempfile::tempdir().unwrap();
    let model = TestModel::start().await.unwrap();
    cli::answer_titles(&model);
    model.push(ScriptedResponse::http_error(
        400,
        smallebot_testkit::error_body(
            "the request is malformed",
            "invalid_request_error",
            None,
            None,
        ),
    ));
    let out = smallebot(home.path(), &model.base_url(), &["run", "hi"]).await;
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert_eq!(
        stderr.matches("the turn ended failed").count(),
        1,
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("the request is malformed").count(),
        1,
        "{stderr}"
    );
    assert_eq!(text(&out.stdout), "");
}

#[tokio::test]
async fn a_reader_that_went_away_never_makes_a_command_panic() {
    let home = tempfile::tempdir().unwrap();
    let model = TestModel::start().await.unwrap();
    cli::answer_titles(&model);
    model.push(ScriptedResponse::text(ANSWER));
    let base = model.base_url();

    // `smallebot run hi | true`: the turn is still stored in full.
    let out = with_stdout_closed(home.path(), &base, &["run", "hi"]).await;
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let id = only_conversation(home.path(), &base).await;
    let shown = text(
        &smallebot(home.path(), &base, &["conversations", "show", &id])
            .await
            .stdout,
    );
    assert!(shown.contains(ANSWER), "{shown}");
    assert!(shown.contains("completed"), "{shown}");

    for args in [
        vec!["conversations", "list"],
        vec!["conversations", "show", id.as_str()],
        vec!["conversations", "search", "answer"],
        vec!["migrate", "--status"],
    ] {
        let out = with_stdout_closed(home.path(), &base, &args).await;
        let stderr = text(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(!stderr.contains("Broken pipe"), "{args:?}: {stderr}");
        assert!(out.status.success(), "{args:?}: {stderr}");
    }
}

#[tokio::test]
async fn a_prompt_that_is_not_utf8_is_refused_in_words_that_say_so() {
    let home = tempfile::tempdir().unwrap();
    let model = TestModel::start().await.unwrap();
    let mut child = cli::smallebot(home.path(), Some(&model.base_url()))
        .args(["run", "-"])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"caf\xe9 au lait").await.unwrap();
    drop(stdin);
    let out = child.wait_with_output().await.unwrap();
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(stderr.contains("not valid UTF-8"), "{stderr}");
    assert!(!stderr.contains("terminal"), "{stderr}");
    assert_eq!(model.request_count(), 0);
}
