//! `smallebot run` in scripts: the answer alone on standard output, the prompt from
//! standard input, no wait for a title, conversations named by id prefixes and refused
//! to other users, escape sequences shown rather than obeyed, and a warning when
//! confirmations cannot be answered.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;

use std::path::Path;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use cli::text;
use smallebot_testkit::{Gate, RecordedRequest, ScriptedResponse, TestModel, ToolCallSpec};
use tokio::io::AsyncWriteExt;

async fn run(home: &Path, base_url: &str, args: &[&str]) -> Output {
    cli::smallebot(home, Some(base_url))
        .args(args)
        .output()
        .await
        .unwrap()
}

/// A model that calls GetCurrentTime once, then answers with escape sequences in
/// the text; titles take `title_delay`.
fn script(model: &TestModel, title_delay: Duration) {
    script_answering_after(model, title_delay, None);
}

/// [`script`], with the final answer held until `answer_after` opens.
fn script_answering_after(model: &TestModel, title_delay: Duration, answer_after: Option<Gate>) {
    model.respond_with(move |req| {
        if req.asks_for_title() {
            return ScriptedResponse::text("Slow title").delay_before(title_delay);
        }
        if req.last_role() == Some("user") {
            return ScriptedResponse::tool_calls([ToolCallSpec::new(
                "call_1",
                "GetCurrentTime",
                "{}",
            )]);
        }
        let answer = ScriptedResponse::text("The answer.\x1b[2J Done.");
        match &answer_after {
            Some(gate) => answer.hold_until(gate),
            None => answer,
        }
    });
}

#[tokio::test]
async fn the_answer_alone_goes_to_stdout_and_a_title_never_delays_the_exit() {
    let home = tempfile::tempdir().unwrap();
    let model = TestModel::start().await.unwrap();
    // The answer waits for the title request, so the run cannot end before the
    // title is asked for however slowly the machine runs.
    let title_asked = Gate::new();
    script_answering_after(&model, Duration::ZERO, Some(title_asked.clone()));
    model.answer_when(RecordedRequest::asks_for_title, move |_| {
        title_asked.open();
        ScriptedResponse::text("Slow title").delay_before(Duration::from_secs(30))
    });
    let started = Instant::now();
    let out = tokio::time::timeout(
        Duration::from_secs(20),
        run(home.path(), &model.base_url(), &["run", "what time is it?"]),
    )
    .await
    .expect("the run ends without the title, once the title is asked for beside the turn");
    let took = started.elapsed();
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Only the answer on stdout, its escape sequence made visible.
    assert_eq!(text(&out.stdout), "The answer.^[[2J Done.\n");
    let stderr = text(&out.stderr);
    assert!(stderr.contains("GetCurrentTime"), "{stderr}");
    assert!(stderr.contains("[context "), "{stderr}");
    assert!(!stderr.contains('\x1b'), "{stderr:?}");
    // The title (30 s) was asked for beside the turn and not waited for.
    assert!(model.requests().iter().any(RecordedRequest::asks_for_title));
    assert!(took < Duration::from_secs(20), "run took {took:?}");
}

#[tokio::test]
async fn a_dash_reads_the_prompt_from_stdin_whole() {
    let home = tempfile::tempdir().unwrap();
    let model = TestModel::start().await.unwrap();
    script(&model, Duration::ZERO);
    // Longer than a terminal's line limit, with several lines.
    let prompt = format!("first line\nsecond line\n{}\nlast line", "x".repeat(20_000));
    let mut child = cli::smallebot(home.path(), Some(&model.base_url()))
        .args(["run", "-"])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(prompt.as_bytes()).await.unwrap();
    drop(stdin);
    let out = child.wait_with_output().await.unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let first = model
        .requests()
        .into_iter()
        .find(|r| !r.asks_for_title())
        .unwrap();
    assert_eq!(first.last_user_text().unwrap(), prompt);

    let mut child = cli::smallebot(home.path(), Some(&model.base_url()))
        .args(["run", "-"])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdin.take());
    let out = child.wait_with_output().await.unwrap();
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("prompt read from standard input is empty"),
        "{}",
        text(&out.stderr)
    );
}

#[tokio::test]
async fn conversations_are_named_by_prefix_and_other_users_are_refused() {
    let home = tempfile::tempdir().unwrap();
    let model = TestModel::start().await.unwrap();
    script(&model, Duration::ZERO);
    let base = model.base_url();
    assert!(
        run(home.path(), &base, &["run", "one"])
            .await
            .status
            .success()
    );
    let listed = text(
        &run(home.path(), &base, &["conversations", "list"])
            .await
            .stdout,
    );
    let id = listed.split_whitespace().next().unwrap().to_owned();

    let prefix = &id[..8];
    let out = run(
        home.path(),
        &base,
        &["run", "--conversation", prefix, "two"],
    )
    .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = run(home.path(), &base, &["conversations", "show", prefix]).await;
    let timeline = text(&shown.stdout);
    assert!(timeline.contains("two"), "{}", text(&shown.stderr));
    // The stored answer's escape sequence is shown, not obeyed.
    assert!(timeline.contains("The answer.^[[2J Done."), "{timeline}");
    assert!(!timeline.contains('\x1b'), "{timeline:?}");

    let out = run(
        home.path(),
        &base,
        &["run", "--conversation", "zzzz", "three"],
    )
    .await;
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("no conversation of tester has an id starting with 'zzzz'"),
        "{}",
        text(&out.stderr)
    );

    let out = run(
        home.path(),
        &base,
        &["run", "--user", "bob", "--conversation", &id, "not yours"],
    )
    .await;
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains(&format!("conversation {id} is not bob's")),
        "{}",
        text(&out.stderr)
    );
    let out = run(
        home.path(),
        &base,
        &[
            "run",
            "--user",
            "bob",
            "--conversation",
            prefix,
            "not yours",
        ],
    )
    .await;
    assert!(
        !out.status.success(),
        "bob's prefixes cover only bob's conversations"
    );
    let shown = text(
        &run(home.path(), &base, &["conversations", "show", &id])
            .await
            .stdout,
    );
    assert!(!shown.contains("not yours"), "{shown}");
}

#[tokio::test]
async fn run_says_first_that_confirmations_cannot_be_answered_without_a_terminal() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("terminal.json"),
        r#"{"requireCommandConfirmation": true}"#,
    )
    .unwrap();
    let model = TestModel::start().await.unwrap();
    script(&model, Duration::ZERO);
    let out = run(home.path(), &model.base_url(), &["run", "hi"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("note: ") && stderr.contains("will be denied"),
        "{stderr}"
    );
    assert!(
        stderr.contains("requireCommandConfirmation to false"),
        "{stderr}"
    );
}

#[tokio::test]
async fn run_says_first_that_questions_of_the_permission_rules_cannot_be_answered() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("agent.json"),
        r#"{"permissions": {"ask": ["WriteFile"]}}"#,
    )
    .unwrap();
    let model = TestModel::start().await.unwrap();
    script(&model, Duration::ZERO);
    let out = run(home.path(), &model.base_url(), &["run", "hi"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("note: the permission rules of ")
            && stderr.contains("agent.json ask about some tool calls")
            && stderr.contains("will be denied"),
        "{stderr}"
    );
}

#[tokio::test]
async fn a_title_request_that_meets_a_server_error_is_retried_before_run_exits() {
    let home = tempfile::tempdir().unwrap();
    let model = TestModel::start().await.unwrap();
    let title_requests = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = std::sync::Arc::clone(&title_requests);
    model.answer_when(RecordedRequest::asks_for_title, move |_| {
        match counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst) {
            0 => ScriptedResponse::server_error(503),
            _ => ScriptedResponse::text("Retried title"),
        }
    });
    model.respond_with(|_| ScriptedResponse::text("The answer."));
    let out = tokio::time::timeout(
        Duration::from_secs(20),
        run(home.path(), &model.base_url(), &["run", "what time is it?"]),
    )
    .await
    .expect("run exits");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let listed = text(
        &run(home.path(), &model.base_url(), &["conversations", "list"])
            .await
            .stdout,
    );
    assert!(listed.contains("Retried title"), "{listed}");
    assert_eq!(title_requests.load(std::sync::atomic::Ordering::SeqCst), 2);
}
