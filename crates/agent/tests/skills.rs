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
use smallebot_agent::client::ChatEndpoint;
use smallebot_agent::skills::{SkillCatalog, SkillFolders, SkillSource};
use smallebot_agent::tokenizer::Tokenizer;
use smallebot_application::{ConversationService, SendOptions};
use smallebot_infrastructure::SqliteStore;
use smallebot_testkit::{ScriptedResponse, TestModel, ToolCallSpec};
use tempfile::TempDir;

use common::{system_prompt, tool_messages};

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
async fn generate_skill_writes_a_skill_the_next_request_lists_and_refuses_clashes() {
    let h = home(|_| {}).await;
    let new_skill = json!({
        "name": "tidy-notes",
        "description": "Tidies a notes file: sorts headings and removes empty lines.\nUse when notes get messy.",
        "body": "# Tidy\nRun scripts/tidy.sh NOTES.",
        "files": [{"path": "scripts/tidy.sh", "content": "#!/bin/sh\nsed '/^$/d' \"$1\"\n"}]
    });
    h.server.push_all([
        call("g1", "GenerateSkill", new_skill.clone()),
        call(
            "g2",
            "GenerateSkill",
            json!({"name": "Bad_Name", "description": "d", "body": "b"}),
        ),
        call(
            "g3",
            "GenerateSkill",
            json!({"name": "csv-summary", "description": "other", "body": "b"}),
        ),
        call(
            "g4",
            "GenerateSkill",
            json!({"name": "escape", "description": "d", "body": "b",
            "files": [{"path": "../outside.sh", "content": "x"}]}),
        ),
        ScriptedResponse::text("done"),
        ScriptedResponse::text("again"),
    ]);
    let c = h.service.create_conversation("t").await.unwrap();
    let results = results_after(&h, c.id, "save that").await;
    let folder = h.skills().join("tidy-notes");
    assert!(
        results["g1"].starts_with(&format!(
            "Wrote skill 'tidy-notes' to {} (SKILL.md, scripts/tidy.sh).",
            folder.display()
        )),
        "{}",
        results["g1"]
    );
    assert!(
        results["g2"].contains("lowercase") && results["g2"].ends_with("nothing was written"),
        "{}",
        results["g2"]
    );
    assert!(
        results["g3"].contains("already exists") && results["g3"].contains("overwrite"),
        "{}",
        results["g3"]
    );
    assert!(results["g4"].contains("../outside.sh"), "{}", results["g4"]);
    assert!(!h.skills().join("Bad_Name").exists() && !h.skills().join("escape").exists());
    assert!(!h.dir.path().join("outside.sh").exists());
    let csv = std::fs::read_to_string(h.skills().join("csv-summary/SKILL.md")).unwrap();
    assert!(
        csv.contains("Summarizes a CSV file"),
        "the clash left it alone"
    );
    // Valid by the format's rules, script executable.
    let catalog = SkillCatalog::new(SkillFolders {
        system: h.dir.path().join("sys.skills"),
        shared: h.skills(),
        user: None,
    });
    let set = catalog.current();
    let skill = set.find("tidy-notes").expect("listed");
    assert!(skill.problems.is_empty(), "{:?}", skill.problems);
    assert_eq!(
        skill.description(),
        "Tidies a notes file: sorts headings and removes empty lines.\nUse when notes get messy."
    );
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(folder.join("scripts/tidy.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0o111);
    // The next turn's prompt lists it.
    h.service
        .send(c.id, "again", SendOptions::default())
        .await
        .unwrap();
    let section = skills_section(&system_prompt(&h.server.requests().pop().unwrap()));
    assert!(
        section.contains("- tidy-notes: Tidies a notes file"),
        "{section}"
    );
    // The same name with overwrite replaces it.
    h.server.push_all([
        call("g5", "GenerateSkill", json!({"name": "tidy-notes", "description": "New text.", "body": "New.", "overwrite": true})),
        ScriptedResponse::text("replaced"),
    ]);
    h.service
        .send(c.id, "replace", SendOptions::default())
        .await
        .unwrap();
    let text = std::fs::read_to_string(folder.join("SKILL.md")).unwrap();
    assert!(
        text.contains("New text.") && !folder.join("scripts").exists(),
        "{text}"
    );
    h.store.close().await;
}

#[tokio::test]
async fn a_skill_dropped_in_between_turns_is_listed_without_a_restart() {
    let h = home(|_| {}).await;
    h.server
        .push_all([ScriptedResponse::text("one"), ScriptedResponse::text("two")]);
    let c = h.service.create_conversation("t").await.unwrap();
    h.service
        .send(c.id, "one", SendOptions::default())
        .await
        .unwrap();
    let dir = h.skills().join("late-arrival");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        "---\nname: late-arrival\ndescription: Came later.\n---\nBody.\n",
    )
    .unwrap();
    h.service
        .send(c.id, "two", SendOptions::default())
        .await
        .unwrap();
    let first = skills_section(&system_prompt(&h.server.request(0).unwrap()));
    let second = skills_section(&system_prompt(&h.server.request(1).unwrap()));
    assert!(!first.contains("late-arrival"));
    assert!(second.contains("- late-arrival: Came later."), "{second}");
    h.store.close().await;
}

#[test]
fn broken_folders_are_reported_by_file_and_line_and_the_others_load() {
    let dir = tempfile::tempdir().unwrap();
    let shared = dir.path().join("skills");
    copy_dir(&fixtures(), &shared);
    let write = |name: &str, text: &str| {
        std::fs::create_dir_all(shared.join(name)).unwrap();
        std::fs::write(shared.join(name).join("SKILL.md"), text).unwrap();
    };
    write(
        "malformed",
        "---\nname: malformed\ndescription: [unclosed\n---\n",
    );
    write(
        "wrong-folder",
        "---\nname: other-name\ndescription: d\n---\n",
    );
    write(
        "too-long",
        &format!(
            "---\nname: too-long\ndescription: {}\n---\n",
            "x".repeat(1025)
        ),
    );
    std::fs::create_dir_all(shared.join("no-file")).unwrap();
    let user = dir.path().join("users/ada/skills");
    write(
        "unit-converter-copy",
        "---\nname: unit-converter-copy\ndescription: d\n---\n",
    );
    std::fs::create_dir_all(user.join("csv-summary")).unwrap();
    std::fs::write(
        user.join("csv-summary/SKILL.md"),
        "---\nname: csv-summary\ndescription: Ada's own.\n---\n",
    )
    .unwrap();
    let catalog = SkillCatalog::new(SkillFolders {
        system: dir.path().join("sys.skills"),
        shared: shared.clone(),
        user: Some(user.clone()),
    });
    let set = catalog.current();
    let warnings: Vec<&str> = set.warnings().collect();
    let file = |name: &str| shared.join(name).join("SKILL.md").display().to_string();
    for (name, expected) in [
        (
            "malformed",
            format!(
                "{}:3: the front matter is not a YAML map",
                file("malformed")
            ),
        ),
        (
            "wrong-folder",
            format!(
                "{}:2: 'name' 'other-name' differs from its folder 'wrong-folder'",
                file("wrong-folder")
            ),
        ),
        (
            "too-long",
            format!("{}:3: 'description' has 1025 characters", file("too-long")),
        ),
        ("no-file", format!("{}: cannot be read", file("no-file"))),
    ] {
        assert!(
            warnings.iter().filter(|w| w.starts_with(&expected)).count() == 1,
            "{name}: {expected}\n{warnings:#?}"
        );
    }
    assert_eq!(warnings.len(), 4, "{warnings:#?}");
    let offered: Vec<(&str, SkillSource)> =
        set.offered().map(|s| (s.name.as_str(), s.source)).collect();
    assert_eq!(
        offered,
        vec![
            ("csv-summary", SkillSource::User),
            ("release-notes", SkillSource::Shared),
            ("unit-converter", SkillSource::Shared),
            ("unit-converter-copy", SkillSource::Shared),
        ]
    );
    assert_eq!(set.find("csv-summary").unwrap().description(), "Ada's own.");
    let release = set.find("release-notes").unwrap().document.clone().unwrap();
    assert_eq!(
        release.allowed_tools,
        vec!["Bash(git log:*)", "Read", "Write"]
    );
    assert_eq!(
        release.metadata.get("reviewed").map(String::as_str),
        Some("true")
    );
    assert_eq!(release.license.as_deref(), Some("Apache-2.0"));
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
