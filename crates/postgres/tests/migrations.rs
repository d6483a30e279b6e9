//! PostgreSQL migrations: applied on connect (once, even by processes starting
//! together), reported by the status, and a newer schema refused untouched.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use smallebot_postgres::{PgStore, PgStoreError, pg_migration_status};
use smallebot_testkit::postgres::TestCluster;

#[tokio::test]
async fn connecting_applies_the_schema_once_and_the_status_says_up_to_date() {
    let Some(cluster) = TestCluster::start("connecting_applies_the_schema_once") else {
        return;
    };
    let url = cluster.create_database().unwrap();
    let before = pg_migration_status(&url).await.unwrap();
    assert!(before.applied.is_empty(), "{before}");
    assert!(!before.pending.is_empty(), "{before}");
    // Several processes (here: stores) starting at once apply the schema once.
    let (a, b, c) = tokio::join!(
        PgStore::connect_and_report(&url),
        PgStore::connect_and_report(&url),
        PgStore::connect_and_report(&url)
    );
    let applied: usize = [a.unwrap(), b.unwrap(), c.unwrap()]
        .iter()
        .map(|(_, applied)| applied.len())
        .sum();
    assert_eq!(
        applied,
        before.pending.len(),
        "reported once, by the one that applied"
    );
    let after = pg_migration_status(&url).await.unwrap();
    assert!(after.pending.is_empty(), "{after}");
    assert_eq!(after.applied, before.pending);
    assert!(after.to_string().ends_with("up to date"), "{after}");
}

#[tokio::test]
async fn of_two_processes_waiting_to_migrate_only_the_one_that_applied_reports() {
    let Some(cluster) = TestCluster::start("only_the_one_that_applied_reports") else {
        return;
    };
    let url = cluster.create_database().unwrap();
    let pending = pg_migration_status(&url).await.unwrap().pending.len();
    // Both stores are held before they can read what is pending (the table of applied
    // migrations is locked), so both start with every migration pending.
    let holder = sqlx::PgPool::connect(&url).await.unwrap();
    sqlx::query(
        "CREATE TABLE _sqlx_migrations (version BIGINT PRIMARY KEY, description TEXT NOT NULL, \
         installed_on TIMESTAMPTZ NOT NULL DEFAULT now(), success BOOLEAN NOT NULL, \
         checksum BYTEA NOT NULL, execution_time BIGINT NOT NULL)",
    )
    .execute(&holder)
    .await
    .unwrap();
    let mut lock = holder.begin().await.unwrap();
    sqlx::query("LOCK TABLE _sqlx_migrations IN ACCESS EXCLUSIVE MODE")
        .execute(&mut *lock)
        .await
        .unwrap();
    let connect = || {
        let url = url.clone();
        tokio::spawn(async move { PgStore::connect_and_report(&url).await })
    };
    let (first, second) = (connect(), connect());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let waiting: i64 = sqlx::query_scalar("SELECT count(*) FROM pg_locks WHERE NOT granted")
            .fetch_one(&holder)
            .await
            .unwrap();
        if waiting == 2 {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{waiting} waiting");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    lock.rollback().await.unwrap();
    let mut reported = Vec::new();
    for store in [first, second] {
        let (store, applied) = store.await.unwrap().unwrap();
        reported.push(applied.len());
        store.close().await;
    }
    reported.sort_unstable();
    assert_eq!(
        reported,
        [0, pending],
        "the one that found them applied says nothing"
    );
    holder.close().await;
}

#[tokio::test]
async fn a_newer_schema_is_refused_and_left_alone() {
    let Some(cluster) = TestCluster::start("a_newer_schema_is_refused") else {
        return;
    };
    let url = cluster.create_database().unwrap();
    let store = PgStore::connect(&url).await.unwrap();
    sqlx::query(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
         VALUES (9999, 'from the future', TRUE, '\\x00', 0)",
    )
    .execute(store.pool())
    .await
    .unwrap();
    store.close().await;
    let err = PgStore::connect(&url).await.unwrap_err();
    assert!(
        matches!(err, PgStoreError::SchemaTooNew { found: 9999, .. }),
        "{err}"
    );
    let text = err.to_string();
    assert!(text.contains("newer than this build knows"), "{text}");
    assert!(text.contains("Upgrade smallebot"), "{text}");
    let err = pg_migration_status(&url).await.unwrap_err();
    assert!(matches!(err, PgStoreError::SchemaTooNew { .. }), "{err}");
}

#[tokio::test]
async fn an_unreachable_server_and_a_bad_url_say_what_to_do_without_the_password() {
    let Some(cluster) = TestCluster::start("an_unreachable_server") else {
        return;
    };
    let port = cluster.port();
    drop(cluster);
    let err = PgStore::connect(&format!("postgres://bob:hunter2@127.0.0.1:{port}/x"))
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, PgStoreError::Connect { .. }), "{text}");
    assert!(text.contains("bob:***@127.0.0.1"), "{text}");
    assert!(!text.contains("hunter2"), "{text}");
    assert!(text.contains("check that the server runs"), "{text}");
    let err = PgStore::connect("postgres://bob:hunter2@127.0.0.1:notaport/x")
        .await
        .unwrap_err();
    assert!(!err.to_string().contains("hunter2"), "{err}");
    assert!(matches!(err, PgStoreError::BadUrl { .. }), "{err}");
}
