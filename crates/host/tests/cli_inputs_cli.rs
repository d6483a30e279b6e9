//! Issue 39, through the real binary: `conversations export --output` never replaces a
//! file unless `--force` (as the chat's `/export` never does) and names a missing
//! directory. (An id with control characters: `tests/attacks/cli_files.rs`.)
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;

use std::path::Path;
use std::process::Output;

use cli::text;
use smallebot_core::repository::ConversationRepository;
use smallebot_infrastructure::SqliteStore;

async fn smallebot(home: &Path, args: &[&str]) -> Output {
    cli::smallebot(home, None)
        .args(args)
        .output()
        .await
        .unwrap()
}

/// A home with one conversation; its id.
async fn seeded(home: &Path) -> String {
    let store = SqliteStore::open(&home.join("smallebot.db")).await.unwrap();
    let c = store
        .create_conversation("tester", "Disk check")
        .await
        .unwrap();
    store.close().await;
    c.id.to_string()
}

#[tokio::test]
async fn export_output_refuses_to_replace_a_file_unless_forced() {
    let home = tempfile::tempdir().unwrap();
    let id = seeded(home.path()).await;
    let out = home.path().join("out.md");
    std::fs::write(&out, "my notes").unwrap();
    let file = out.to_str().unwrap();

    let refused = smallebot(
        home.path(),
        &["conversations", "export", &id, "--output", file],
    )
    .await;
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(
        text(&refused.stderr),
        format!(
            "error: {file} exists already and was left as it is: give another file name, or \
             pass --force to replace it\n"
        )
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "my notes");

    let forced = smallebot(
        home.path(),
        &["conversations", "export", &id, "--output", file, "--force"],
    )
    .await;
    assert!(forced.status.success(), "{}", text(&forced.stderr));
    assert!(
        std::fs::read_to_string(&out)
            .unwrap()
            .starts_with("# Disk check\n")
    );
    let names: Vec<String> = std::fs::read_dir(home.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains("out.md"))
        .collect();
    assert_eq!(names, ["out.md"], "no temporary file left beside it");

    let missing = home.path().join("no/such/dir/out.md");
    let refused = smallebot(
        home.path(),
        &[
            "conversations",
            "export",
            &id,
            "--output",
            missing.to_str().unwrap(),
        ],
    )
    .await;
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(
        text(&refused.stderr),
        format!(
            "error: cannot write {}: the directory {} does not exist. Create it first, or \
             give another path.\n",
            missing.display(),
            home.path().join("no/such/dir").display()
        )
    );
}
