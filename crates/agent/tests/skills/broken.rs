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
