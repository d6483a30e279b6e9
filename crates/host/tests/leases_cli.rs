//! Turn leases through the real binary: one running turn per conversation across
//! processes, and recovery that leaves other live processes' turns alone.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;

use cli::text;

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use smallebot_testkit::{Gate, ScriptedResponse, TestModel};

fn command(home: &Path, base_url: &str) -> tokio::process::Command {
    cli::smallebot(home, Some(base_url))
}

async fn run(home: &Path, base_url: &str, args: &[&str]) -> Output {
    command(home, base_url).args(args).output().await.unwrap()
}

async fn conversation_ids(home: &Path, base_url: &str) -> Vec<String> {
    let out = run(home, base_url, &["conversations", "list"]).await;
    text(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect()
}

#[tokio::test]
async fn six_processes_on_one_conversation_run_one_turn_and_the_rest_are_busy() {
    let home = tempfile::tempdir().unwrap();
    let server = TestModel::start().await.unwrap();
    let url = server.base_url();
    // Whoever gets the turn is held until every other process has given up, however
    // slowly they start on a loaded machine; nobody else gets one. (One handler from
    // the start: a queued title answer the first `run` never asked for would answer a
    // question unheld.)
    let gate = Gate::new();
    server.respond_with({
        let gate = gate.clone();
        move |r| match r.last_user_text().as_deref() {
            Some("hello") => ScriptedResponse::text("hello back"),
            Some(q) if q.starts_with("question ") => {
                ScriptedResponse::text("the one answer").hold_until(&gate)
            }
            _ => ScriptedResponse::text("Greetings"),
        }
    });
    let first = run(home.path(), &url, &["run", "hello"]).await;
    assert!(first.status.success(), "{}", text(&first.stderr));
    let id = conversation_ids(home.path(), &url).await.remove(0);
    let (sender, mut finished) = tokio::sync::mpsc::unbounded_channel();
    for i in 0..6 {
        let child = command(home.path(), &url)
            .args(["run", "--conversation", &id, &format!("question {i}")])
            .spawn()
            .unwrap();
        let sender = sender.clone();
        tokio::spawn(async move {
            let _ = sender.send(child.wait_with_output().await.unwrap());
        });
    }
    drop(sender);
    let mut outputs = Vec::new();
    // Five refusals come while the turn is held; if they do not (a second process got
    // the turn), the gate opens after a while and the assertion below says so.
    while outputs.len() < 5 {
        match tokio::time::timeout(Duration::from_secs(60), finished.recv()).await {
            Ok(Some(output)) => outputs.push(output),
            _ => break,
        }
    }
    gate.open();
    while let Some(output) = finished.recv().await {
        outputs.push(output);
    }
    let done: Vec<&Output> = outputs.iter().filter(|o| o.status.success()).collect();
    let busy: Vec<&Output> = outputs
        .iter()
        .filter(|o| o.status.code() == Some(3))
        .collect();
    assert_eq!(
        (done.len(), busy.len()),
        (1, 5),
        "{:#?}",
        outputs.iter().map(|o| text(&o.stderr)).collect::<Vec<_>>()
    );
    for refused in &busy {
        let err = text(&refused.stderr);
        assert!(err.contains("is busy: turn "), "{err}");
        assert!(err.contains("is running in process "), "{err}");
    }
    // The stored history alternates: question, answer, question, answer.
    let shown = text(
        &run(home.path(), &url, &["conversations", "show", &id])
            .await
            .stdout,
    );
    let roles: Vec<&str> = shown
        .lines()
        .filter_map(|l| {
            let l = l.trim_start();
            if l.starts_with("USER:") {
                Some("user")
            } else if l.starts_with("ASSISTANT:") {
                Some("assistant")
            } else {
                None
            }
        })
        .collect();
    assert_eq!(roles, ["user", "assistant", "user", "assistant"], "{shown}");
    assert_eq!(shown.matches("· completed").count(), 2, "{shown}");
    let asked: Vec<_> = server
        .requests()
        .iter()
        .map(|r| r.last_user_text().unwrap_or_default())
        .collect();
    // Two turns reached the model. `run` asks for the first turn's title beside it and
    // never waits, so that request may or may not have been sent before it exited.
    let turns = asked
        .iter()
        .filter(|a| *a == "hello" || a.starts_with("question "))
        .count();
    assert_eq!(turns, 2, "two turns: {asked:?}");
    assert!(asked.len() <= 2 + 1, "at most one title request: {asked:?}");
}

#[tokio::test]
async fn a_second_process_leaves_the_first_ones_running_turn_alone() {
    let home = tempfile::tempdir().unwrap();
    let server = TestModel::start().await.unwrap();
    let url = server.base_url();
    // The slow turn is held until the quick one is done, however long that takes.
    let gate = Gate::new();
    server.respond_with({
        let gate = gate.clone();
        move |r| {
            let answer = ScriptedResponse::text("answer");
            if r.last_user_text().is_some_and(|t| t.contains("slow")) {
                answer.hold_until(&gate)
            } else {
                answer
            }
        }
    });
    let slow = command(home.path(), &url)
        .args(["run", "--json", "a slow question"])
        .spawn()
        .unwrap();
    server
        .wait_for_requests(1, Duration::from_secs(30))
        .await
        .unwrap();
    // Starts while the first turn runs: recovery must not mark it.
    let quick = run(home.path(), &url, &["run", "a quick one"]).await;
    assert!(quick.status.success(), "{}", text(&quick.stderr));
    assert!(
        !text(&quick.stderr).contains("interrupted"),
        "{}",
        text(&quick.stderr)
    );
    gate.open();
    let slow = slow.wait_with_output().await.unwrap();
    assert!(slow.status.success(), "{}", text(&slow.stderr));
    for id in conversation_ids(home.path(), &url).await {
        let shown = text(
            &run(home.path(), &url, &["conversations", "show", &id])
                .await
                .stdout,
        );
        assert!(shown.contains("· completed"), "{shown}");
        assert!(!shown.contains("interrupted"), "{shown}");
    }
}

#[tokio::test]
async fn killing_one_of_two_running_processes_interrupts_only_its_turn() {
    let home = tempfile::tempdir().unwrap();
    let server = TestModel::start().await.unwrap();
    let url = server.base_url();
    // The victim's answer never comes; the survivor's is held until the victim's turn
    // was marked.
    let never = Gate::new();
    let survivor_gate = Gate::new();
    server.respond_with({
        let (never, survivor_gate) = (never.clone(), survivor_gate.clone());
        move |r| {
            let text = r.last_user_text().unwrap_or_default();
            let answer = ScriptedResponse::text("answer");
            if text.contains("victim") {
                answer.hold_until(&never)
            } else if text.contains("survivor") {
                answer.hold_until(&survivor_gate)
            } else {
                answer
            }
        }
    });
    let mut victim = command(home.path(), &url)
        .args(["run", "the victim"])
        .spawn()
        .unwrap();
    server
        .wait_for_requests(1, Duration::from_secs(30))
        .await
        .unwrap();
    let survivor = command(home.path(), &url)
        .args(["run", "the survivor"])
        .spawn()
        .unwrap();
    // The survivor's turn runs (a title request of the victim's may come first).
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !server
        .requests()
        .iter()
        .any(|r| r.last_user_text().is_some_and(|t| t == "the survivor"))
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the survivor's turn never started"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    victim.kill().await.unwrap(); // SIGKILL
    victim.wait().await.unwrap();
    // The next start marks the dead process's turn, and only that one.
    let next = run(home.path(), &url, &["conversations", "list"]).await;
    assert!(
        text(&next.stderr).contains("1 turn(s) were interrupted"),
        "{}",
        text(&next.stderr)
    );
    survivor_gate.open();
    let survivor = survivor.wait_with_output().await.unwrap();
    assert!(survivor.status.success(), "{}", text(&survivor.stderr));
    let mut statuses = Vec::new();
    for id in conversation_ids(home.path(), &url).await {
        let shown = text(
            &run(home.path(), &url, &["conversations", "show", &id])
                .await
                .stdout,
        );
        let status = if shown.contains("· interrupted") {
            "interrupted"
        } else if shown.contains("· completed") {
            "completed"
        } else {
            "other"
        };
        let who = if shown.contains("the victim") {
            "victim"
        } else {
            "survivor"
        };
        statuses.push((who, status));
    }
    statuses.sort_unstable();
    assert_eq!(
        statuses,
        [("survivor", "completed"), ("victim", "interrupted")]
    );
}
