//! Skills in multi-user `serve`: each user sees the shared skills and their own
//! (`GET /api/skills`, `GET /api/skills/{name}`, `404` for another user's), their own
//! shadowing a shared one of the same name, and `GenerateSkill` in a user's turn writes
//! into that user's folder outside their workspace.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;
mod sandbox_support;

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use smallebot_testkit::{ScriptedResponse, TestModel, ToolCallSpec};

async fn json_of(
    response: impl std::future::Future<Output = reqwest::Result<reqwest::Response>>,
) -> Value {
    response.await.unwrap().json().await.unwrap()
}

fn write_skill(dir: &Path, name: &str, description: &str) {
    std::fs::create_dir_all(dir.join(name)).unwrap();
    std::fs::write(
        dir.join(name).join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {description}\nallowed-tools: ReadFile\n---\nSteps of {name}.\n"),
    )
    .unwrap();
    std::fs::create_dir_all(dir.join(name).join("references")).unwrap();
    std::fs::write(dir.join(name).join("references/notes.md"), "notes").unwrap();
}

#[tokio::test]
async fn each_user_sees_the_shared_skills_and_their_own() {
    if !sandbox_support::landlock_or_skip() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let model = TestModel::start().await.unwrap();
    let mut tokens = Vec::new();
    for name in ["carol", "dave"] {
        let out = cli::smallebot(home.path(), Some(&model.base_url()))
            .args(["users", "add", name])
            .output()
            .await
            .unwrap();
        assert!(out.status.success());
        tokens.push(String::from_utf8(out.stdout).unwrap().trim().to_owned());
    }
    let (carol, dave) = (&tokens[0], &tokens[1]);
    let shared = home.path().join("skills");
    write_skill(&shared, "shared-steps", "Everyone's steps.");
    write_skill(&shared, "overridden", "The shared version.");
    let own = home.path().join("users/carol/skills");
    write_skill(&own, "carol-only", "Carol's own steps.");
    write_skill(&own, "overridden", "Carol's version.");

    let mut serve = cli::smallebot(home.path(), Some(&model.base_url()));
    serve.args(["serve", "--addr", "0.0.0.0:0", "--public-name", "127.0.0.1"]);
    let (mut child, _, base) = cli::start_serving(serve).await;
    let http = reqwest::Client::new();
    let get = |path: &str, token: &str| {
        http.get(format!("{base}{path}"))
            .bearer_auth(token.to_owned())
            .send()
    };
    let list: Value = json_of(get("/api/skills", carol)).await;
    let seen: Vec<(String, String, String)> = list["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_owned(),
                s["source"].as_str().unwrap().to_owned(),
                s["description"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let triple = |n: &str, s: &str, d: &str| (n.to_owned(), s.to_owned(), d.to_owned());
    assert_eq!(
        seen,
        vec![
            triple("carol-only", "user", "Carol's own steps."),
            triple("overridden", "user", "Carol's version."),
            triple("shared-steps", "shared", "Everyone's steps."),
        ]
    );
    assert_eq!(list["skills"][0]["problems"], json!([]));
    // Folders relative to the skills folder: no server path reaches a web user.
    assert_eq!(list["skills"][0]["location"], "carol-only");
    let home_path = home.path().to_str().unwrap();
    assert!(!list.to_string().contains(home_path), "{list}");
    let detail: Value = json_of(get("/api/skills/carol-only", carol)).await;
    assert_eq!(
        detail,
        json!({"name": "carol-only", "description": "Carol's own steps.", "body": "Steps of carol-only.\n",
               "files": ["references/notes.md"], "allowed_tools": ["ReadFile"]})
    );
    let hidden = get("/api/skills/carol-only", dave).await.unwrap();
    assert_eq!(hidden.status(), reqwest::StatusCode::NOT_FOUND);
    let theirs: Value = json_of(get("/api/skills/overridden", dave)).await;
    assert_eq!(theirs["description"], "The shared version.");

    // A skill Carol's model writes lands in her folder, outside her workspace.
    cli::answer_titles(&model);
    model.push_all([
        ScriptedResponse::tool_calls([ToolCallSpec::new(
            "g1",
            "GenerateSkill",
            json!({"name": "carol-new", "description": "Made in a turn.", "body": "Do it."})
                .to_string(),
        )]),
        ScriptedResponse::text("Saved."),
    ]);
    let created: Value = http
        .post(format!("{base}/api/conversations"))
        .bearer_auth(carol)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = created["id"].as_str().unwrap();
    let started = http
        .post(format!("{base}/api/conversations/{id}/messages"))
        .bearer_auth(carol)
        .json(&json!({"text": "save it"}))
        .send()
        .await
        .unwrap();
    assert_eq!(started.status(), reqwest::StatusCode::ACCEPTED);
    let written = own.join("carol-new/SKILL.md");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !written.exists() {
        assert!(std::time::Instant::now() < deadline, "never written");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let dave_list: Value = json_of(get("/api/skills", dave)).await;
    assert!(!dave_list.to_string().contains("carol-new"), "{dave_list}");
    child.start_kill().unwrap();
    child.wait().await.unwrap();
}
