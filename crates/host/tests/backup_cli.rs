//! `backup` and `restore` through the real binary: a restored home holds every
//! conversation, attachment content, task list and configuration file of the one
//! backed up; a home that holds data is not overwritten without `--force` (and then
//! kept aside); a backup taken while `serve` runs turns restores whole.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use smallebot_testkit::{ScriptedResponse, TestModel, ToolCallSpec};

/// Every file under `dir` with its bytes, by path relative to `dir`.
fn files_under(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let name = path.strip_prefix(root).unwrap().display().to_string();
                out.insert(name, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// The ids `conversations list --all` prints for `home`.
async fn conversation_ids(home: &Path) -> Vec<String> {
    let (ok, out, err) = cli::outcome(home, &["conversations", "list", "--all"]).await;
    assert!(ok, "{err}");
    out.lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.len() == 36)
        .map(str::to_owned)
        .collect()
}

/// `conversations export ID --format json` of `home`.
async fn export(home: &Path, id: &str) -> Value {
    let (ok, out, err) =
        cli::outcome(home, &["conversations", "export", id, "--format", "json"]).await;
    assert!(ok, "{err}");
    serde_json::from_str(&out).unwrap()
}

#[tokio::test]
async fn restore_brings_back_every_conversation_attachment_and_task_list() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    let model = TestModel::start().await.unwrap();
    cli::answer_titles(&model);
    model.push(ScriptedResponse::text("read it"));
    model.push(ScriptedResponse::tool_calls([ToolCallSpec::new(
        "c1",
        "AddTask",
        json!({"title": "Back up the notes"}).to_string(),
    )]));
    model.push(ScriptedResponse::text("planned"));
    // A file the agent rewrites: its earlier content is kept for a rewind.
    model.push(ScriptedResponse::tool_calls([ToolCallSpec::new(
        "c2",
        "WriteFile",
        json!({"path": "notes.md", "content": "new notes"}).to_string(),
    )]));
    model.push(ScriptedResponse::text("rewritten"));
    std::fs::create_dir_all(a.join("workspace")).unwrap();
    std::fs::write(a.join("workspace/notes.md"), "old notes").unwrap();
    let note = dir.path().join("note.txt");
    std::fs::write(&note, "the notes to keep").unwrap();
    let url = model.base_url();
    for args in [
        vec!["run", "--attach", note.to_str().unwrap(), "read this"],
        vec!["run", "plan the backup"],
        vec!["run", "rewrite the notes"],
    ] {
        let out = cli::smallebot(&a, Some(&url))
            .args(&args)
            .output()
            .await
            .unwrap();
        assert!(out.status.success(), "{}", cli::text(&out.stderr));
    }
    std::fs::write(a.join("agent.json"), r#"{"maxToolSteps": 7}"#).unwrap();
    std::fs::create_dir_all(a.join("skills/notes")).unwrap();
    std::fs::write(
        a.join("skills/notes/SKILL.md"),
        "---\nname: notes\ndescription: Keeps notes.\n---\nKeep them.\n",
    )
    .unwrap();
    // A web user's own agents go too.
    std::fs::create_dir_all(a.join("users/alice/agents")).unwrap();
    std::fs::write(
        a.join("users/alice/agents/helper.md"),
        "---\nname: helper\ndescription: Helps.\n---\nHelp.\n",
    )
    .unwrap();
    // A workspace is the person's own: not part of a backup.
    std::fs::write(a.join("workspace/big.bin"), "x").unwrap();

    let backup = dir.path().join("backup");
    let (ok, out, err) = cli::outcome(&a, &["backup", backup.to_str().unwrap()]).await;
    assert!(ok, "{err}");
    assert!(
        out.contains("3 conversation(s)")
            && out.contains("1 attachment content(s)")
            && out.contains("2 checkpoint content(s)")
            && out.contains("1 task list(s)")
            && out.contains("3 configuration file(s)"),
        "{out}"
    );
    assert!(!backup.join("workspace").exists());
    // A backup never overwrites.
    let (ok, _, err) = cli::outcome(&a, &["backup", backup.to_str().unwrap()]).await;
    assert!(!ok && err.contains("never overwrites"), "{err}");

    let (ok, out, err) = cli::outcome(&b, &["restore", backup.to_str().unwrap()]).await;
    assert!(ok, "{err}");
    assert!(out.starts_with("restored 3 conversation(s)"), "{out}");
    let ids = conversation_ids(&a).await;
    assert_eq!(ids.len(), 3);
    assert_eq!(conversation_ids(&b).await, ids);
    for id in &ids {
        assert_eq!(
            export(&b, id).await,
            export(&a, id).await,
            "conversation {id}"
        );
    }
    for folder in ["attachments", "checkpoints", "tasks", "skills", "users"] {
        let files = files_under(&a.join(folder));
        assert!(!files.is_empty(), "{folder}");
        assert_eq!(files_under(&b.join(folder)), files, "{folder}");
    }
    assert_eq!(
        std::fs::read(b.join("agent.json")).unwrap(),
        std::fs::read(a.join("agent.json")).unwrap()
    );

    // b holds data now: a second restore is refused and changes nothing…
    std::fs::write(b.join("agent.json"), r#"{"maxToolSteps": 9}"#).unwrap();
    let (ok, _, err) = cli::outcome(&b, &["restore", backup.to_str().unwrap()]).await;
    assert!(!ok && err.contains("pass --force"), "{err}");
    assert!(err.contains("nothing was changed"), "{err}");
    assert_eq!(
        std::fs::read_to_string(b.join("agent.json")).unwrap(),
        r#"{"maxToolSteps": 9}"#
    );
    // …and with --force what was there is kept aside, not deleted.
    let (ok, out, err) = cli::outcome(&b, &["restore", backup.to_str().unwrap(), "--force"]).await;
    assert!(ok, "{err}");
    let aside = out
        .lines()
        .find_map(|l| l.strip_prefix("what was there before: "))
        .unwrap_or_else(|| panic!("{out}"));
    assert_eq!(
        std::fs::read_to_string(Path::new(aside).join("agent.json")).unwrap(),
        r#"{"maxToolSteps": 9}"#
    );
    assert!(Path::new(aside).join("smallebot.db").is_file());
    assert_eq!(conversation_ids(&b).await, ids);
}

#[tokio::test]
async fn a_restore_checks_the_backup_first() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let model = TestModel::start().await.unwrap();
    cli::answer_titles(&model);
    model.push(ScriptedResponse::text("read it"));
    let note = dir.path().join("note.txt");
    std::fs::write(&note, "the notes to keep").unwrap();
    let out = cli::smallebot(&a, Some(&model.base_url()))
        .args(["run", "--attach", note.to_str().unwrap(), "read this"])
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{}", cli::text(&out.stderr));
    let backup = dir.path().join("backup");
    let (ok, _, err) = cli::outcome(&a, &["backup", backup.to_str().unwrap()]).await;
    assert!(ok, "{err}");

    // A damaged attachment content is named, and nothing is restored.
    let contents = files_under(&backup.join("attachments"));
    let (name, _) = contents.iter().next().unwrap();
    std::fs::write(backup.join("attachments").join(name), "changed").unwrap();
    let b = dir.path().join("b");
    let (ok, _, err) = cli::outcome(&b, &["restore", backup.to_str().unwrap()]).await;
    assert!(!ok, "{err}");
    assert!(
        err.contains("1 attachment content(s) missing or damaged")
            && err.contains("not what its name says"),
        "{err}"
    );
    assert!(!b.join("smallebot.db").exists());
    // A database that is not one fails the check too.
    std::fs::write(
        backup.join("smallebot.db"),
        "not a database at all, long enough",
    )
    .unwrap();
    let (ok, _, err) = cli::outcome(&b, &["restore", backup.to_str().unwrap()]).await;
    assert!(!ok && err.contains("is not an SQLite database"), "{err}");
    // A folder without a manifest is no backup.
    let (ok, _, err) = cli::outcome(&b, &["restore", dir.path().to_str().unwrap()]).await;
    assert!(
        !ok && err.contains("is not a backup written by smallebot backup"),
        "{err}"
    );
    assert!(!b.join("smallebot.db").exists());
}

#[tokio::test]
async fn a_backup_taken_while_serve_runs_turns_restores_whole() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let model = TestModel::start().await.unwrap();
    model.respond_with(|req| {
        if req.asks_for_title() {
            ScriptedResponse::text("A title")
        } else {
            ScriptedResponse::text("an answer in a few words")
                .delay_between(Duration::from_millis(2))
        }
    });
    let mut serve = cli::smallebot(&a, Some(&model.base_url()));
    serve.args(["serve", "--addr", "127.0.0.1:0"]);
    let (mut child, _banner, base) = cli::start_serving(serve).await;
    let http = reqwest::Client::new();
    let mut ids = Vec::new();
    for _ in 0..4 {
        ids.push(cli::new_conversation(&http, &base).await);
    }
    // Load: every conversation gets a message again as soon as it is free.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let load = {
        let (http, base, ids, stop) = (http.clone(), base.clone(), ids.clone(), stop.clone());
        tokio::spawn(async move {
            let mut accepted = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                for id in &ids {
                    let sent = http
                        .post(format!("{base}/api/conversations/{id}/messages"))
                        .json(&json!({"text": "one more"}))
                        .send()
                        .await
                        .unwrap();
                    if sent.status() == reqwest::StatusCode::ACCEPTED {
                        accepted += 1;
                    }
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            accepted
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let backups: Vec<_> = (0..3)
        .map(|n| dir.path().join(format!("backup{n}")))
        .collect();
    for backup in &backups {
        let (ok, out, err) = cli::outcome(&a, &["backup", backup.to_str().unwrap()]).await;
        assert!(ok, "{err}");
        assert!(out.contains("4 conversation(s)"), "{out}");
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let accepted = load.await.unwrap();
    assert!(accepted > 8, "the server ran turns meanwhile: {accepted}");
    // Let the running turns end, then stop serving.
    tokio::time::sleep(Duration::from_millis(500)).await;
    child.kill().await.unwrap();
    let _ = child.wait().await;

    for (n, backup) in backups.iter().enumerate() {
        let b = dir.path().join(format!("b{n}"));
        let (ok, _, err) = cli::outcome(&b, &["restore", backup.to_str().unwrap()]).await;
        assert!(ok, "{err}");
        assert_eq!(conversation_ids(&b).await.len(), 4);
        for id in &ids {
            // Each turn finished in the copy is the same turn, finished the same, in
            // the home it was taken from: the copy is the home at one moment.
            let original = export(&a, id).await;
            let restored = export(&b, id).await;
            let finished = |export: &Value| -> Vec<Value> {
                export["turns"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|t| t["status"] == "completed")
                    .cloned()
                    .collect()
            };
            let later = finished(&original);
            for turn in finished(&restored) {
                assert!(later.contains(&turn), "backup {n}: {turn} not in {later:?}");
            }
        }
    }
}
