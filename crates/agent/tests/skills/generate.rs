//! `GenerateSkill` writes a valid skill that the next request lists (and refuses a
//! clash); a skill dropped into the folder between turns is listed without a restart.

use super::*;

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

/// A skill's name taken by a link to a folder elsewhere (made by the person, or by a
/// command run unconfined): replacing it replaces the link, never what it points to,
/// and leaves no scratch folder behind.
#[tokio::test]
async fn replacing_a_linked_skill_never_touches_what_the_link_points_to() {
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(elsewhere.path().join("kept/scripts")).unwrap();
    std::fs::write(elsewhere.path().join("kept/scripts/keep.sh"), "keep").unwrap();
    let target = elsewhere.path().join("kept");
    let h = home(|home| {
        std::os::unix::fs::symlink(&target, home.join("skills/linked")).unwrap();
    })
    .await;
    h.server.push_all([
        call(
            "g1",
            "GenerateSkill",
            json!({"name": "linked", "description": "Mine now.", "body": "B.", "overwrite": true,
                   "files": [{"path": "scripts/new.sh", "content": "echo new"}]}),
        ),
        ScriptedResponse::text("done"),
    ]);
    let c = h.service.create_conversation("t").await.unwrap();
    let results = results_after(&h, c.id, "replace it").await;
    assert!(
        results["g1"].starts_with("Wrote skill 'linked'"),
        "{}",
        results["g1"]
    );
    let folder = h.skills().join("linked");
    assert!(!folder.symlink_metadata().unwrap().file_type().is_symlink());
    assert!(folder.join("scripts/new.sh").is_file());
    assert_eq!(
        std::fs::read_to_string(elsewhere.path().join("kept/scripts/keep.sh")).unwrap(),
        "keep"
    );
    assert!(!elsewhere.path().join("kept/scripts/new.sh").exists());
    let scratch: Vec<String> = std::fs::read_dir(h.skills())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(scratch.is_empty(), "{scratch:?}");
    h.store.close().await;
}
