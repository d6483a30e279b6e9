//! Checkpoints through the real binary (issue 44): a scripted turn writes a file with
//! WriteFile and creates, deletes and renames files with one shell command; the turn
//! lists every change, its contents kept beside the database.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod checkpoints_support;
mod cli;

use std::path::Path;

use checkpoints_support::{
    AFTER, BEFORE, files, pairs, smallebot, the_issues_turn, the_issues_turn_on, write_file_turn,
};
use cli::{answer_titles, text};
use serde_json::json;
use smallebot_testkit::{ScriptedResponse, TestModel, ToolCallSpec};

#[tokio::test]
async fn a_turn_lists_the_five_changes_its_tools_made() {
    let home = tempfile::tempdir().unwrap();
    let (model, id) = the_issues_turn(home.path()).await;
    let ws = home.path().join("workspace");
    assert_eq!(
        std::fs::read_to_string(ws.join("e.txt")).unwrap(),
        "d moves\n"
    );
    assert!(!ws.join("c.txt").exists());

    let shown = smallebot(
        home.path(),
        &model.base_url(),
        &["conversations", "show", &id],
    )
    .await;
    let block = shown
        .split("Files changed:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no file changes in:\n{shown}"));
    let lines: Vec<&str> = block.lines().take(5).map(str::trim).collect();
    assert!(lines[0].starts_with("turn 1 ("), "{block}");
    assert_eq!(
        lines[1..],
        [
            "created  a.txt  (- -> 6 B)",
            "created  b.txt  (- -> 2 B)",
            "deleted  c.txt  (11 B -> -)",
            "renamed  d.txt -> e.txt  (8 B -> 8 B)",
        ],
        "{shown}"
    );
    // The contents before the turn are kept beside the database, once per digest.
    let kept = |content: &str| {
        use sha2::Digest as _;
        let digest = format!("{:x}", sha2::Sha256::digest(content.as_bytes()));
        home.path()
            .join("checkpoints")
            .join(&digest[..2])
            .join(&digest)
    };
    for content in ["c was here\n", "d moves\n", "new a\n", "x\n"] {
        assert_eq!(
            std::fs::read_to_string(kept(content)).unwrap(),
            content,
            "{content:?} kept"
        );
    }
}

/// `smallebot rewind ARGS…` without a model: its standard output (it must succeed).
async fn rewind(home: &Path, args: &[&str]) -> String {
    // `--database URL` stays before the command.
    let split = if args.first() == Some(&"--database") {
        2
    } else {
        0
    };
    let mut all = args[..split].to_vec();
    all.push("rewind");
    all.extend_from_slice(&args[split..]);
    let (ok, out, err) = cli::outcome(home, &all).await;
    assert!(ok, "{all:?}: {err}");
    out
}

#[tokio::test]
async fn rewinding_the_files_restores_them_leaves_the_conversation_and_can_be_undone() {
    let home = tempfile::tempdir().unwrap();
    let (model, id) = the_issues_turn(home.path()).await;
    assert_eq!(files(home.path()), pairs(&AFTER));

    let said = rewind(home.path(), &[&id, "--files"]).await;
    assert_eq!(files(home.path()), pairs(&BEFORE), "{said}");
    for path in ["a.txt", "b.txt", "c.txt", "d.txt", "e.txt"] {
        assert!(said.contains(&format!("restored  {path}")), "{said}");
    }
    assert!(
        said.contains(&format!("smallebot rewind {id} --undo")),
        "{said}"
    );
    let shown = smallebot(
        home.path(),
        &model.base_url(),
        &["conversations", "show", &id],
    )
    .await;
    assert!(!shown.contains("[undone"), "{shown}");
    assert!(shown.contains("  ASSISTANT: Done."), "{shown}");

    // The rewind is itself a checkpoint: undoing it brings the turn's files back.
    let said = rewind(home.path(), &[&id, "--undo"]).await;
    assert_eq!(files(home.path()), pairs(&AFTER), "{said}");
    // And undoing that undo rewinds again.
    rewind(home.path(), &[&id, "--undo"]).await;
    assert_eq!(files(home.path()), pairs(&BEFORE));
}

#[tokio::test]
async fn a_file_the_person_changed_after_the_turn_is_a_conflict_and_kept() {
    let home = tempfile::tempdir().unwrap();
    let (_model, id) = the_issues_turn(home.path()).await;
    let ws = home.path().join("workspace");
    std::fs::write(ws.join("a.txt"), "mine now\n").unwrap();

    let said = rewind(home.path(), &[&id]).await;
    assert!(
        said.contains("conflict  a.txt: changed since the turn"),
        "{said}"
    );
    assert_eq!(
        files(home.path()),
        pairs(&[("a.txt", "mine now\n"), BEFORE[0], BEFORE[1]]),
        "{said}"
    );
    // Forced, it goes too; and the undo of that brings the person's content back.
    rewind(home.path(), &[&id, "--force"]).await;
    assert_eq!(files(home.path()), pairs(&BEFORE));
    rewind(home.path(), &[&id, "--undo"]).await;
    assert_eq!(
        std::fs::read_to_string(ws.join("a.txt")).unwrap(),
        "mine now\n"
    );
}

#[tokio::test]
async fn rewinding_both_also_undoes_the_turn() {
    let home = tempfile::tempdir().unwrap();
    let (model, id) = the_issues_turn(home.path()).await;
    let said = rewind(home.path(), &[&id, "--both", "--to", "1"]).await;
    assert_eq!(files(home.path()), pairs(&BEFORE), "{said}");
    assert!(said.contains("undone turn "), "{said}");
    let shown = smallebot(
        home.path(),
        &model.base_url(),
        &["conversations", "show", &id],
    )
    .await;
    assert!(shown.contains("[undone"), "{shown}");

    let (ok, _, err) = cli::outcome(home.path(), &["rewind", &id, "--to", "7"]).await;
    assert!(!ok);
    assert!(err.contains("'7' is no turn of this conversation"), "{err}");
}

#[tokio::test]
async fn a_rewind_is_refused_while_a_turn_of_the_conversation_runs() {
    let home = tempfile::tempdir().unwrap();
    let (model, id) = the_issues_turn(home.path()).await;
    let gate = smallebot_testkit::Gate::new();
    model.push(ScriptedResponse::text("later").hold_until(&gate));
    let seen = model.requests().len();
    let running = cli::smallebot(home.path(), Some(&model.base_url()))
        .args(["run", "--conversation", &id, "wait"])
        .spawn()
        .unwrap();
    model
        .wait_for_requests(seen + 1, std::time::Duration::from_secs(30))
        .await
        .unwrap();
    let (ok, _, err) = cli::outcome(home.path(), &["rewind", &id, "--files"]).await;
    assert!(!ok);
    assert!(
        err.contains("is running; rewind once it has finished"),
        "{err}"
    );
    assert_eq!(files(home.path()), pairs(&AFTER));
    gate.open();
    let done = running.wait_with_output().await.unwrap();
    assert!(done.status.success(), "{}", text(&done.stderr));
}

#[tokio::test]
async fn a_sub_agents_writes_are_the_parents_turns_changes() {
    let home = tempfile::tempdir().unwrap();
    let agents = home.path().join("agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("writer.md"),
        "---\nname: writer\ndescription: Writes.\ntools: WriteFile\n---\nYou are writer.\n",
    )
    .unwrap();
    std::fs::create_dir_all(home.path().join("workspace")).unwrap();
    let model = TestModel::start().await.unwrap();
    answer_titles(&model);
    let is_writer = |r: &smallebot_testkit::RecordedRequest| {
        r.messages()
            .first()
            .and_then(|m| m["content"].as_str())
            .is_some_and(|s| s.contains("You are writer."))
    };
    model.answer_when(is_writer, |r| {
        if r.last_role() == Some("tool") {
            ScriptedResponse::text("written")
        } else {
            ScriptedResponse::tool_calls([ToolCallSpec::new(
                "s1",
                "WriteFile",
                json!({"path": "by-sub.txt", "content": "sub\n"}).to_string(),
            )])
        }
    });
    model.respond_with(|r| {
        if r.last_role() == Some("tool") {
            ScriptedResponse::text("Done.")
        } else {
            let args = json!({"agent": "writer", "prompt": "Write.", "description": "write"});
            ScriptedResponse::tool_calls([ToolCallSpec::new("d1", "Delegate", args.to_string())])
        }
    });
    let url = model.base_url();
    smallebot(home.path(), &url, &["run", "delegate the writing"]).await;
    assert_eq!(
        std::fs::read_to_string(home.path().join("workspace/by-sub.txt")).unwrap(),
        "sub\n"
    );
    let listed = smallebot(home.path(), &url, &["conversations", "list"]).await;
    let parent = listed.split_whitespace().next().unwrap().to_owned();
    let shown = smallebot(home.path(), &url, &["conversations", "show", &parent]).await;
    assert!(
        shown.contains("Files changed:\n  turn 1 (") && shown.contains("created  by-sub.txt"),
        "{shown}"
    );
    // Listed once: the sub-agent's own conversation lists no changes of its own.
    let all = smallebot(home.path(), &url, &["conversations", "list", "--all"]).await;
    let sub = all
        .lines()
        .map(|l| l.split_whitespace().next().unwrap().to_owned())
        .find(|id| *id != parent)
        .unwrap();
    let shown = smallebot(home.path(), &url, &["conversations", "show", &sub]).await;
    assert!(!shown.contains("Files changed:"), "{shown}");
    // Rewinding the parent's turn removes what the sub-agent wrote.
    rewind(home.path(), &[&parent]).await;
    assert!(!home.path().join("workspace/by-sub.txt").exists());
}

#[tokio::test]
async fn chat_lists_the_last_turns_changes() {
    let home = tempfile::tempdir().unwrap();
    let (model, _id) = the_issues_turn(home.path()).await;
    // chat opens the most recent conversation: the one the turn ran in.
    let out = cli::chat_typing(home.path(), &model, b"/changes\n/quit\n").await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    for line in [
        "turn 1 (",
        "created  a.txt  (- -> 6 B)",
        "deleted  c.txt  (11 B -> -)",
        "renamed  d.txt -> e.txt  (8 B -> 8 B)",
    ] {
        assert!(said.contains(line), "missing {line:?} in:\n{said}");
    }
}

#[tokio::test]
async fn on_postgresql_the_turn_lists_its_changes_and_a_rewind_restores_them() {
    let Some(cluster) = smallebot_testkit::postgres::TestCluster::start("checkpoints_on_pg") else {
        return;
    };
    let db = cluster.create_database().unwrap();
    let home = tempfile::tempdir().unwrap();
    let (model, id) = the_issues_turn_on(home.path(), &["--database", &db]).await;
    let shown = smallebot(
        home.path(),
        &model.base_url(),
        &["--database", &db, "conversations", "show", &id],
    )
    .await;
    for line in [
        "created  a.txt  (- -> 6 B)",
        "created  b.txt  (- -> 2 B)",
        "deleted  c.txt  (11 B -> -)",
        "renamed  d.txt -> e.txt  (8 B -> 8 B)",
    ] {
        assert!(shown.contains(line), "missing {line:?} in:\n{shown}");
    }
    // The contents are in the database, not beside it.
    assert!(!home.path().join("checkpoints").exists());
    rewind(home.path(), &["--database", &db, &id, "--files"]).await;
    assert_eq!(files(home.path()), pairs(&BEFORE));
    rewind(home.path(), &["--database", &db, &id, "--undo"]).await;
    assert_eq!(files(home.path()), pairs(&AFTER));
}

#[tokio::test]
async fn a_fresh_homes_first_turn_lists_its_changes() {
    // No workspace folder yet: the first comparison makes it, so the first turn's
    // file is a change like any other (it was "not captured" before).
    let home = tempfile::tempdir().unwrap();
    let model = TestModel::start().await.unwrap();
    answer_titles(&model);
    model.push_all(write_file_turn("first.txt", "one\n"));
    let url = model.base_url();
    smallebot(home.path(), &url, &["run", "write it"]).await;
    let listed = smallebot(home.path(), &url, &["conversations", "list"]).await;
    let id = listed.split_whitespace().next().unwrap().to_owned();
    let shown = smallebot(home.path(), &url, &["conversations", "show", &id]).await;
    assert!(shown.contains("created  first.txt  (- -> 4 B)"), "{shown}");
    assert!(!shown.contains("not captured"), "{shown}");
}
