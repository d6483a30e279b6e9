//! Checkpoints through `serve`'s API (issue 44): the timeline carries each turn's file
//! changes, `POST /api/conversations/{id}/rewind` brings the files back (the
//! conversation untouched), keeps a file the person changed as a conflict, is undone
//! with `{"undo": true}`, takes the turn back with `"scope": "both"`, and is refused
//! while a turn of the conversation runs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod checkpoints_support;
mod cli;

use std::path::Path;

use checkpoints_support::{AFTER, BEFORE, files, pairs, the_issues_turn};
use reqwest::StatusCode;
use serde_json::{Value, json};
use smallebot_testkit::{Gate, ScriptedResponse, TestModel};

/// `serve` on `home` against `model`, on a loopback port: the child and its base URL.
async fn serve(home: &Path, model: &TestModel) -> (tokio::process::Child, String) {
    let mut serve = cli::smallebot(home, Some(&model.base_url()));
    serve.args(["serve", "--addr", "127.0.0.1:0"]);
    let (child, _banner, base) = cli::start_serving(serve).await;
    (child, base)
}

/// `POST …/rewind` with `body`: the status and the JSON answer.
async fn rewind(base: &str, id: &str, body: Value) -> (StatusCode, Value) {
    let answer = reqwest::Client::new()
        .post(format!("{base}/api/conversations/{id}/rewind"))
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = answer.status();
    (status, answer.json().await.unwrap())
}

async fn timeline(base: &str, id: &str) -> Value {
    reqwest::get(format!("{base}/api/conversations/{id}"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// Every row of the conversation's timeline is (or is not) marked undone.
async fn assert_rows_undone(base: &str, id: &str, undone: bool) {
    let shown = timeline(base, id).await;
    let rows = shown["rows"].as_array().unwrap();
    assert!(rows.iter().all(|r| r["undone"] == undone), "{shown}");
}

fn sorted(values: &Value) -> Vec<String> {
    let mut list: Vec<String> = values
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    list.sort();
    list
}

#[tokio::test]
async fn the_api_lists_a_turns_changes_rewinds_them_and_undoes_the_rewind() {
    let home = tempfile::tempdir().unwrap();
    let (model, id) = the_issues_turn(home.path()).await;
    let (mut child, base) = serve(home.path(), &model).await;

    let shown = timeline(&base, &id).await;
    let changes: Vec<(String, String, Option<String>)> = shown["file_changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["path"].as_str().unwrap().to_owned(),
                c["kind"].as_str().unwrap().to_owned(),
                c["from"].as_str().map(str::to_owned),
            )
        })
        .collect();
    let expected = [
        ("a.txt", "created", None),
        ("b.txt", "created", None),
        ("c.txt", "deleted", None),
        ("e.txt", "renamed", Some("d.txt")),
    ]
    .map(|(p, k, f)| (p.to_owned(), k.to_owned(), f.map(str::to_owned)));
    assert_eq!(changes, expected, "{shown}");
    assert_eq!(shown["file_changes"][2]["size_before"], 11);
    assert_eq!(
        shown["file_changes"][0]["turn_id"], shown["turns"][0]["id"],
        "{shown}"
    );

    // A file's diff: what the turn did to its text.
    let turn = shown["turns"][0]["id"].as_str().unwrap().to_owned();
    let diff = |path: &str| {
        let url = format!("{base}/api/conversations/{id}/turns/{turn}/diff?path={path}");
        async move { reqwest::get(url).await.unwrap() }
    };
    let deleted: Value = diff("c.txt").await.json().await.unwrap();
    let text = deleted["diff"].as_str().unwrap();
    assert!(text.starts_with("```diff\n--- a/c.txt"), "{deleted}");
    assert!(text.contains("\n-c was here\n"), "{deleted}");
    let renamed: Value = diff("e.txt").await.json().await.unwrap();
    assert_eq!(renamed["diff"], Value::Null, "{renamed}");
    assert!(
        renamed["note"]
            .as_str()
            .unwrap()
            .contains("no line changed")
    );
    assert_eq!(diff("nothing.txt").await.status(), StatusCode::NOT_FOUND);

    // The files back; the conversation as it was.
    let (status, done) = rewind(&base, &id, json!({})).await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(files(home.path()), pairs(&BEFORE));
    assert_eq!(
        sorted(&done["restored"]),
        ["a.txt", "b.txt", "c.txt", "d.txt", "e.txt"],
        "{done}"
    );
    assert_eq!(done["conflicts"], json!([]));
    assert_eq!(done["undone"], json!([]));
    assert!(done["rewind_id"].as_str().unwrap().starts_with("rewind-"));
    assert_rows_undone(&base, &id, false).await;

    // The rewind undone: the turn's files again.
    let (status, undone) = rewind(&base, &id, json!({"undo": true})).await;
    assert_eq!(status, StatusCode::OK, "{undone}");
    assert_eq!(files(home.path()), pairs(&AFTER));

    // A file the person changed since is a conflict, kept.
    std::fs::write(home.path().join("workspace/a.txt"), "mine\n").unwrap();
    let (status, kept) = rewind(&base, &id, json!({"scope": "files"})).await;
    assert_eq!(status, StatusCode::OK, "{kept}");
    assert_eq!(kept["conflicts"][0]["path"], "a.txt", "{kept}");
    assert_eq!(
        std::fs::read_to_string(home.path().join("workspace/a.txt")).unwrap(),
        "mine\n"
    );
    rewind(&base, &id, json!({"undo": true})).await;

    // Both: the files back and the turn undone.
    let (status, both) = rewind(
        &base,
        &id,
        json!({"to_turn": "1", "scope": "both", "force": true}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{both}");
    assert_eq!(files(home.path()), pairs(&BEFORE));
    assert_eq!(both["undone"].as_array().unwrap().len(), 1, "{both}");
    assert_rows_undone(&base, &id, true).await;

    // Refusals say what was wrong.
    let (status, bad) = rewind(&base, &id, json!({"to_turn": "9"})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
    assert!(
        bad["error"].as_str().unwrap().contains("'9' is no turn"),
        "{bad}"
    );
    let (status, bad) = rewind(&base, &id, json!({"files": true})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
    assert!(bad["error"].as_str().unwrap().contains("files"), "{bad}");
    let (status, bad) = rewind(&base, &id, json!({"undo": true, "scope": "both"})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
    let (status, _) = rewind(&base, "0190aaaa-0000-7000-8000-000000000000", json!({})).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    child.kill().await.unwrap();
}

#[tokio::test]
async fn a_rewind_is_refused_while_a_turn_of_the_conversation_runs() {
    let home = tempfile::tempdir().unwrap();
    let (model, id) = the_issues_turn(home.path()).await;
    let held = Gate::new();
    model.push(ScriptedResponse::text("Later.").hold_until(&held));
    let (mut child, base) = serve(home.path(), &model).await;
    let asked = model.request_count();
    let started = reqwest::Client::new()
        .post(format!("{base}/api/conversations/{id}/messages"))
        .json(&json!({"text": "one more"}))
        .send()
        .await
        .unwrap();
    assert_eq!(started.status(), StatusCode::ACCEPTED);
    model
        .wait_for_requests(asked + 1, std::time::Duration::from_secs(30))
        .await
        .unwrap();
    let (status, busy) = rewind(&base, &id, json!({})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{busy}");
    assert!(
        busy["error"].as_str().unwrap().contains("is running"),
        "{busy}"
    );
    assert_eq!(files(home.path()), pairs(&AFTER), "nothing touched");
    held.open();
    child.kill().await.unwrap();
}
