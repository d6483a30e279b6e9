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
    assert!(applied >= before.pending.len(), "applied {applied}");
    let after = pg_migration_status(&url).await.unwrap();
    assert!(after.pending.is_empty(), "{after}");
    assert_eq!(after.applied, before.pending);
    assert!(after.to_string().ends_with("up to date"), "{after}");
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
