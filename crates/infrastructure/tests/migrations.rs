//! Migrations on real files: create, re-run, upgrade with backup, refuse bad files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use smallebot_core::entities::{SearchQuery, SearchScope};
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::repository::{ConversationRepository, SearchRepository};
use smallebot_infrastructure::{
    SqliteStore, StoreError, migrate_database, migrate_database_to, migration_status,
};

fn bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

#[tokio::test]
async fn creates_the_schema_then_reports_up_to_date() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("nested/dir/new.db");
    let status = migration_status(&db).await.unwrap();
    assert!(status.applied.is_empty());
    assert!(status.pending.len() >= 2);
    assert!(!db.exists(), "status changes nothing");

    let first = migrate_database(&db).await.unwrap();
    assert_eq!(first.applied.len(), status.pending.len());
    assert_eq!(first.backup, None, "a new database needs no backup");
    let second = migrate_database(&db).await.unwrap();
    assert!(second.applied.is_empty());
    assert_eq!(second.backup, None);
    let status = migration_status(&db).await.unwrap();
    assert!(status.pending.is_empty());
    assert_eq!(status.applied.len(), first.applied.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opened_by_several_at_once_the_schema_is_migrated_once() {
    // As when `smallebot serve` and `smallebot chat` start together on a new home.
    for round in 0..5 {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("smallebot.db");
        let opens: Vec<_> = (0..6)
            .map(|_| {
                let db = db.clone();
                tokio::spawn(async move { SqliteStore::open_and_report(&db).await })
            })
            .collect();
        let mut applied = Vec::new();
        for open in opens {
            let (store, report) = open
                .await
                .unwrap()
                .unwrap_or_else(|e| panic!("round {round}: {e}"));
            applied.push(report.applied.len());
            store.close().await;
        }
        let all = migration_status(&db).await.unwrap().applied.len();
        applied.sort_unstable();
        assert_eq!(applied, [0, 0, 0, 0, 0, all], "round {round}: one migrated");
    }
}

#[tokio::test]
async fn upgrades_an_old_database_keeping_data_and_a_backup() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("old.db");
    // A database at schema version 1 only, with a conversation and a message in it.
    let report = migrate_database_to(&db, 1).await.unwrap();
    assert_eq!(report.applied.len(), 1);
    let conversation = ConversationId::new();
    let turn = TurnId::new();
    {
        let pool = sqlx::SqlitePool::connect(&format!("sqlite://{}", db.display()))
            .await
            .unwrap();
        sqlx::query("INSERT INTO conversations (id, user_name, title, created_at, updated_at, last_seq) VALUES (?1, 'alice', 'Old one', '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z', 2)")
            .bind(conversation.to_string()).execute(&pool).await.unwrap();
        sqlx::query("INSERT INTO turns (id, conversation_id, seq, status, created_at) VALUES (?1, ?2, 1, 'completed', '2025-01-01T00:00:00.000Z')")
            .bind(turn.to_string()).bind(conversation.to_string()).execute(&pool).await.unwrap();
        sqlx::query("INSERT INTO messages (id, conversation_id, turn_id, seq, role, content, token_count, created_at) VALUES ('m1', ?1, ?2, 2, 'user', 'remember the armadillo', 4, '2025-01-01T00:00:00.000Z')")
            .bind(conversation.to_string()).bind(turn.to_string()).execute(&pool).await.unwrap();
        pool.close().await;
    }
    let status = migration_status(&db).await.unwrap();
    assert_eq!(status.applied.len(), 1);
    assert!(!status.pending.is_empty());

    let (store, report) = SqliteStore::open_and_report(&db).await.unwrap();
    assert_eq!(report.applied.len(), status.pending.len());
    let backup = report.backup.expect("a backup of the old database");
    assert_eq!(backup, dir.path().join("old.db.bak-1"));
    assert!(backup.exists());
    // The backup is the old schema with the old data.
    let old = migration_status(&backup).await.unwrap();
    assert_eq!(old.applied.len(), 1);

    // Data kept, and indexed by the new full-text migration.
    let kept = store.get_conversation(conversation).await.unwrap().unwrap();
    assert_eq!(kept.title, "Old one");
    let hits = store
        .search(&SearchQuery {
            text: "armadillo".into(),
            scope: SearchScope::All,
            since: None,
            limit: 5,
        })
        .await
        .unwrap();
    assert_eq!(hits.len(), 1);
    // New rows continue the sequence.
    let t = smallebot_core::test_support::RowFixtures::start_turn(&store, conversation, false)
        .await
        .unwrap();
    assert_eq!(t.seq, 3);
    store.close().await;
}

#[tokio::test]
async fn refuses_a_file_that_is_not_a_database_and_leaves_it_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("notes.txt");
    std::fs::write(&db, "these are my notes, not a database\n".repeat(100)).unwrap();
    let before = bytes(&db);
    for result in [
        migrate_database(&db).await.map(|_| ()),
        migration_status(&db).await.map(|_| ()),
        SqliteStore::open(&db).await.map(|_| ()),
    ] {
        let err = result.unwrap_err();
        assert!(matches!(err, StoreError::NotADatabase { .. }), "{err}");
        assert!(err.to_string().contains(&db.display().to_string()), "{err}");
    }
    assert_eq!(bytes(&db), before);
    let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(
        leftovers.len(),
        1,
        "no -wal, -shm or backup files were created"
    );
}

#[tokio::test]
async fn refuses_a_newer_schema_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("future.db");
    migrate_database(&db).await.unwrap();
    {
        let pool = sqlx::SqlitePool::connect(&format!("sqlite://{}", db.display()))
            .await
            .unwrap();
        sqlx::query("INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) VALUES (9999, 'from the future', 1, x'00', 0)")
            .execute(&pool).await.unwrap();
        sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
            .execute(&pool)
            .await
            .unwrap();
        pool.close().await;
    }
    let before = bytes(&db);
    let err = SqliteStore::open(&db).await.unwrap_err();
    match &err {
        StoreError::SchemaTooNew { found, .. } => assert_eq!(*found, 9999),
        other => panic!("unexpected {other}"),
    }
    assert!(err.to_string().contains("newer"), "{err}");
    assert!(migration_status(&db).await.is_err());
    assert_eq!(bytes(&db), before);
    assert!(!dir.path().join("future.db.bak-9999").exists());
}

#[tokio::test]
async fn tool_calls_keep_their_rows_counts_and_index_when_interrupted_is_added() {
    use smallebot_core::entities::{HistoryRow, ToolCallStatus};
    use smallebot_core::repository::{HistoryRepository, TurnRepository};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("v9.db");
    // Schema 9 (before `interrupted`): a running turn with a finished and a running call.
    migrate_database_to(&db, 9).await.unwrap();
    let conversation = ConversationId::new();
    let turn = TurnId::new();
    {
        let pool = sqlx::SqlitePool::connect(&format!("sqlite://{}", db.display()))
            .await
            .unwrap();
        sqlx::query("INSERT INTO conversations (id, user_name, title, created_at, updated_at, last_seq) VALUES (?1, 'alice', 'Tools', '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z', 3)")
            .bind(conversation.to_string()).execute(&pool).await.unwrap();
        sqlx::query("INSERT INTO turns (id, conversation_id, seq, status, created_at) VALUES (?1, ?2, 1, 'running', '2025-01-01T00:00:00.000Z')")
            .bind(turn.to_string()).bind(conversation.to_string()).execute(&pool).await.unwrap();
        let first = smallebot_core::ids::ToolCallId::new().to_string();
        let second = smallebot_core::ids::ToolCallId::new().to_string();
        for (id, seq, call) in [(&first, 2, "c1"), (&second, 3, "c2")] {
            sqlx::query("INSERT INTO tool_calls (id, conversation_id, turn_id, seq, call_id, tool_name, arguments, status, token_count, started_at) VALUES (?1, ?2, ?3, ?4, ?5, 'ExecuteCommand', '{}', 'running', 10, '2025-01-01T00:00:00.000Z')")
                .bind(id).bind(conversation.to_string()).bind(turn.to_string()).bind(seq)
                .bind(call).execute(&pool).await.unwrap();
        }
        // A result is indexed as it arrives.
        sqlx::query("UPDATE tool_calls SET result = 'the pangolin answered', status = 'ok', completed_at = '2025-01-01T00:00:01.000Z' WHERE id = ?1")
            .bind(&first).execute(&pool).await.unwrap();
        pool.close().await;
    }
    let store = SqliteStore::open(&db).await.unwrap();
    let kept = store.get_conversation(conversation).await.unwrap().unwrap();
    assert_eq!(kept.context_tokens, 20);
    let hits = store
        .search(&SearchQuery {
            text: "pangolin".into(),
            scope: SearchScope::All,
            since: None,
            limit: 5,
        })
        .await
        .unwrap();
    assert_eq!(hits.len(), 1);
    // The recovery of the turn ends its running call `interrupted`.
    assert!(store.interrupt_turn(turn).await.unwrap());
    let calls: Vec<_> = store
        .rows_after(conversation, 0)
        .await
        .unwrap()
        .into_iter()
        .filter_map(|row| match row {
            HistoryRow::ToolCall(call) => Some((call.call_id, call.status)),
            _ => None,
        })
        .collect();
    assert_eq!(
        calls,
        [
            ("c1".to_owned(), ToolCallStatus::Ok),
            ("c2".to_owned(), ToolCallStatus::Interrupted)
        ]
    );
    store.close().await;
}
