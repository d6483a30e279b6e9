//! Broken skill folders are reported by file and line while the others load.

use super::*;

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

/// A SKILL.md that is a named pipe, a folder or larger than a skill may be is reported
/// at once: reading the skills (which every request does) never blocks on it.
#[test]
fn a_special_or_huge_skill_md_is_reported_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let shared = dir.path().join("skills");
    for name in ["piped", "foldered/SKILL.md", "huge"] {
        std::fs::create_dir_all(shared.join(name)).unwrap();
    }
    let made = std::process::Command::new("mkfifo")
        .arg(shared.join("piped/SKILL.md"))
        .status()
        .unwrap();
    assert!(made.success());
    std::fs::File::create(shared.join("huge/SKILL.md"))
        .unwrap()
        .set_len(64 << 20)
        .unwrap();
    let catalog = SkillCatalog::new(SkillFolders {
        system: dir.path().join("sys.skills"),
        shared,
        user: None,
    });
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let set = catalog.current();
        let warnings: Vec<String> = set.warnings().map(str::to_owned).collect();
        let _ = sender.send(warnings);
    });
    let warnings = receiver
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("reading the skills blocked on a special SKILL.md");
    for expected in [
        "named pipe",
        "is a folder, not a regular file",
        "over the limit",
    ] {
        assert!(
            warnings.iter().any(|w| w.contains(expected)),
            "{expected}: {warnings:#?}"
        );
    }
}
