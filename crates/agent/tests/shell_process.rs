//! `ExecuteCommand` with real processes: time limits and cancellation kill the whole
//! process group, output stays bounded, pipes held open do not hang the call.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod shell_support;

use std::time::{Duration, Instant};

use smallebot_core::entities::ToolCallStatus;
use tokio_util::sync::CancellationToken;

use shell_support::{Shell, assert_group_gone, context, printed_group};

#[tokio::test]
async fn a_command_with_background_children_is_stopped_at_the_timeout_with_its_whole_group() {
    let shell = Shell::with_timeout(Duration::from_secs(1));
    let started = Instant::now();
    let outcome = shell
        .run("echo pgid=$$; sleep 100 & sleep 100 & (sleep 100; echo never) & sleep 100")
        .await;
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(4), "took {elapsed:?}");
    assert!(elapsed >= Duration::from_millis(900), "took {elapsed:?}");
    assert_eq!(outcome.status, ToolCallStatus::Error, "{}", outcome.content);
    assert!(
        outcome
            .content
            .ends_with("\n[timed out after 1 s; the process group was killed]"),
        "{}",
        outcome.content
    );
    assert_group_gone(printed_group(&outcome.content)).await;
}

#[tokio::test]
async fn cancelling_the_turn_stops_a_running_command_promptly() {
    let shell = Shell::default_settings();
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(500)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let outcome = shell
        .call_with(
            r#"{"command": "echo pgid=$$; sleep 100 & sleep 100"}"#,
            &context(cancel),
        )
        .await;
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(3), "took {elapsed:?}");
    assert_eq!(outcome.status, ToolCallStatus::Cancelled);
    assert!(
        outcome
            .content
            .ends_with("\n[cancelled; the process group was killed]"),
        "{}",
        outcome.content
    );
    assert_group_gone(printed_group(&outcome.content)).await;
}

#[tokio::test]
async fn a_cancelled_turn_runs_nothing() {
    let shell = Shell::default_settings();
    let cancel = CancellationToken::new();
    cancel.cancel();
    let outcome = shell
        .call_with(r#"{"command": "touch made"}"#, &context(cancel))
        .await;
    assert_eq!(outcome.status, ToolCallStatus::Cancelled);
    assert!(!shell.workspace().join("made").exists());
}

#[tokio::test]
async fn a_200000_line_output_returns_head_tail_and_exit_code() {
    let shell = Shell::default_settings();
    let outcome = shell
        .run("seq 1 200000; echo 'last error line'; exit 3")
        .await;
    // A non-zero exit failed.
    assert_eq!(outcome.status, ToolCallStatus::Error);
    let content = &outcome.content;
    assert!(content.starts_with("1\n2\n3\n4\n"), "{}", &content[..50]);
    assert!(
        content.ends_with("199999\n200000\nlast error line\n[exit code: 3]"),
        "{}",
        &content[content.len() - 100..]
    );
    assert!(content.contains(" characters omitted] ...\n"));
    // 30,000 kept characters plus the marker and the status line.
    assert!(content.chars().count() < 30_100, "{}", content.len());
    // The omitted count is exact: every character of the output is kept or counted.
    let total: usize = (1..=200_000)
        .map(|n: u32| n.to_string().len() + 1)
        .sum::<usize>()
        + "last error line\n".len();
    let omitted: usize = content
        .split("... [")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(omitted, total - 30_000);
}

#[tokio::test]
async fn a_background_child_holding_the_pipes_does_not_hang_the_call() {
    let shell = Shell::default_settings();
    let started = Instant::now();
    let outcome = shell.run("echo pgid=$$; sleep 30 & echo done").await;
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(outcome.status, ToolCallStatus::Ok);
    assert!(
        outcome.content.ends_with("done\n[exit code: 0]"),
        "{}",
        outcome.content
    );
    // What the command left in the background is stopped with it.
    assert_group_gone(printed_group(&outcome.content)).await;
}

#[tokio::test]
async fn ordinary_commands_run_in_the_workspace_with_no_input() {
    let shell = Shell::default_settings();
    let outcome = shell
        .run("echo hello && pwd && cat && echo read-nothing")
        .await;
    assert_eq!(outcome.status, ToolCallStatus::Ok, "{}", outcome.content);
    let root = std::fs::canonicalize(shell.workspace()).unwrap();
    assert_eq!(
        outcome.content,
        format!("hello\n{}\nread-nothing\n[exit code: 0]", root.display())
    );

    let outcome = shell
        .run("mkdir -p sub/dir && echo hi > sub/dir/f.txt")
        .await;
    assert_eq!(outcome.content, "(no output)\n[exit code: 0]");
    let outcome = shell
        .call(r#"{"command": "pwd; cat f.txt", "workingDirectory": "sub/./dir/"}"#)
        .await;
    assert_eq!(
        outcome.content,
        format!("{}\nhi\n[exit code: 0]", root.join("sub/dir").display())
    );

    let outcome = shell.run("printf 'no newline'; false").await;
    assert_eq!(outcome.status, ToolCallStatus::Error);
    assert_eq!(outcome.content, "no newline\n[exit code: 1]");

    let outcome = shell.run("echo to-stderr >&2").await;
    assert_eq!(outcome.content, "to-stderr\n[exit code: 0]");

    let outcome = shell.run("kill -TERM $$").await;
    assert_eq!(outcome.content, "(no output)\n[killed by signal 15]");
}

#[tokio::test]
async fn the_working_directory_must_be_a_directory_inside_the_workspace() {
    let shell = Shell::default_settings();
    shell.run("echo x > file.txt").await;
    let sibling = shell.dir.path().join("workspace2");
    std::fs::create_dir_all(&sibling).unwrap();
    std::os::unix::fs::symlink(&sibling, shell.workspace().join("out")).unwrap();
    for (dir, status, says) in [
        ("..", ToolCallStatus::Denied, "Error: workingDirectory: "),
        (
            "../workspace2",
            ToolCallStatus::Denied,
            "Error: workingDirectory: ",
        ),
        ("/tmp", ToolCallStatus::Denied, "Error: workingDirectory: "),
        ("out", ToolCallStatus::Denied, "outside the workspace"),
        ("missing", ToolCallStatus::Error, "does not exist"),
        (
            "file.txt",
            ToolCallStatus::Error,
            "is a file, not a directory",
        ),
    ] {
        let args = serde_json::json!({"command": "touch escaped", "workingDirectory": dir});
        let outcome = shell.call(&args.to_string()).await;
        assert_eq!(outcome.status, status, "{dir}: {}", outcome.content);
        assert!(outcome.content.contains(says), "{dir}: {}", outcome.content);
    }
    assert!(!sibling.join("escaped").exists());
    assert!(!shell.dir.path().join("escaped").exists());
}
