//! Issue 28: skills. The system prompt lists each skill's name, description and folder
//! (never its body) within a bound; `ReadSkill` loads a skill's instructions, file list
//! and files, confined to its folder; `GenerateSkill` writes a valid skill that the next
//! request lists; broken folders are reported by file and line while the rest load.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::json;
use smallebot_agent::assembly::AgentAssembly;
use smallebot_agent::skills::{SkillCatalog, SkillFolders, SkillSource};
use smallebot_agent::tokenizer::Tokenizer;
use smallebot_application::{ConversationService, SendOptions};
use smallebot_infrastructure::SqliteStore;
use smallebot_model_client::ChatEndpoint;
use smallebot_testkit::{ScriptedResponse, TestModel, ToolCallSpec};
use tempfile::TempDir;

use common::{system_prompt, tool_messages};

#[path = "skills/broken.rs"]
mod broken;
#[path = "skills/generate.rs"]
mod generate;

/// The compatibility skills of this repository (written for these tests).
fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/skills_fixtures")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

struct Home {
    dir: TempDir,
    server: TestModel,
    store: SqliteStore,
    service: ConversationService,
}

impl Home {
    fn skills(&self) -> PathBuf {
        self.dir.path().join("skills")
    }
}

/// A home with the fixtures in `skills/` (and whatever `prepare` adds), its assembly
/// pointed at the testkit.
async fn home(prepare: impl FnOnce(&Path)) -> Home {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixtures(), &dir.path().join("skills"));
    prepare(dir.path());
    let server = TestModel::start().await.unwrap();
    let store = SqliteStore::open(&dir.path().join("smallebot.db"))
        .await
        .unwrap();
    let service = AgentAssembly::from_home_with_env(dir.path(), &|_| None)
        .unwrap()
        .store(Arc::new(store.clone()))
        .endpoint(ChatEndpoint::new(server.base_url(), "test-model"))
        .build()
        .unwrap()
        .service;
    Home {
        dir,
        server,
        store,
        service,
    }
}

fn call(id: &str, tool: &str, args: serde_json::Value) -> ScriptedResponse {
    ScriptedResponse::tool_calls([ToolCallSpec::new(id, tool, args.to_string())])
}

/// Sends `text` in conversation `c` and returns the tool results of the turn's last
/// request, by call id.
async fn results_after(
    h: &Home,
    c: smallebot_core::ids::ConversationId,
    text: &str,
) -> std::collections::BTreeMap<String, String> {
    h.service
        .send(c, text, SendOptions::default())
        .await
        .unwrap();
    tool_messages(&h.server.requests().pop().unwrap())
        .into_iter()
        .collect()
}

/// The `# Skills` section of a system prompt.
fn skills_section(prompt: &str) -> String {
    let start = prompt.find("# Skills\n").expect("a skills section") + "# Skills\n".len();
    let rest = &prompt[start..];
    rest[..rest.find("\n\n# ").unwrap_or(rest.len())].to_owned()
}

#[tokio::test]
async fn the_prompt_lists_names_descriptions_and_folders_but_no_body() {
    let h = home(|_| {}).await;
    h.server.push(ScriptedResponse::text("ok"));
    let c = h.service.create_conversation("t").await.unwrap();
    h.service
        .send(c.id, "hi", SendOptions::default())
        .await
        .unwrap();
    let section = skills_section(&system_prompt(&h.server.request(0).unwrap()));
    for (name, description) in [
        (
            "csv-summary",
            "Summarizes a CSV file: counts its rows and names its columns. Use when the person hands over a CSV file and asks what is in it.",
        ),
        (
            "release-notes",
            "Drafts release notes from a list of merged changes. Use when the person asks for a changelog or release announcement.",
        ),
        (
            "unit-converter",
            "Converts between metric and imperial units with a small script; use for lengths and weights.",
        ),
    ] {
        let folder = h.skills().join(name);
        let line = format!("- {name}: {description} ({})", folder.display());
        assert!(section.contains(&line), "{line}\nin\n{section}");
    }
    assert!(section.contains("ReadSkill"), "{section}");
    for body in [
        "# Summarizing a CSV file",
        "Group the changes",
        "convert.sh VALUE",
    ] {
        assert!(!system_prompt(&h.server.request(0).unwrap()).contains(body));
    }
    let tools = h.server.request(0).unwrap();
    let names = tools.tool_names();
    assert!(
        names.contains(&"ReadSkill") && names.contains(&"GenerateSkill"),
        "{names:?}"
    );
    h.store.close().await;
}

#[tokio::test]
async fn two_hundred_skills_stay_within_the_bound_and_the_rest_are_counted() {
    let h = home(|home| {
        for i in 0..200 {
            let dir = home.join("skills").join(format!("bulk-skill-{i:03}"));
            std::fs::create_dir_all(&dir).unwrap();
            let description = format!(
                "Handles bulk job number {i}: {}. Use it when job {i} comes up.",
                "checks inputs, writes outputs and reports what changed ".repeat(5)
            );
            std::fs::write(
                dir.join("SKILL.md"),
                format!(
                    "---\nname: bulk-skill-{i:03}\ndescription: {description:?}\n---\nDo job {i}.\n"
                ),
            )
            .unwrap();
        }
    })
    .await;
    h.server.push(ScriptedResponse::text("ok"));
    let c = h.service.create_conversation("t").await.unwrap();
    h.service
        .send(c.id, "hi", SendOptions::default())
        .await
        .unwrap();
    let section = skills_section(&system_prompt(&h.server.request(0).unwrap()));
    let tokenizer = Tokenizer::new("o200k_base").unwrap();
    tokenizer.warm_up();
    let tokens = tokenizer.count(&section);
    assert!(tokens <= 2_000, "{tokens} tokens");
    let listed = section.lines().filter(|l| l.starts_with("- ")).count();
    assert!(listed > 5 && listed < 203, "{listed}");
    assert!(
        section.ends_with(&format!(
            "{} more skills are not listed here; call ReadSkill with name \"*\" to list them all.",
            203 - listed
        )),
        "{section}"
    );
    h.store.close().await;
}

#[tokio::test]
async fn read_skill_returns_the_body_and_files_and_refuses_paths_outside() {
    let h = home(|home| {
        std::fs::write(home.join("secret.txt"), "home secret").unwrap();
        std::os::unix::fs::symlink(
            home.join("secret.txt"),
            home.join("skills/csv-summary/references/link.md"),
        )
        .unwrap();
    })
    .await;
    h.server.push_all([
        call("c1", "ReadSkill", json!({"name": "csv-summary"})),
        call(
            "c2",
            "ReadSkill",
            json!({"name": "csv-summary", "path": "references/format.md"}),
        ),
        call(
            "c3",
            "ReadSkill",
            json!({"name": "csv-summary", "path": "../../secret.txt"}),
        ),
        call(
            "c4",
            "ReadSkill",
            json!({"name": "csv-summary", "path": "/etc/passwd"}),
        ),
        call(
            "c5",
            "ReadSkill",
            json!({"name": "csv-summary", "path": "references/link.md"}),
        ),
        call("c6", "ReadSkill", json!({"name": "nope"})),
        call("c7", "ReadSkill", json!({"name": "*"})),
        ScriptedResponse::text("done"),
    ]);
    let c = h.service.create_conversation("t").await.unwrap();
    let results = results_after(&h, c.id, "go").await;
    let body = &results["c1"];
    assert!(body.contains("# Summarizing a CSV file"), "{body}");
    assert!(
        body.contains("- references/format.md") && body.contains("- scripts/summarize.sh"),
        "{body}"
    );
    assert!(body.contains("allowed-tools (shown only"), "{body}");
    assert!(!body.contains("- SKILL.md"), "{body}");
    assert!(
        results["c2"].contains("Most files use commas."),
        "{}",
        results["c2"]
    );
    for id in ["c3", "c4", "c5"] {
        assert!(
            results[id].starts_with("Error: ReadSkill:"),
            "{id}: {}",
            results[id]
        );
        assert!(!results[id].contains("home secret"), "{id}");
    }
    assert!(
        results["c5"].contains("outside skill 'csv-summary'"),
        "{}",
        results["c5"]
    );
    assert!(
        results["c6"].contains("no skill is called 'nope'")
            && results["c6"].contains("- unit-converter (shared)")
    );
    assert!(
        results["c7"].starts_with("Skills:\n- csv-summary (shared)"),
        "{}",
        results["c7"]
    );
    h.store.close().await;
}

#[tokio::test]
async fn allowed_tools_grant_nothing_a_listed_command_still_needs_its_confirmation() {
    let h = home(|home| {
        std::fs::write(
            home.join("terminal.json"),
            r#"{"requireCommandConfirmation": true}"#,
        )
        .unwrap();
    })
    .await;
    h.server.push_all([
        call("r1", "ReadSkill", json!({"name": "csv-summary"})),
        call(
            "x1",
            "ExecuteCommand",
            json!({"command": "echo from-skill > granted.txt"}),
        ),
        ScriptedResponse::text("done"),
    ]);
    let c = h.service.create_conversation("t").await.unwrap();
    let results = results_after(&h, c.id, "use the skill").await;
    assert!(
        results["r1"].contains("allowed-tools (shown only"),
        "{}",
        results["r1"]
    );
    assert!(!results["x1"].contains("from-skill"), "{}", results["x1"]);
    assert!(
        !h.dir.path().join("workspace/granted.txt").exists(),
        "{}",
        results["x1"]
    );
    h.store.close().await;
}

#[tokio::test]
async fn the_skills_block_is_counted_in_the_fixed_part_of_the_estimate() {
    let with = home(|_| {}).await;
    let without = home(|home| std::fs::remove_dir_all(home.join("skills")).unwrap()).await;
    let mut used = Vec::new();
    for h in [&with, &without] {
        let c = h.service.create_conversation("t").await.unwrap();
        used.push(h.service.context_estimate(c.id).await.unwrap().used);
        h.store.close().await;
    }
    // Three skills' lines and the introduction: well over a hundred tokens.
    assert!(used[0] > used[1] + 100, "{used:?}");
}
