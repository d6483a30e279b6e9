//! Every command on a PostgreSQL database (a throwaway cluster) exits by itself once
//! its work is done, within seconds, with the output it owes: `run`, `chat` through
//! standard input, `compact`, `conversations list|show|search|delete`,
//! `migrate --status`, `mcp list`. (The link to the other processes — a listening
//! connection and its task — must end before the pool closes, or the process waits for
//! ever.)
//!
//! Skipped with one loud line without PostgreSQL binaries, unless
//! `SMALLEBOT_REQUIRE_POSTGRES` is set (CI), where it fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;

use std::path::Path;
use std::process::{Output, Stdio};
use std::time::Duration;

use cli::text;
use smallebot_testkit::postgres::TestCluster;
use smallebot_testkit::{RecordedRequest, ScriptedResponse, TestModel};
use tokio::io::AsyncWriteExt;

/// How long a command may take, start to exit (it needs well under a second).
const EXIT_WITHIN: Duration = Duration::from_secs(20);

/// Runs `smallebot --database url args…` with `input` on standard input; fails when
/// it has not exited within [`EXIT_WITHIN`] (it is killed then) or did not succeed.
async fn finish(home: &Path, model: &str, url: &str, args: &[&str], input: &str) -> Output {
    let mut command = cli::smallebot(home, Some(model));
    command
        .args(["--database", url])
        .args(args)
        .stdin(Stdio::piped());
    let mut child = command.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).await.unwrap();
    drop(stdin);
    let out = tokio::time::timeout(EXIT_WITHIN, child.wait_with_output())
        .await
        .unwrap_or_else(|_| {
            panic!(
                "`smallebot {}` did not exit within {EXIT_WITHIN:?}",
                args.join(" ")
            )
        })
        .unwrap();
    let stderr = text(&out.stderr);
    assert!(
        out.status.success(),
        "`smallebot {}`: {}\n{stderr}",
        args.join(" "),
        out.status
    );
    assert!(
        !stderr.contains("cannot receive events"),
        "`smallebot {}` lost its listener: {stderr}",
        args.join(" ")
    );
    out
}

fn is_summary(request: &RecordedRequest) -> bool {
    request
        .last_user_text()
        .is_some_and(|t| t.contains("## Conversation to summarize"))
}

#[tokio::test]
async fn every_command_exits_on_postgres_with_its_output() {
    let Some(cluster) = TestCluster::start("every_command_exits_on_postgres") else {
        return;
    };
    let url = cluster.create_database().unwrap();
    let home = tempfile::tempdir().unwrap();
    // One turn kept verbatim, so two turns leave one to summarize.
    std::fs::write(home.path().join("agent.json"), r#"{"keepRecentTurns": 1}"#).unwrap();
    let model = TestModel::start().await.unwrap();
    cli::answer_titles(&model);
    model.respond_with(|request| {
        let asked = request.last_user_text().unwrap_or_default();
        if is_summary(request) {
            ScriptedResponse::text("SUMMARY of the first question")
        } else if asked.contains("first question") {
            ScriptedResponse::text("the first answer about zebras")
        } else if asked.contains("second question") {
            ScriptedResponse::text("the second answer")
        } else {
            ScriptedResponse::text("an unscripted question")
        }
    });
    let (home, model, url) = (home.path(), model.base_url(), url.as_str());
    let stdout = |out: Output| text(&out.stdout);

    let ran = stdout(finish(home, &model, url, &["run", "first question"], "").await);
    assert!(ran.contains("the first answer about zebras"), "{ran}");

    let listed = stdout(finish(home, &model, url, &["conversations", "list"], "").await);
    assert!(listed.contains("tester"), "{listed}");
    let id = listed.split_whitespace().next().unwrap().to_owned();

    let chat_args = ["chat", "--conversation", &id];
    let chat = stdout(finish(home, &model, url, &chat_args, "second question\n").await);
    assert!(chat.contains("the second answer"), "{chat}");

    let compacted = stdout(finish(home, &model, url, &["compact", &id], "").await);
    assert!(compacted.contains("context:"), "{compacted}");

    let shown = stdout(finish(home, &model, url, &["conversations", "show", &id], "").await);
    assert!(shown.contains("the second answer"), "{shown}");

    let search = ["conversations", "search", "zebras"];
    let found = stdout(finish(home, &model, url, &search, "").await);
    assert!(found.contains("the first answer about zebras"), "{found}");

    let status = stdout(finish(home, &model, url, &["migrate", "--status"], "").await);
    assert!(status.contains("up to date"), "{status}");

    let mcp = stdout(finish(home, &model, url, &["mcp", "list"], "").await);
    assert!(mcp.contains("no MCP servers"), "{mcp}");

    let delete = ["conversations", "delete", &id];
    let deleted = stdout(finish(home, &model, url, &delete, "").await);
    assert!(deleted.contains("deleted conversation"), "{deleted}");
    let listed = stdout(finish(home, &model, url, &["conversations", "list"], "").await);
    assert!(listed.contains("no conversations yet"), "{listed}");
}
