//! Contract: task stores — the file store and the PostgreSQL table keep the same
//! promises: an empty list when none is stored, concurrent updates lose nothing (also
//! from two stores on one database: two server processes), a refused or empty edit
//! writes nothing, a corrupt list is reported and kept, never overwritten.

use std::sync::Arc;

use smallebot_core::ids::ConversationId;
use smallebot_core::tasks::{TaskError, TaskStore, TaskStoreError};
use smallebot_infrastructure::FileTaskStore;
use smallebot_postgres::{PgStore, PgTaskStore};
use smallebot_testkit::postgres::TestCluster;

/// The task stores under test: the file store, and two PostgreSQL stores (as two
/// processes would have) on one database.
struct Stores {
    all: Vec<(&'static str, Arc<dyn TaskStore>)>,
    pg: Option<(PgStore, PgStore)>,
    _dir: tempfile::TempDir,
    _cluster: Option<TestCluster>,
}

async fn stores(test: &str) -> Stores {
    let dir = tempfile::tempdir().unwrap();
    let mut all: Vec<(&'static str, Arc<dyn TaskStore>)> = vec![(
        "files",
        Arc::new(FileTaskStore::new(dir.path().join("tasks"))),
    )];
    let cluster = TestCluster::start(test);
    let mut pg = None;
    if let Some(cluster) = &cluster {
        let url = cluster.create_database().unwrap();
        let one = PgStore::connect(&url).await.unwrap();
        let two = PgStore::connect(&url).await.unwrap();
        all.push(("postgres", Arc::new(PgTaskStore::new(one.clone()))));
        pg = Some((one, two));
    }
    Stores {
        all,
        pg,
        _dir: dir,
        _cluster: cluster,
    }
}

#[tokio::test]
async fn an_unknown_conversation_has_an_empty_list_and_a_change_is_read_back() {
    let s = stores("an_unknown_conversation_has_an_empty_list").await;
    for (name, store) in &s.all {
        let id = ConversationId::new();
        assert!(store.load(id).await.unwrap().tasks.is_empty(), "{name}");
        let update = store
            .update(id, Box::new(|l| Ok(l.add("Load data", "csv", &[])?.id)))
            .await
            .unwrap();
        assert!(update.written, "{name}");
        assert_eq!(update.output, "1", "{name}");
        assert_eq!(store.load(id).await.unwrap(), update.list, "{name}");
        store.delete(id).await.unwrap();
        assert!(store.load(id).await.unwrap().tasks.is_empty(), "{name}");
        store.delete(id).await.unwrap(); // nothing to delete: no error
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn forty_concurrent_updates_lose_nothing_even_from_two_processes() {
    let s = stores("forty_concurrent_updates_lose_nothing").await;
    let mut cases: Vec<(&str, Vec<Arc<dyn TaskStore>>)> = s
        .all
        .iter()
        .filter(|(name, _)| *name == "files")
        .map(|(name, store)| (*name, vec![Arc::clone(store)]))
        .collect();
    if let Some((one, two)) = &s.pg {
        cases.push((
            "postgres, two stores",
            vec![
                Arc::new(PgTaskStore::new(one.clone())),
                Arc::new(PgTaskStore::new(two.clone())),
            ],
        ));
    }
    for (name, writers) in cases {
        let id = ConversationId::new();
        let handles: Vec<_> = (0..40)
            .map(|i| {
                let store = Arc::clone(&writers[i % writers.len()]);
                tokio::spawn(async move {
                    store
                        .update(
                            id,
                            Box::new(move |l| Ok(l.add(&format!("task {i}"), "", &[])?.id)),
                        )
                        .await
                        .unwrap()
                        .output
                })
            })
            .collect();
        let mut ids = Vec::new();
        for handle in handles {
            ids.push(handle.await.unwrap().parse::<u32>().unwrap());
        }
        ids.sort_unstable();
        assert_eq!(ids, (1..=40).collect::<Vec<_>>(), "{name}");
        assert_eq!(writers[0].load(id).await.unwrap().tasks.len(), 40, "{name}");
    }
}

#[tokio::test]
async fn a_refused_or_empty_edit_writes_nothing() {
    let s = stores("a_refused_or_empty_edit_writes_nothing").await;
    for (name, store) in &s.all {
        let id = ConversationId::new();
        store
            .update(id, Box::new(|l| Ok(l.add("a", "", &[])?.id)))
            .await
            .unwrap();
        let refused = store
            .update(
                id,
                Box::new(|l| {
                    l.tasks.clear(); // a misbehaving edit: its change must not be written
                    Err(TaskError::NotFound)
                }),
            )
            .await
            .unwrap_err();
        assert!(
            matches!(refused, TaskStoreError::Rejected(TaskError::NotFound)),
            "{name}: {refused}"
        );
        let unchanged = store
            .update(id, Box::new(|_| Ok("looked".into())))
            .await
            .unwrap();
        assert!(!unchanged.written, "{name}");
        assert_eq!(store.load(id).await.unwrap().tasks.len(), 1, "{name}");
    }
    if let Some((one, _)) = &s.pg {
        let version: i64 = sqlx::query_scalar("SELECT MAX(version) FROM task_lists")
            .fetch_one(one.pool())
            .await
            .unwrap();
        assert_eq!(version, 1, "neither the refused nor the empty edit wrote");
    }
}

#[tokio::test]
async fn a_corrupt_stored_list_is_reported_then_kept_aside_never_overwritten() {
    let Some(cluster) = TestCluster::start("a_corrupt_stored_list_is_reported") else {
        return;
    };
    let store = PgStore::connect(&cluster.create_database().unwrap())
        .await
        .unwrap();
    let tasks = PgTaskStore::new(store.clone());
    let id = ConversationId::new();
    let bad = serde_json::json!({"tasks": [{"id": "1", "title": 42}]});
    sqlx::query(
        "INSERT INTO task_lists (conversation_id, body, version, updated_at) \
         VALUES ($1, $2, 7, now())",
    )
    .bind(id.to_string())
    .bind(&bad)
    .execute(store.pool())
    .await
    .unwrap();
    let err = tasks.load(id).await.unwrap_err();
    assert!(
        matches!(
            err,
            TaskStoreError::CorruptRecord {
                kept_aside: false,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("left untouched"), "{err}");
    let update = tasks
        .update(id, Box::new(|l| Ok(l.add("fresh", "", &[])?.id)))
        .await
        .unwrap();
    let said = update.recovered.unwrap();
    assert!(said.contains("kept in task_lists_corrupt"), "{said}");
    assert_eq!(tasks.load(id).await.unwrap().tasks.len(), 1);
    let kept: serde_json::Value =
        sqlx::query_scalar("SELECT body FROM task_lists_corrupt WHERE conversation_id = $1")
            .bind(id.to_string())
            .fetch_one(store.pool())
            .await
            .unwrap();
    assert_eq!(kept, bad, "the bad list is kept as it was");
}
