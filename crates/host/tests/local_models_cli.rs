//! Issue 40 through the real binary: `smallebot models` lists each model with what its
//! server reported, and `run` against a llama.cpp-like server warns about a larger
//! contextWindow and marks an answer cut at the output limit on standard error.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;

use cli::text;

use smallebot_testkit::fixtures::{LLAMA_CPP_LENGTH, LLAMA_CPP_PROPS};
use smallebot_testkit::{ScriptedResponse, TestModel};

fn models_json(base_url: &str) -> String {
    serde_json::json!({
        "default": "local",
        "models": [
            {"id": "local", "baseUrl": base_url, "model": "gemma", "contextWindow": 8192,
             "maxOutputTokens": 256},
            {"id": "elsewhere", "baseUrl": "http://127.0.0.1:9/v1", "model": "m"}
        ]
    })
    .to_string()
}

async fn server() -> TestModel {
    let server = TestModel::start().await.unwrap();
    server.serve_info("/props", serde_json::from_str(LLAMA_CPP_PROPS).unwrap());
    server
}

#[tokio::test]
async fn models_lists_each_model_with_what_its_server_reported() {
    let home = tempfile::tempdir().unwrap();
    let server = server().await;
    std::fs::write(
        home.path().join("models.json"),
        models_json(&server.base_url()),
    )
    .unwrap();
    let out = cli::smallebot(home.path(), None)
        .arg("models")
        .output()
        .await
        .unwrap();
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    let expected = [
        format!("* local  gemma at {}", server.base_url()),
        "    models.json: contextWindow 8192, maxOutputTokens 256, parallelRequests not set"
            .to_owned(),
        "    server: llama.cpp: 4096 tokens of context per slot, 1 slot: one request at a time"
            .to_owned(),
        "    warning: model `local`: models.json says contextWindow 8192, but its server \
         (llama.cpp) gives a request only 4096 tokens"
            .to_owned(),
        "  elsewhere  m at http://127.0.0.1:9/v1".to_owned(),
        "    models.json: contextWindow not set (the server's, else 128000), maxOutputTokens \
         4096, parallelRequests not set"
            .to_owned(),
        "    server: said nothing about its limits".to_owned(),
    ];
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), expected.len(), "{stdout}");
    for (line, want) in lines.iter().zip(&expected) {
        assert!(line.starts_with(want.as_str()), "{line:?} vs {want:?}");
    }
    assert_eq!(server.request_count(), 0, "nothing is sent to the model");
}

#[tokio::test]
async fn models_says_where_the_environment_s_model_comes_from() {
    let home = tempfile::tempdir().unwrap();
    let server = server().await;
    let out = cli::smallebot(home.path(), Some(&server.base_url()))
        .env("SMALLEBOT_MODEL", "qwen3:8b")
        .arg("models")
        .output()
        .await
        .unwrap();
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    // No id of models.json ("env" is no name a person chose): the model, its server and
    // where they come from.
    assert_eq!(
        lines[0],
        format!(
            "* qwen3:8b at {} (from the environment: no models.json)",
            server.base_url()
        ),
        "{stdout}"
    );
    assert!(
        lines[1].starts_with("    settings: contextWindow not set"),
        "{stdout}"
    );
    assert!(lines[2].starts_with("    server: llama.cpp"), "{stdout}");
}

#[tokio::test]
async fn run_warns_about_the_window_and_marks_a_cut_answer_on_stderr() {
    let home = tempfile::tempdir().unwrap();
    let server = server().await;
    std::fs::write(
        home.path().join("models.json"),
        models_json(&server.base_url()),
    )
    .unwrap();
    server.push(ScriptedResponse::recorded(LLAMA_CPP_LENGTH));
    cli::answer_titles(&server);
    let out = cli::smallebot(home.path(), None)
        .args(["run", "Say hello in French"])
        .output()
        .await
        .unwrap();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(
        stdout.starts_with("Say hello in French<|im_end|>"),
        "{stdout}"
    );
    assert!(
        stderr.contains("(answer cut at the output limit"),
        "never silently final: {stderr}"
    );
    assert!(
        stderr.contains("models.json says contextWindow 8192, but its server (llama.cpp)"),
        "{stderr}"
    );
    let request = &server.requests()[0];
    assert_eq!(request.body["max_tokens"], 256, "maxOutputTokens");
    // No retry; the title (the server has one slot) only after the turn.
    let order: Vec<bool> = server
        .requests()
        .iter()
        .map(smallebot_testkit::RecordedRequest::asks_for_title)
        .collect();
    assert_eq!(order, [false, true]);
}
