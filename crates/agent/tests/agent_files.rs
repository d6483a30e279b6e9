//! Agent definition files read from a home: shared and per-user folders, shadowing,
//! the built-in `general`, one warning per broken file while the others load, and the
//! web's listing without server paths.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::Path;

use smallebot_agent::agents::{AgentSet, AgentSource, read_agent_file};
use smallebot_agent::assembly::Home;
use smallebot_application::ports::AgentDirectory;
use smallebot_core::agents::{AgentModel, AgentSandbox, AgentTools};
use smallebot_protocol::api;

fn write(dir: &Path, name: &str, text: &str) {
    fs::create_dir_all(dir).expect("dir");
    fs::write(dir.join(name), text).expect("write");
}

fn agent(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\nYou are {name}.\n")
}

#[test]
fn without_files_only_the_builtin_general_agent_exists() {
    let home = tempfile::tempdir().expect("tempdir");
    let set = AgentSet::read(&Home::new(home.path()).agent_folders(None));
    let names: Vec<_> = set
        .loaded()
        .map(|(a, _)| (a.name.as_str(), a.source))
        .collect();
    assert_eq!(names, [("general", AgentSource::Builtin)]);
    let general = set.find("general").expect("general");
    assert_eq!(general.tools, AgentTools::Inherit);
    assert_eq!(general.model, AgentModel::Inherit);
    assert_eq!(set.warnings().count(), 0);
}

#[test]
fn a_broken_file_gives_one_warning_with_file_line_and_rule_and_the_others_load() {
    let home = tempfile::tempdir().expect("tempdir");
    let h = Home::new(home.path());
    let dir = h.agents_dir();
    write(&dir, "reviewer.md", &agent("reviewer", "Reviews changes."));
    write(
        &dir,
        "broken.md",
        "---\nname: broken\ndescription: d\nsandbox: danger\nmaxToolSteps: 0\n---\np\n",
    );
    write(&dir, "notes.txt", "not an agent");
    write(&dir, ".hidden.md", "---\n");
    let set = AgentSet::read(&h.agent_folders(None));
    let names: Vec<_> = set.all.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["broken", "general", "reviewer"]);
    assert!(set.find("reviewer").is_some());
    assert!(set.find("broken").is_none());
    let warnings: Vec<_> = set.warnings().collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let expected = format!("{}:4: 'sandbox' 'danger'", dir.join("broken.md").display());
    assert!(warnings[0].starts_with(&expected), "{}", warnings[0]);
    let broken = set.all.iter().find(|a| a.name == "broken").expect("kept");
    assert_eq!(broken.problems.len(), 2, "{:?}", broken.problems);
}

#[test]
fn a_users_agent_shadows_a_shared_one_and_a_file_may_replace_general() {
    let home = tempfile::tempdir().expect("tempdir");
    let h = Home::new(home.path());
    write(
        &h.agents_dir(),
        "finder.md",
        &agent("finder", "Shared finder."),
    );
    write(
        &h.agents_dir(),
        "general.md",
        &agent("general", "Our general."),
    );
    let mine = "---\nname: finder\ndescription: Carol's finder.\ntools: ReadFile, ListDirectory\nmodel: small\nsandbox: read-only\nmaxToolSteps: 5\n---\nFind.\n";
    write(&h.user_agents_dir("carol"), "finder.md", mine);
    let set = AgentSet::read(&h.agent_folders(Some("carol")));
    let finder: Vec<_> = set.all.iter().filter(|a| a.name == "finder").collect();
    assert_eq!(finder.len(), 1);
    assert_eq!(finder[0].source, AgentSource::User);
    let definition = set.find("finder").expect("loads");
    assert_eq!(definition.description, "Carol's finder.");
    assert_eq!(definition.sandbox, Some(AgentSandbox::ReadOnly));
    assert_eq!(definition.model, AgentModel::Id("small".into()));
    assert_eq!(definition.max_tool_steps, Some(5));
    assert_eq!(
        set.find("general").map(|d| d.description.as_str()),
        Some("Our general.")
    );
    let shared_only = AgentSet::read(&h.agent_folders(None));
    assert_eq!(
        shared_only.find("finder").map(|d| d.description.as_str()),
        Some("Shared finder.")
    );
    // A broken user file does not hide the shared agent of the same name.
    write(&h.user_agents_dir("dave"), "finder.md", "no front matter");
    let dave = AgentSet::read(&h.agent_folders(Some("dave")));
    assert_eq!(
        dave.find("finder").map(|d| d.description.as_str()),
        Some("Shared finder.")
    );
    assert_eq!(dave.warnings().count(), 1);
}

#[cfg(unix)]
#[test]
fn a_linked_agent_file_is_reported_not_followed() {
    let home = tempfile::tempdir().expect("tempdir");
    let h = Home::new(home.path());
    let outside = home.path().join("outside.md");
    fs::write(&outside, agent("linked", "Linked.")).expect("write");
    fs::create_dir_all(h.agents_dir()).expect("dir");
    std::os::unix::fs::symlink(&outside, h.agents_dir().join("linked.md")).expect("link");
    let set = AgentSet::read(&h.agent_folders(None));
    assert!(set.find("linked").is_none());
    let warnings: Vec<_> = set.warnings().collect();
    assert_eq!(warnings.len(), 1);
    assert!(
        warnings[0].contains("linked.md: cannot be read"),
        "{}",
        warnings[0]
    );
}

#[test]
fn a_file_is_checked_on_its_own() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "ok.md", &agent("ok", "Fine."));
    write(dir.path(), "bad.md", &agent("other", "Misnamed."));
    let ok = read_agent_file(&dir.path().join("ok.md"), AgentSource::Shared);
    assert!(ok.definition.is_some() && ok.warning.is_none());
    let bad = read_agent_file(&dir.path().join("bad.md"), AgentSource::Shared);
    assert!(bad.definition.is_none());
    assert!(
        bad.warning.as_deref().is_some_and(|w| w.ends_with(
            "bad.md:2: 'name' 'other' differs from its file 'bad.md'; rename one so they match"
        )),
        "{:?}",
        bad.warning
    );
    let missing = read_agent_file(&dir.path().join("none.md"), AgentSource::Shared);
    assert!(
        missing
            .warning
            .is_some_and(|w| w.contains("cannot be read"))
    );
}

#[test]
fn the_web_listing_names_files_relative_to_their_folder() {
    let home = tempfile::tempdir().expect("tempdir");
    let h = Home::new(home.path());
    write(&h.agents_dir(), "broken.md", "---\nname: broken\n---\np\n");
    write(
        &h.user_agents_dir("carol"),
        "mine.md",
        &agent("mine", "Mine."),
    );
    let per_user = h.agent_directory(true);
    let list = per_user.list("carol");
    let names: Vec<_> = list
        .agents
        .iter()
        .map(|a| (a.name.as_str(), a.source))
        .collect();
    assert_eq!(
        names,
        [
            ("broken", api::AgentSource::Shared),
            ("general", api::AgentSource::Builtin),
            ("mine", api::AgentSource::User)
        ]
    );
    let broken = &list.agents[0];
    assert_eq!(broken.location, "broken.md");
    assert_eq!(
        broken.problems,
        ["broken.md:3: 'description' is missing; the front matter needs 'name' and 'description'"]
    );
    let text = serde_json::to_string(&list).expect("json");
    assert!(!text.contains(&home.path().display().to_string()), "{text}");
    // Without sign-in, nobody's own folder is read.
    let loopback = h.agent_directory(false);
    assert!(
        loopback
            .list("carol")
            .agents
            .iter()
            .all(|a| a.name != "mine")
    );
}
