//! `smallebot permissions list | revoke` through the real binary, on SQLite and on
//! PostgreSQL (a throwaway cluster; skipped with one loud line without PostgreSQL
//! binaries): every grant listed with its id, user, scope, rules and call; `--json`;
//! a revoked grant hidden unless `--all`; an unknown id a clear error.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;

use std::path::Path;

use chrono::Utc;
use smallebot_core::entities::{GrantScope, NewPermissionGrant};
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::PermissionGrantRepository;
use smallebot_infrastructure::SqliteStore;
use smallebot_postgres::PgStore;
use smallebot_testkit::postgres::TestCluster;

fn grants() -> [NewPermissionGrant; 2] {
    let grant = |user: &str, scope, rule: &str, call: &str| NewPermissionGrant {
        user_name: user.to_owned(),
        scope,
        rules: vec![rule.to_owned()],
        call: call.to_owned(),
        granted_at: Utc::now(),
    };
    [
        grant(
            "ann",
            GrantScope::Always,
            "ExecuteCommand(git status)",
            "git status",
        ),
        grant(
            "bob",
            GrantScope::Conversation(ConversationId::new()),
            "ReadFile(notes.md)",
            r#"ReadFile {"path":"notes.md"}"#,
        ),
    ]
}

async fn seed(store: &dyn PermissionGrantRepository) {
    for grant in grants() {
        store.add_permission_grant(&grant).await.unwrap();
    }
}

/// Lists, revokes and lists again through the binary (`extra` before the command:
/// `--database URL` on PostgreSQL).
async fn list_and_revoke(home: &Path, extra: &[&str]) {
    let run = |args: &'static [&'static str]| {
        let all: Vec<&str> = extra.iter().chain(args).copied().collect();
        async move { cli::outcome(home, &all).await }
    };
    let (ok, listed, err) = run(&["permissions", "list"]).await;
    assert!(ok, "{err}");
    let lines: Vec<&str> = listed.lines().collect();
    assert_eq!(lines.len(), 3, "{listed}");
    assert!(lines[0].starts_with("id  when"), "{listed}");
    for (line, want) in lines[1..].iter().zip([
        [
            "1 ",
            "ann",
            "always",
            "ExecuteCommand(git status)",
            "git status",
        ],
        [
            "2 ",
            "bob",
            "conversation ",
            "ReadFile(notes.md)",
            "notes.md",
        ],
    ]) {
        for part in want {
            assert!(line.contains(part), "{part:?} in {line:?}");
        }
    }
    let (ok, json, _) = run(&["permissions", "list", "--json", "--user", "bob"]).await;
    assert!(ok);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json.as_array().unwrap().len(), 1, "{json}");
    assert_eq!(json[0]["rules"][0], "ReadFile(notes.md)");
    assert_eq!(json[0]["scope"]["kind"], "conversation");

    let (ok, said, err) = run(&["permissions", "revoke", "1"]).await;
    assert!(ok, "{err}");
    assert!(
        said.starts_with("revoked grant 1 (ExecuteCommand(git status), always)"),
        "{said}"
    );
    // Revoking it again changes nothing, and says so.
    let (ok, said, err) = run(&["permissions", "revoke", "1"]).await;
    assert!(ok, "{err}");
    assert!(
        said.starts_with("grant 1 (ExecuteCommand(git status), always) was already revoked at "),
        "{said}"
    );
    let (ok, listed, _) = run(&["permissions", "list"]).await;
    assert!(ok);
    assert!(!listed.contains("git status"), "{listed}");
    let (_, listed, _) = run(&["permissions", "list", "--all"]).await;
    assert!(listed.contains("always (revoked)"), "{listed}");

    let (ok, _, err) = run(&["permissions", "revoke", "99"]).await;
    assert!(!ok);
    assert!(
        err.contains(
            "no permission grant has the id 99 (`smallebot permissions list --all` shows the ids)"
        ),
        "{err}"
    );
}

#[tokio::test]
async fn grants_are_listed_and_revoked_on_sqlite() {
    let home = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&home.path().join("smallebot.db"))
        .await
        .unwrap();
    seed(&store).await;
    store.close().await;
    list_and_revoke(home.path(), &[]).await;
}

#[tokio::test]
async fn grants_are_listed_and_revoked_on_postgresql() {
    let Some(cluster) = TestCluster::start("grants_cli") else {
        return;
    };
    let url = cluster.create_database().unwrap();
    let store = PgStore::connect(&url).await.unwrap();
    seed(&store).await;
    store.close().await;
    let home = tempfile::tempdir().unwrap();
    list_and_revoke(home.path(), &["--database", &url]).await;
}
